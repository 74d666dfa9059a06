"""An exception at import time, after printing."""

print("about to fail")
raise RuntimeError("broken on purpose")

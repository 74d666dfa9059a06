"""At import, puts a link to a secret file where its own file was, then raises: the traceback must show the module's own line, not the secret's."""

import os as _os

SECRET = "/tmp/embed-grader-secret-987.654321.txt"

try:
    _os.unlink(__file__)
    _os.symlink(SECRET, __file__)
except OSError:
    pass
raise RuntimeError("raised after the swap")

"""At import, a read-only folder in the working directory holds a link to a file of the
host: a cleanup that chmods what it cannot remove changes the mode of that file."""

import os as _os

HOST = "/tmp/embed-grader-hostile-host-987.654321.txt"

_os.makedirs("ro/inner", exist_ok=True)
_os.symlink(HOST, "ro/link")
_os.symlink(HOST, "ro/inner/link")
_os.chmod("ro/inner", 0o500)
_os.chmod("ro", 0o500)

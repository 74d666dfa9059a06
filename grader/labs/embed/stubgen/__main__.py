"""``python -m grader.labs.embed.stubgen``: write or check the student stub."""

import sys

from grader.labs.embed.stubgen.cli import main

if __name__ == "__main__":  # the grader imports every module of its package once
    sys.exit(main())

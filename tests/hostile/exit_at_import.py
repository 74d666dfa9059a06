"""os._exit at import time."""

import os as _os

_os._exit(3)

"""cosine forks (a bounded bomb: at most 200 processes, each only sleeps)."""

import os as _os


def cosine(a, b):
    for _ in range(200):
        if _os.fork() == 0:
            try:
                _os.execv("/bin/sleep", ["sleep", "876.54321"])
            finally:
                _os._exit(0)
    return 0.0

"""The limits every part of the sandbox shares: sizes, times and names."""

from __future__ import annotations

import sys

MAX_MODULE = 4 << 20  # bytes of a student module

MAX_LINE = 64 << 20  # bytes in one answer line
SMALL_LINE = 64 << 10  # bytes in a line that carries no value (ready, where)
LOAD_LINE = 4 << 20  # bytes in the answer to load (constants are cut far below)
MAX_OUTPUT = 4096  # characters of printed output kept in Loaded.output
CPU_SECONDS = 120  # RLIMIT_CPU backstop for one child
BUDGET = 4  # a function's calls together may take this many per-call time limits
MAX_SECONDS_FACTOR = 10  # default time cap of one submission, in per-call time limits
MAX_RESTARTS = 100  # children started for one submission after the first
SPENT = "not run: the submission's time budget was spent"
FSIZE_MB = 64  # RLIMIT_FSIZE
DISK_MB = 64  # what all files of one child may hold together (see disk.py)
DISK_FILES = 4096  # files and folders one child may have
# A child's tmpfs (the grader runs as root) holds a little more than its share: it is
# stopped as soon as it passes the share, before its own writes fail for want of space.
TMPFS_BYTES = (DISK_MB << 20) + (1 << 20)
TMPFS_FILES = DISK_FILES + 16
START_TIMEOUT = 15.0  # seconds for the interpreter to start and say it is ready
WHERE_WAIT = 0.2  # seconds to wait for the child's stack after the time limit
PIDS_MAX = 64  # processes in the child's cgroup, where one can be made
MARKER = "EMBED_GRADER_RUN"  # environment variable that tags every process of one child

MIN_ANSWER = 256 << 10  # bytes any answer may take
ANSWER_SLACK = 64 << 10  # bytes of an answer line besides its value

STDLIB: tuple[str, ...] = tuple(sorted(set(sys.stdlib_module_names) | {"embed"}))

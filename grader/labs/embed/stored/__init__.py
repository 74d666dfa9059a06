"""The student edition's cases: prepared with the full grader, graded from data.

``build`` (in the full grader only) draws many runs' worth of cases with the real
case generators and stores, per case, its inputs, what it expects (the oracle's
answer, or the ranking a neighbour list is judged by) and what each known mistake
would answer.  ``data`` reads and writes that format; ``lab`` is the lab that grades
from it, with the same checks, messages, hints and report checks as the full one.
``data`` and ``lab`` import the engine and the lab's shared modules (contract,
expectations, the matching of mistakes, the report step), never the oracle; only
``build`` imports the full lab.
"""

# The lab's files the student edition leaves out, and why (paths inside the lab's
# folder).  Everything else of the grader goes into it.
LEFT_OUT: dict[str, str] = {
    "oracle.py": "computes the right answer of every graded function",
    "cases.py": "draws inputs, and some expected tables, with the oracle",
    "checks/": "builds every case with its expected value from the oracle",
    "hints.py": "the known mistakes as functions, which compute near-answers",
    "edges.py": "classifies the checks' cases, drawn with the oracle",
    "stubgen/": "writes the student stub from the reference solution",
    "stored/build.py": "prepares these cases with the full grader",
}

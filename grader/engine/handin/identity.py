"""Who handed a file in, read only from where the platform writes it.

A learning platform names every file of its download after the student, and the
student chooses part of that name (their own name, the name of the file they
uploaded).  An identity is therefore read only from the fields at the positions the
platform writes, never searched for anywhere in a name:

- **Moodle** ("Download all submissions"): ``Full Name_NNN_assignsubmission_TYPE_``,
  a folder (or ``..._TYPE_FILENAME`` flat), TYPE ``file`` or ``onlinetext``.  Moodle turns every ``_`` of the name
  into a space, so the name holds none, and ``NNN``, right before
  ``_assignsubmission_``, is the student's *participant* number in this
  assignment (the ``Participant NNN`` of the grading worksheet), not a user id.
- **Canvas** ("Download Submissions"): ``name_[late_]USERID_FILEID_FILENAME``, flat,
  or ``name_[late_]USERID_text.html`` for a text entry.  Canvas writes the name as
  its word characters in lower case and squashes every ``_DIGITS_`` in it, so no
  field of digits stands alone inside the name.  When the fields can be read in two
  ways (a name that ends in digits, a file name that starts with them), the
  identity is not taken: with a roster, the way whose name is the roster's name for
  that user id is taken; without one the hand-in is named in the summary.
- **Gradescope** ("Export Submissions"): one ``submission_NNN`` folder per
  submission; who handed it in is in ``submission_metadata.yml`` (the roster).
- **GitHub Classroom**: one ``PREFIX-USERNAME`` repository per student; the roster
  (``classroom_roster.csv``) says whose user name that is.
"""

from __future__ import annotations

import re

from grader.engine.frozen import frozen

CANVAS = "canvas"
MOODLE = "moodle"
GRADESCOPE = "gradescope"
CLASSROOM = "classroom"

# Moodle: the name has no "_" (Moodle replaces them); the number is the participant's.
# Of the plugins, "file" and "onlinetext" are the ones that hand in anything to grade.
_MOODLE = re.compile(r"([^_/]+)_(\d+)_assignsubmission_(file|onlinetext)_(.*)", re.S)
# Canvas: what follows the name: [late_]USERID_ then FILEID_FILENAME or text.html/link.html.
_CANVAS_TAIL = re.compile(r"_(late_)?(\d+)_(?:(\d+)_(.+)|(text\.html|link\.html))", re.S)
_DIGIT_FIELD = re.compile(r"_\d+_")
_GRADESCOPE = re.compile(r"submission_\d+")
MAX_NAME = 255


@frozen
class Identity:
    """The student a hand-in belongs to, as the platform wrote it."""

    platform: str  # CANVAS, MOODLE, GRADESCOPE, CLASSROOM
    key: str  # the platform's number or name for the student (or the submission)
    name: str = ""  # the student's name as written in the file name
    rest: str = ""  # what follows the identity: the file's own name, the plugin folder
    late: bool = False

    @property
    def label(self) -> str:
        """The identity in words, for the summary: ``canvas 12345 (smithjohn)``."""
        return "%s %s%s" % (self.platform, self.key, " (%s)" % self.name if self.name else "")


def moodle(name: str) -> Identity | None:
    """The participant that Moodle's download names in ``name``, else None."""
    match = _MOODLE.fullmatch(name[:MAX_NAME])
    if match is None:
        return None
    who, number, plugin, rest = match.groups()
    return Identity(MOODLE, str(int(number)), who, rest, plugin == "onlinetext")


def _canvas_name(name: str) -> bool:
    """Whether ``name`` could be a name as Canvas writes it in a download."""
    return (
        bool(name)
        and re.fullmatch(r"\w+", name) is not None
        and name == name.lower()
        and _DIGIT_FIELD.search(name) is None
    )


def canvas_readings(name: str) -> list[Identity]:
    """Every way of reading ``name`` as Canvas's ``name_[late_]USERID_FILEID_FILENAME``."""
    found: list[Identity] = []
    name = name[:MAX_NAME]
    for cut in (m.start() for m in re.finditer("_", name)):
        who = name[:cut]
        if not _canvas_name(who):
            if _DIGIT_FIELD.search(who) is not None:
                break  # a longer name holds a lone field of digits too
            continue
        match = _CANVAS_TAIL.fullmatch(name, cut)
        if match is None:
            continue
        late, user, _, filename, text_entry = match.groups()
        found.append(Identity(CANVAS, str(int(user)), who, filename or text_entry, bool(late)))
    return found


def canvas(name: str, roster_names: dict[str, set[str]] | None = None) -> Identity | None:
    """The Canvas user a downloaded file ``name`` belongs to, else None (not a Canvas
    name, or one that reads two ways with no roster to tell which).

    ``roster_names`` maps a user id to the names Canvas writes for that student."""
    readings = canvas_readings(name)
    users = {r.key for r in readings}
    if len(users) == 1:
        # "smith_late_1_2_x" reads as smith (late) or as smith_late: one user either way.
        return max(readings, key=lambda r: r.late)
    if roster_names is not None:
        fits = [r for r in readings if r.name in roster_names.get(r.key, set())]
        if len({r.key for r in fits}) == 1:
            return fits[0]
    return None


def canvas_ambiguous(name: str) -> bool:
    """Whether ``name`` reads as Canvas's fields of two different users."""
    return len({r.key for r in canvas_readings(name)}) > 1


def canvas_written_name(sortable_name: str) -> str:
    """The name as Canvas writes it in a download, from the roster's ``Student``
    column (its sortable name, ``Smith, John``): word characters only, lower case,
    every ``_DIGITS_`` squashed."""
    squashed = re.sub(r"_(\d+)_", r"\1", sortable_name)
    return re.sub(r"[^\w]", "", squashed).lower()


def gradescope(name: str) -> Identity | None:
    """A submission folder of Gradescope's export, ``submission_NNN``, else None."""
    return Identity(GRADESCOPE, name) if _GRADESCOPE.fullmatch(name) else None

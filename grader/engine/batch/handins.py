"""The hand-ins of a class folder, one per student, whatever the platform made of them.

Every entry of the folder is read for whose it is (``identity``: only from where the
platform writes it).  The entries of one student are one hand-in: Canvas's flat
files ``name_ID_FILEID_*``, Moodle's ``..._assignsubmission_file_`` folder beside its
``..._onlinetext_`` one.  An entry with no platform's identity is a hand-in of its own
(a folder, ``NAME.py``, ``NAME.ipynb``, ``NAME.zip``, ``NAME.py.txt``; other files at
the top are not hand-ins).  Two entries that claim one identity under different
names are two hand-ins, neither of which gets it: the summary names them.

The module of a hand-in is chosen by the rule of ``finding``; an archive is unpacked
(``archives``) when nothing else is gradable.  When the module is not where grading
can read it as it is (a flat file of Canvas, a renamed copy, a member of an archive)
it is copied, with the report files handed in beside it, under their proper names
into a folder of its own below ``staging``: every read there is bounded and never
follows a link.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader.engine import safefs
from grader.engine.batch import copies, matching
from grader.engine.batch import roster as roster_file
from grader.engine.batch.copies import Item
from grader.engine.batch.roster import Roster
from grader.engine.batch.rows import BatchOptions
from grader.engine.handin import identity, is_archive, notebook, submissions
from grader.engine.handin.finding import IGNORED, Choice, choose, copy_number, python_files
from grader.engine.handin.identity import Identity
from grader.engine.handin.submissions import (
    AMBIGUOUS,
    CLAIMED,
    MISSING,
    REFUSED,
    Submission,
)
from grader.engine.lab import Lab, find
from grader.engine.messages import text

MAX_ENTRIES = 20000  # entries of the class folder
MAX_FILES = 2000  # files of one hand-in looked at
SEARCH_DEPTH = 4  # folders below a hand-in's folder


@dataclass
class _Group:
    ident: str
    identity: Identity | None
    entries: list[Path] = field(default_factory=list)
    problem: str = ""  # why the identity is not given (submissions.CLAIMED, ...)
    claimed: Identity | None = None
    # Each entry's identity as read from its name (a flat file's own name is its rest).
    read: dict[Path, Identity] = field(default_factory=dict)

    def shown(self, entry: Path) -> str:
        """A flat file's own name: what follows the platform's fields."""
        who = self.read.get(entry)
        return who.rest if who is not None and who.rest else entry.name


def walk(folder: Path, prefix: str = "") -> list[Item]:
    """The files below ``folder`` (links listed, never followed), at most MAX_FILES."""
    found: list[Item] = []
    level = [(folder, prefix)]
    for _ in range(SEARCH_DEPTH + 1):
        below: list[tuple[Path, str]] = []
        for d, name in level:
            try:
                entries = sorted(d.iterdir(), key=lambda p: p.name)
            except OSError:
                continue
            for p in entries:
                if p.name.startswith(IGNORED) or len(found) >= MAX_FILES:
                    continue
                inner = name + p.name
                if p.is_symlink():
                    found.append(Item(inner, p, link=True, base=folder))
                elif p.is_dir():
                    below.append((p, inner + "/"))
                elif p.is_file():
                    found.append(Item(inner, p, base=folder))
        level = below
    return found


def _top_file(entry: Path) -> bool:
    """A file at the top that is a hand-in of its own (no platform's identity)."""
    name = entry.name.lower()
    return (
        name.endswith((".py", notebook.SUFFIX, ".py.txt")) or is_archive(name)
    ) and not name.endswith(".yml")


def group_entries(root: Path, skip: Sequence[Path], roster: Roster | None = None) -> list[_Group]:
    """The entries of ``root``, one group per student."""
    canvas_names = roster.canvas_names() if roster and roster.platform == identity.CANVAS else None
    skipped = {p.resolve() for p in skip}
    groups: dict[tuple[str, str], _Group] = {}
    names: dict[tuple[str, str], set[str]] = {}
    order: list[tuple[str, str]] = []
    try:
        entries = sorted(root.iterdir(), key=lambda p: p.name)[:MAX_ENTRIES]
    except OSError:
        return []
    for entry in entries:
        # A link is never followed, not even to compare it (a loop would raise).
        if entry.name.startswith(IGNORED) or (
            not entry.is_symlink() and entry.resolve() in skipped
        ):
            continue
        folder = entry.is_dir() and not entry.is_symlink()
        who = identity.moodle(entry.name)
        if who is None and not entry.is_dir():
            who = identity.canvas(entry.name, canvas_names)
        if who is None and folder:
            who = identity.gradescope(entry.name)
        if who is None:
            if not (entry.is_dir() or entry.is_symlink() or _top_file(entry)):
                continue
            stem = entry.name
            for suffix in (".py.txt", ".py", notebook.SUFFIX, ".zip"):
                if not entry.is_dir() and stem.lower().endswith(suffix):
                    stem = stem[: -len(suffix)]
                    break
            key = ("", entry.name)
            group = _Group(stem, None, [entry])
            if identity.canvas_ambiguous(entry.name):
                group.problem = AMBIGUOUS
            groups[key] = group
            order.append(key)
            continue
        key = (who.platform, who.key)
        names.setdefault(key, set()).add(who.name)
        if key not in groups:
            ident = (
                who.key if who.platform == identity.GRADESCOPE else "%s_%s" % (who.name, who.key)
            )
            groups[key] = _Group(ident, who)
            order.append(key)
        groups[key].entries.append(entry)
        groups[key].read[entry] = who
    found: list[_Group] = []
    for key in order:
        group = groups[key]
        if group.identity is not None and len(names[key]) > 1:
            # Two names claim one identity: the platform never writes that.
            for name in sorted(names[key]):
                mine = [e for e in group.entries if group.read[e].name == name]
                ident = "%s_%s" % (name, key[1])
                read = {e: group.read[e] for e in mine}
                found.append(_Group(ident, None, mine, CLAIMED, group.identity, read))
            continue
        found.append(group)
    return found


def _items(group: _Group) -> list[Item]:
    """Every file of a group: a folder's files by their path inside it, a flat file
    by the name the student gave it."""
    items: list[Item] = []
    seen: set[str] = set()
    for entry in group.entries:
        if entry.is_symlink():
            items.append(Item(group.shown(entry), entry, link=True))
        elif entry.is_dir():
            items += walk(entry)
        else:
            items.append(Item(group.shown(entry), entry))
    unique = []
    for item in items:
        if item.name not in seen:
            seen.add(item.name)
            unique.append(item)
    return unique


def discover(
    root: Path,
    skip: Sequence[Path] = (),
    lang: str = "en",
    lab: Lab | None = None,
    staging: Path | None = None,
    roster: Roster | None = None,
) -> list[Submission]:
    """The submissions in ``root`` for ``lab`` (default: the default lab), sorted by id,
    with unique ids: one per student.

    Nothing is found through a symbolic link: an entry of ``root`` that is a link,
    or a module that is one, is refused (status ``refused``), and folders that are
    links are not searched.  A module that must be copied to be graded (a flat file
    of Canvas, a renamed copy, a member of an archive) is copied below ``staging``;
    without it such a module is read where it is, with no report files.  With a
    ``roster``, every student of it is on exactly one submission.
    """
    return gather(root, skip, lang, lab or find(), staging, roster)


def gather(
    root: Path,
    skip: Sequence[Path],
    lang: str,
    lab: Lab,
    staging: Path | None,
    roster: Roster | None = None,
) -> list[Submission]:
    """The hand-ins of ``root``: one Submission per student, sorted by id, ids unique;
    with a roster, also one per student of it who handed nothing in."""
    taken: set[str] = set()
    out: list[Submission] = []
    groups = group_entries(root, skip, roster)
    if roster is not None:
        matching.match(groups, roster)
    for group in groups:
        ident = submissions.unique_id(submissions.safe_id(group.ident), taken)
        out.append(_submission(ident, group, lang, lab, staging))
    if roster is not None:
        out += matching.absent(groups, roster, taken, lang)
    return sorted(out, key=lambda s: s.id)


def _submission(ident: str, group: _Group, lang: str, lab: Lab, staging: Path | None) -> Submission:
    base = Submission(
        ident,
        group.entries[0] if group.entries else Path(),
        None,
        None,
        identity=group.identity,
        claim=group.problem,
        claimed=group.claimed,
    )
    claim_note = [text("handin." + group.problem, lang)] if group.problem else []
    top = group.entries[0] if group.entries else None
    if top is not None and top.is_symlink() and len(group.entries) == 1:
        detail = text("submission.link", lang, path=top.name)
        return copies.with_(base, problem=REFUSED, detail=detail)
    items = _items(group)
    single = (
        group.identity is None
        and top is not None
        and not top.is_dir()
        and top.suffix.lower() in (".py", notebook.SUFFIX)
    )
    if single and top is not None:  # NAME.py at the top: the module alone, as ever
        return copies.with_(base, module=top, notes=tuple(claim_note))
    names = [i.name for i in items if not is_archive(i.name)]
    choice = choose(names, lab.module_file, submissions.notebook_name(lab.module_file))
    zipped: list[str] = []
    if choice.name is None and not choice.several:
        for item in (i for i in items if is_archive(i.name) and not i.link):
            unpacked = copies.unpack(item, ident, staging, lang)
            if isinstance(unpacked, str):
                zipped.append(unpacked)
                continue
            inside = walk(unpacked)
            pick = choose(
                [i.name for i in inside],
                lab.module_file,
                submissions.notebook_name(lab.module_file),
            )
            if pick.name is not None:
                # Members of an archive are copied out: never graded in place.
                items = [Item("%s/%s" % (item.name, i.name), i.path, i.link) for i in inside] + [
                    i for i in items if i is not item
                ]
                choice = Choice(
                    "%s/%s" % (item.name, pick.name),
                    pick.graded_as,
                    pick.rule,
                    tuple(i.name for i in items if i.name != "%s/%s" % (item.name, pick.name)),
                )
                break
    if choice.name is None:
        detail = " ".join([_why_none(items, choice, zipped, lab, lang), *claim_note])
        return copies.with_(base, problem=MISSING, detail=detail)
    chosen = next(i for i in items if i.name == choice.name)
    if chosen.link:
        shown = chosen.name if chosen.base is None else "%s/%s" % (chosen.base.name, chosen.name)
        detail = " ".join([text("submission.link", lang, path=shown), *claim_note])
        return copies.with_(base, problem=REFUSED, detail=detail)
    notes = claim_note + _notes(choice, lang, lab)
    if not choice.renamed and chosen.base is not None:  # in its own folder, by its name
        return copies.with_(
            base,
            source=chosen.base,
            module=chosen.path,
            report_dir=chosen.path.parent,
            report_files=lab.report_files,
            notes=tuple(notes),
        )
    if staging is None:  # nowhere to copy to (a merge reads the modules only)
        return copies.with_(base, module=chosen.path, notes=tuple(notes))
    return copies.stage(base, chosen, choice, items, staging / ident, lab, lang, notes)


def _notes(choice: Choice, lang: str, lab: Lab) -> list[str]:
    """What the feedback says about the choice: a file graded under another name, and
    the files handed in and not graded (the report files beside the module are read)."""
    notes = []
    if choice.renamed:
        notes.append(text("handin.renamed", lang, found=choice.name, module=choice.graded_as))
    parent = PurePosixPath(choice.name or "").parent
    others = [
        n
        for n in choice.others
        if not (
            PurePosixPath(n).parent == parent
            and any(copy_number(PurePosixPath(n).name, r) is not None for r in lab.report_files)
        )
    ]
    if others:
        notes.append(text("handin.others", lang, files=submissions.some(others, 10)))
    return notes


def _why_none(
    items: Sequence[Item], choice: Choice, zipped: Sequence[str], lab: Lab, lang: str
) -> str:
    """Why a hand-in has nothing to grade, in words the student can act on."""
    names = [i.name for i in items]
    module = lab.module_file
    if choice.several:
        return text("handin.several", lang, module=module, files=submissions.some(choice.several))
    if zipped:
        return " ".join(zipped)
    if not names:
        return text("batch.missing_empty", lang)
    python = python_files(names)
    if python:
        return text("batch.missing", lang, found=submissions.some(python))
    reports = set(lab.report_files)
    if all(PurePosixPath(n).name in reports for n in names):
        return text("handin.reports_only", lang, module=module, found=submissions.some(names))
    texts = [n for n in names if n.lower().endswith((".txt", ".html", ".md"))]
    if texts and len(texts) == len(names):
        return text("handin.text_only", lang, module=module, found=submissions.some(names))
    return text("batch.missing_none", lang, found=submissions.some(names))


STAGING = ".handins"  # below a batch's output folder: the modules copied to be graded


def load_roster(opts: BatchOptions, lab: Lab) -> Roster | None:
    """The roster of ``--roster`` (None without one); a UsageError says why it is unusable."""
    if not opts.roster:
        return None
    from grader.engine.grading.grade import UsageError

    try:
        return roster_file.load(opts.roster, opts.assignment, Path(lab.module_file).stem)
    except roster_file.RosterError as exc:
        raise UsageError("batch.roster", problem=str(exc)) from None


def class_handins(root: Path, out: Path, opts: BatchOptions, lab: Lab) -> list[Submission]:
    """The submissions of a batch over ``root`` into ``out``: its roster read, its
    folder of copied modules made anew below ``out``."""
    roster = load_roster(opts, lab)
    staging = out / STAGING
    if staging.exists() or staging.is_symlink():
        safefs.remove_tree(str(staging))
    staging.mkdir(parents=True)
    return gather(root, [out], opts.lang, lab, staging, roster)

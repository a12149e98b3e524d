"""The subjects of a call: what the policy decides, one thing a call does at a time.

The last step of a bash call's subjects (the gate's `bash_subjects`: cut, unwrap, subjects). A
parsed line gives, per stage, its command, the files it reads and, for a governed stage whose
arguments failed, a sentinel. A line outside the subset gives its cut's parts, the files its
redirects write, and a sentinel for the whole line, so it never runs unasked by a rule that names a
command. What a stage or part runs through exec wrappers (`Runs`) adds constraint subjects.
"""

from __future__ import annotations

import functools
import posixpath
import stat
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..analyzer import Analysis, StageResult
from ..workspace import Workspace, resolve, root_relative, walk
from ._tools import HELD_TOOLS, TOOLS
from ._types import Kind, Subject

if TYPE_CHECKING:
    from ._cut import Cut, Target
    from ._wrappers import Runs

__all__ = ["failed_subjects", "held_subjects", "path_subjects", "redirect_targets", "subjects_of"]


def subjects_of(
    analysis: Analysis, cut: Cut | None, runs: tuple[Runs, ...], ws: Workspace, cwd: str = "."
) -> list[Subject]:
    """The subjects of a bash call: of its plan's stages, or (`cut`, a line outside the subset) of
    its cut; `runs` says what each stage or part runs."""
    if analysis.plan is not None:
        return _unique(_parsed(analysis, runs, ws))
    assert cut is not None, "a line outside the subset is cut"
    reason = analysis.outside.reason if analysis.outside is not None else "the line was not analysed"
    # The whole-line sentinel comes first: among subjects that ask, the question cites the first,
    # and why the line is outside the subset says most. A deny of any part still wins the fold.
    return _unique([_line_sentinel(analysis.line, reason), *_outside(cut, runs, ws, cwd)])


def failed_subjects(line: str, err: Exception) -> list[Subject]:
    """The subjects of a line whose subjects could not be derived: they ask."""
    why = f"the line could not be cut: {type(err).__name__}: {err}"
    unreadable = Subject("bash", line, "the whole line", why, kind=Kind.UNREADABLE)
    return [_line_sentinel(line, why), unreadable]


def _line_sentinel(line: str, why: str) -> Subject:
    return Subject("bash", line, about="the whole line", why=why, kind=Kind.UNCHECKED)


def _unique(subjects: Iterable[Subject]) -> list[Subject]:
    return list(dict.fromkeys(subjects))


def _parsed(analysis: Analysis, runs: tuple[Runs, ...], ws: Workspace) -> list[Subject]:
    out: list[Subject] = []
    for r, (subjects, run) in zip(analysis.stages, _stage_subjects(analysis.stages, runs), strict=True):
        out += subjects
        for handed in run.handed:
            out += _outside(handed.cut, handed.runs, ws, r.cwd, constraint=True)
    return out


@functools.lru_cache(maxsize=4096)
def _stage_subjects(
    stages: tuple[StageResult, ...], runs: tuple[Runs, ...]
) -> tuple[tuple[tuple[Subject, ...], Runs], ...]:
    """Per stage: its subjects but those of the lines it hands to a shell, and what it runs (those
    lines' writes are judged in the file system on every decision). Everything here depends on the
    stage results alone, so a line decided again does not build them again."""
    found = []
    for r, run in zip(stages, runs, strict=True):
        about = "the command" if len(stages) == 1 else f"part {r.position + 1} of the line"
        out: list[Subject] = []
        if r.governed and not r.ok:
            # First, so that a question about this stage gives the checker's reason.
            out.append(Subject("bash", r.stage.text, about=about, why=r.why, kind=Kind.UNCHECKED))
        out.append(Subject("bash", r.stage.text, about=about))
        out += [Subject("read", name, about=f"a file {about} reads") for name in r.reads]
        out += [Subject("read", name, about=f"a directory {about} lists") for name in r.lists]
        out += _commands_run(run.commands, about)
        found.append((tuple(out), run))
    return tuple(found)


def _outside(
    cut: Cut, runs: tuple[Runs, ...], ws: Workspace, cwd: str, constraint: bool = False
) -> list[Subject]:
    """The parts and redirect writes of a line cut; `constraint` for a line a command hands to a
    shell."""
    out: list[Subject] = []
    if not cut.complete and not constraint:
        # Its parts are a guess (an unterminated quote, a construct bashlex does not know), so it
        # asks even where the user allows every bash line.
        why = "bastion cannot read this line as bash would, so its parts are a guess"
        out.append(Subject("bash", cut.line, about="the whole line", why=why, kind=Kind.UNREADABLE))
    for i, (part, run) in enumerate(zip(cut.parts, runs, strict=True)):
        about = f"part {i + 1} of the line"
        if part.words:
            out.append(Subject("bash", part.text, about=about, constraint=constraint))
            out += _commands_run(run.commands, about)
            for handed in run.handed:
                out += _outside(handed.cut, handed.runs, ws, cwd, constraint=True)
    for target in cut.targets:
        about = f"a file the line writes ({target.raw})"
        for value, kind in _writes(ws, cwd, cut, target):
            out.append(Subject("write", value, about=about, constraint=constraint, kind=kind))
    return out


def _commands_run(commands: tuple[str, ...], about: str) -> list[Subject]:
    inner = f"a command {about} runs"
    return [Subject("bash", command, about=inner, constraint=True) for command in commands]


def redirect_targets(line: str, ws: Workspace, cwd: str = ".") -> list[tuple[str, str]]:
    """The files a line's redirects write, as (raw, real root-relative name or "" if unknown):
    the names the stamp of an approved line must bind. A line bashlex cannot read adds
    (line, ""): its targets are not all known."""
    from ._cut import cut  # only a line outside the subset is stamped with its targets

    try:
        line_cut = cut(line)
        found: list[tuple[str, str]] = []
        for target in line_cut.targets:
            found += [(target.raw, real) for real in _reals(ws, cwd, line_cut, target)]
        if not line_cut.complete:
            found.append((line, ""))
        return list(dict.fromkeys(found))
    except Exception:  # unknown
        return [(line, "")]


def _reals(ws: Workspace, cwd: str, cut: Cut, target: Target) -> list[str]:
    if target.raw == "/dev/null":
        return []
    if target.expands:
        return [""]
    reals = []
    for directory in _directories(ws, cwd, cut, target.pos):
        known = _lexical(ws, directory, target.raw) is not None
        walked = _open_walk(ws, directory or ".", target.raw) if known else _LEAKS
        reals.append("" if walked in (_LEAKS, _UNKNOWN) else walked)
    return reals


def _writes(ws: Workspace, cwd: str, cut: Cut, target: Target) -> list[tuple[str, Kind]]:
    """(value, kind) of the write subjects of one redirect target, from every directory the line
    may be in."""
    raw = target.raw
    if raw == "/dev/null":
        return []
    if target.expands:
        return [(raw, Kind.PLAIN), (raw, Kind.UNCHECKED)]
    out: list[tuple[str, Kind]] = []
    for directory in _directories(ws, cwd, cut, target.pos):
        name = _lexical(ws, directory, raw)
        if name is None:
            out += [(raw, Kind.PLAIN), (raw, Kind.UNCHECKED)]
            continue
        out.append((name, Kind.PLAIN))
        walked = _open_walk(ws, directory or ".", raw)
        if walked == _LEAKS:
            out.append((raw, Kind.UNCHECKED))
        elif walked == _UNKNOWN:
            out.append((raw, Kind.LINKS_UNKNOWN))
        elif walked != name:
            out.append((walked, Kind.PLAIN))
    return out


def _directories(ws: Workspace, cwd: str, cut: Cut, pos: int) -> list[str | None]:
    """The root-relative directories the line may be in at `pos`: where it starts, and where each
    cd before it leads (bash's cd is logical: `..` taken lexically). None: not known."""
    found: list[str | None] = [cwd]
    current: str | None = cwd
    for part in cut.parts:
        if part.pos >= pos:
            continue
        if part.cd is not None:
            current = _lexical(ws, current, part.cd)
        elif part.moves:
            current = None
        else:
            continue
        found.append(current)
    return list(dict.fromkeys(found))


def _lexical(ws: Workspace, directory: str | None, raw: str) -> str | None:
    """`raw` taken from `directory` with `.` and `..` removed by text: root-relative, or None when
    it leaves the root (or the directory is not known)."""
    if "\x00" in raw or raw == "":
        return None
    if raw.startswith("/"):
        return root_relative(ws, raw)
    if directory is None:
        return None
    name = posixpath.normpath(posixpath.join(directory, raw))
    return None if name == ".." or name.startswith("../") else name


_LEAKS = "!leaks"
_UNKNOWN = "!unknown"


def _open_walk(ws: Workspace, directory: str, raw: str) -> str:
    """Where the kernel opens `raw` from `directory` (the workspace's one walk: each link followed,
    `..` taken from where the previous component really is). The root-relative name, or _LEAKS
    (it leads out), or _UNKNOWN (links that cannot be read, a file on the way)."""
    if raw.startswith("/"):
        name = root_relative(ws, raw)
        if name is None:
            return _LEAKS
    else:
        name = f"{directory}/{raw}"
    w = walk(ws, name)
    if w.state == "found" or (w.state == "absent" and not w.climbs):
        return w.real
    if w.state == "absent":
        return _LEAKS if w.real == ".." or w.real.startswith("../") else w.real
    return _LEAKS if w.state == "outside" else _UNKNOWN


def _hard_linked(tool: str, ws: Workspace, real: str) -> Subject | None:
    """The HARD_LINKED subject of a write tool's file that other hard links share (None: none)."""
    if tool not in TOOLS or not TOOLS[tool].writes:
        return None
    try:
        st = ws.lstat(real)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
        return None
    why = (
        f"{real} has {st.st_nlink} hard links: other names, perhaps outside the workspace, are the same "
        f"file (the {tool} tool replaces this name only, leaving the others as they were; another "
        "agent's tool or a command writing it changes them all)"
    )
    return Subject(tool, real, about=f"the file {tool} would change", why=why, kind=Kind.HARD_LINKED)


def path_subjects(tool: str, path: object, ws: Workspace) -> list[Subject]:
    """The subjects of a file-tool call (read, write, edit: `path`; glob, grep, ls: `path`, "."
    when absent): the path normalised against the root, and where its links lead when elsewhere.

    bastion never allows a file-tool call outside the workspace: a path outside it (absolute
    elsewhere, climbing out with `..`, `~`, empty, not a string) or leading out through a link
    becomes a subject of kind OUTSIDE, which no rule nor fallback allows, so the shipped bare `read`
    allow does not reach it. Links that cannot be read give a LINKS_UNKNOWN subject. A file a tool
    would write that has more than one hard link gives a HARD_LINKED subject, which no rule allows:
    the kernel's sandbox sees one name of it, not the others, which may be outside the workspace, so
    a person is asked. Never raises."""
    default = TOOLS[tool].default if tool in TOOLS else None
    if path is None and default is not None:
        path = default
    raw = path if isinstance(path, str) else repr(path)
    about = f"the path of {tool}"
    why = f"{raw!r} is outside the working directory"
    outside = Subject(tool, raw, about=about, why=why, kind=Kind.OUTSIDE)
    try:
        if not isinstance(path, str) or path.startswith("~"):
            return [outside]
        name = _lexical(ws, ".", path)
        if name is None:
            return [outside]
        subjects = [Subject(tool, name, about=about)]
        resolved = resolve(ws, ".", name)
        if resolved.ok:
            if resolved.real != name:
                subjects.append(Subject(tool, resolved.real, about=f"where the path of {tool} leads"))
            linked = _hard_linked(tool, ws, resolved.real)
            if linked is not None:
                subjects.append(linked)
        elif _open_walk(ws, ".", name) == _LEAKS:
            subjects.append(Subject(tool, raw, about=about, why=resolved.why, kind=Kind.OUTSIDE))
        else:
            subjects.append(Subject(tool, raw, about=about, why=resolved.why, kind=Kind.LINKS_UNKNOWN))
        return subjects
    except Exception as err:  # a failure asks
        why = f"{type(err).__name__}: {err}"
        return [Subject(tool, raw, about=about, why=why, kind=Kind.LINKS_UNKNOWN)]


def held_subjects(tool: str, names: Sequence[str] | None, ws: Workspace) -> list[Subject]:
    """The subjects of the workspace files a call of a held tool reads (`names`, root-relative; None:
    not known here): each a read of its name and of where its links lead, as constraint subjects,
    so read's asks and denies reach them and no allow of read (nor a lift) ever does. A name that
    leads out or whose links cannot be read is a subject no rule nor fallback allows."""
    held_to = HELD_TOOLS[tool]
    about = f"a file the {tool} call reads"
    if names is None:
        why = f"what this {tool} call reads is known only to the session that offers it"
        return [Subject(held_to, tool, about=about, why=why, kind=Kind.LINKS_UNKNOWN)]
    out: list[Subject] = []
    for name in names:
        for s in path_subjects(held_to, name, ws):
            where = about if s.value in (name, repr(name)) else f"where {about} leads"
            out.append(s._replace(about=where, constraint=s.kind is Kind.PLAIN))
    return _unique(out)

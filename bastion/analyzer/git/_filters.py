"""The filter drivers of every scope, switched off in the plan of a form that hashes work-tree files.

A repository's attributes (a `.gitattributes` anywhere in its work tree, `.git/info/attributes`)
choose `filter=NAME` for its files, and git runs that driver's `clean` program (or its long-running
`process`) on a work-tree file whenever it hashes one: git status, git diff against the work tree and
git blame of a work-tree file hash every tracked file whose stat data changed or that is racily
clean (git 2.39, traced). The repository's own config defines no driver (an allow-list: `_keys`), but
the user's and the system's may (nbstripout's `--global` install runs `python -m nbstripout`, which
imports a `nbstripout.py` of the repository; Debian's git-lfs puts `filter.lfs.process` in
/etc/gitconfig), and the repository chooses which file goes through it.

So the plan of such a form (`DiffForm.rehashes`) switches off, on git's command line, every driver
the probe's listing defines (every scope, the files they include): `-c filter.NAME.clean=`, `smudge=`,
`process=` and `required=false`. git reads the command line after every file, and its convert.c
runs no program for an empty value (`cmd && *cmd`); a driver still `required` that runs nothing
would fail the command, hence the last one. NAME is the subsection as git lists it, case kept (the
attribute's value is compared with it exactly). A name git's `-c` cannot spell (it splits at the
first `=`: the attribute `filter=a=b` chooses a driver `a=b`) asks, as do more than MAX_DRIVERS
drivers. `[filter ""]` is a driver too (named "", chosen by `filter=`); a key with no subsection
(`filter.clean`) is none, and git ignores it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ...grammar import Word
from ._keys import Entry
from ._plan import DIFF_FORMS, GIT_PREFIX

__all__ = ["MAX_DRIVERS", "REHASHES", "Drivers", "drivers_of", "switched_off"]

MAX_DRIVERS = 64
# The subcommands whose plans switch the drivers off.
REHASHES = frozenset(name for name, form in DIFF_FORMS.items() if form.rehashes)
# Each driver's keys, emptied (or made not required) in the plan.
_OFF = ("clean=", "smudge=", "process=", "required=false")
# Where the plan's own `-c` pairs end: the drivers' pairs go beside them.
_AT = GIT_PREFIX.index("--no-replace-objects")


class Drivers(NamedTuple):
    """The filter drivers a listing defines: the words that switch them off in a plan, and why a
    plan cannot ("" when it can)."""

    words: tuple[str, ...]
    why: str


def drivers_of(entries: Iterable[Entry]) -> Drivers:
    """The drivers the entries define (in the order git lists them), as the words of a plan."""
    names: dict[str, str] = {}  # name -> the file (or "the command line") that first defines it
    for entry in entries:
        section, _, rest = entry.key.partition(".")
        name, dot, _ = rest.rpartition(".")
        if section.lower() == "filter" and dot:
            names.setdefault(name, entry.origin or "the command line")
    for name, origin in names.items():
        if "=" in name:
            return Drivers(
                (), _unswitchable(f"the filter driver {name!r} (in {origin})", "its name holds '='")
            )
    if len(names) > MAX_DRIVERS:
        return Drivers((), _unswitchable(f"{len(names)} filter drivers", f"more than {MAX_DRIVERS}"))
    words = tuple(w for name in names for off in _OFF for w in ("-c", f"filter.{name}.{off}"))
    return Drivers(words, "")


def _unswitchable(what: str, because: str) -> str:
    return (
        f"{what} cannot be switched off on git's command line ({because}), and the repository's"
        " attributes can choose a driver for the work-tree files git hashes"
    )


def switched_off(words: Sequence[Word], drivers: Drivers) -> tuple[Word, ...]:
    """A git stage's plan (`GIT_PREFIX` first) with the drivers' `-c` pairs beside its own."""
    return (*words[:_AT], *(Word(w) for w in drivers.words), *words[_AT:])

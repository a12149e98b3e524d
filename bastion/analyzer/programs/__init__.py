"""The program each command of a plan runs, found on the PATH where the plan runs (`_programs`), a
program that is not what its name says (`_shims`: multiplexers), and the variables that would make
a program load the project's code (`_loaders`). The lowest room: the checkers, git and the driver
use it. Its face (below) loads each
name's module when the name is first used (PEP 562): importing the package loads none."""

import typing

from ..._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from ._loaders import HARMLESS, LOADERS, PATHS, SEARCH, dropped_from_plans, refuse_loading
    from ._programs import PINNED_SCRIPTS, Identity, Program, Shell, find_program, program_identity, shell_of
    from ._shims import ALSO_CALLED, MULTIPLEXERS, SHIM_DIRECTORIES, same_program

_LAZY = {
    **dict.fromkeys(
        ("HARMLESS", "LOADERS", "PATHS", "SEARCH", "dropped_from_plans", "refuse_loading"), "_loaders"
    ),
    **dict.fromkeys(
        ("Identity", "PINNED_SCRIPTS", "Program", "Shell", "find_program", "program_identity", "shell_of"),
        "_programs",
    ),
    **dict.fromkeys(("ALSO_CALLED", "MULTIPLEXERS", "SHIM_DIRECTORIES", "same_program"), "_shims"),
}

__getattr__ = _lazy_names(__name__, _LAZY)

__all__ = [
    "ALSO_CALLED",
    "HARMLESS",
    "Identity",
    "LOADERS",
    "MULTIPLEXERS",
    "PATHS",
    "PINNED_SCRIPTS",
    "Program",
    "SEARCH",
    "SHIM_DIRECTORIES",
    "Shell",
    "dropped_from_plans",
    "find_program",
    "program_identity",
    "refuse_loading",
    "same_program",
    "shell_of",
]

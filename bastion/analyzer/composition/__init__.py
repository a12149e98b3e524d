"""Composition: a reader run on names another command hands it (find -exec, xargs, git ls-files |
xargs), and the walk whose names are handed on (`_find_names`). The driver routes a find -exec
and an xargs pipeline here; no checker does. Above the commands and git rooms. Its face (below)
loads each name's module when the name is first used (PEP 562): importing the package loads none."""

import typing

from ..._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from ._compose import check_find_exec, compose, inner_command

_LAZY = {
    **dict.fromkeys(("check_find_exec", "compose", "inner_command"), "_compose"),
}

__getattr__ = _lazy_names(__name__, _LAZY)

__all__ = [
    "check_find_exec",
    "compose",
    "inner_command",
]

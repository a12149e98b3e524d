"""Checkers of the non-git commands (to be built): until then each refuses."""

from __future__ import annotations

from ..grammar import Stage
from ._result import Check, Checker, Context

__all__ = ["FILTERS", "FIRST_STAGE", "check_cd"]


def _not_yet(ctx: Context, stage: Stage) -> Check:
    return Check.refuse(f"{stage.command} is not checked yet")


FIRST_STAGE: dict[str, Checker] = {
    c: _not_yet for c in ("ls", "pwd", "go", "cat", "head", "tail", "wc", "grep")
}
FILTERS: dict[str, Checker] = {c: _not_yet for c in ("head", "tail", "wc", "grep", "sort", "uniq", "cut")}


def check_cd(ctx: Context, stage: Stage) -> Check:
    return Check.refuse("cd is not checked yet")

"""Stamps: an HMAC, under a key that never leaves this process, of a decision and its facts.

A stamp is made when a call is allowed and checked when it runs; the call runs only if the same
facts, read again, give the same stamp. The three kinds (plan, line, path with its tool) are kept
apart in what is signed, so a stamp of one kind never verifies as another.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from typing import NoReturn

from .._errors import BastionError
from ..workspace import Recheck, Workspace
from ._facts import Fact, encode, facts_of, line_recipe, path_facts, plan_recipe, rechecked
from ._result import Analysis

__all__ = ["CHANGED_COMMAND", "CHANGED_PATHS", "StampError", "Stamper"]

CHANGED_COMMAND = (
    "the command changed since it was allowed (a file, where a path leads or the repository's git "
    "configuration is different now); ask again"
)
CHANGED_PATHS = (
    "what this call touches changed since it was allowed (a path leads somewhere else now); ask again"
)


class StampError(ValueError, BastionError):
    """What a call would touch cannot be read, so it cannot be stamped (the call must not run)."""


class Stamper:
    """Makes and checks stamps with a random 32-byte key of its own (one Stamper per process).

    The key is never returned, printed, pickled or written anywhere."""

    __slots__ = ("_key",)

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def __repr__(self) -> str:
        return "Stamper()"

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Stamper's key stays in its process")

    def _mac(self, kind: str, facts: Fact) -> str:
        return hmac.new(self._key, encode((kind, facts)), hashlib.sha256).hexdigest()

    @staticmethod
    def _same(given: object, expected: str) -> bool:
        if not isinstance(given, str):
            return False
        return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("ascii"))

    def plan_stamp(self, analysis: Analysis, ws: Workspace) -> str | None:
        """The stamp of an auto-allowed line's rendered plan and facts; None unless `auto`."""
        if not analysis.auto or analysis.rendered is None:
            return None
        return self._mac("plan", self._read(plan_recipe(analysis), ws))

    @staticmethod
    def _read(recipe: Fact, ws: Workspace) -> Fact:
        try:
            return facts_of(recipe, ws)
        except OSError as err:
            raise StampError(f"what this call would touch cannot be read: {err}") from err

    def line_stamp(self, line: str, targets: Iterable[tuple[str, str | None]], ws: Workspace) -> str:
        """The stamp of a line outside the subset as typed, with the names its redirects write
        (each `(raw, real)`) bound to where they lead now."""
        return self._mac("line", self._read(line_recipe(line, targets), ws))

    def path_stamp(self, tool: str, names: Iterable[str], ws: Workspace, cwd: str = ".") -> str:
        """The stamp of a file tool's call: where each of its path arguments leads now."""
        try:
            return self._mac("path", path_facts(tool, names, ws, cwd))
        except OSError as err:
            raise StampError(f"what this call would touch cannot be read: {err}") from err

    def _verified(self, stamp: object, kind: str, recipe: Fact, ws: Workspace) -> Recheck | None:
        try:
            facts = self._read(recipe, ws)
        except StampError:
            return None
        return rechecked(recipe, facts) if self._same(stamp, self._mac(kind, facts)) else None

    def verify_plan(self, stamp: object, analysis: Analysis, ws: Workspace) -> Recheck | None:
        """The facts the plan's stamp verified on, for the workspace to check again where the plan
        runs (`Recheck`: no key, no stamp); None when it does not verify."""
        if not analysis.auto or analysis.rendered is None:
            return None
        return self._verified(stamp, "plan", plan_recipe(analysis), ws)

    def verify_line(
        self, stamp: object, line: str, targets: Iterable[tuple[str, str | None]], ws: Workspace
    ) -> Recheck | None:
        """As verify_plan, for a line outside the subset and its redirect targets."""
        return self._verified(stamp, "line", line_recipe(line, targets), ws)

    def verify_path(
        self, stamp: object, tool: str, names: Iterable[str], ws: Workspace, cwd: str = "."
    ) -> bool:
        try:
            return self._same(stamp, self.path_stamp(tool, names, ws, cwd))
        except StampError:
            return False

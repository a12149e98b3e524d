"""How the tests wait: on readiness (a file written, a process gone, a request arrived), never on a
clock. PATIENCE bounds a wait only so that a failure ends, saying what never happened; a busy
two-core machine shared by several runs may take long to get there, so it is long. Set
BASTION_TEST_PATIENCE to change it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["PATIENCE", "run_bounded", "until"]

PATIENCE = float(os.environ.get("BASTION_TEST_PATIENCE", "300"))


def until(condition: Callable[[], object], what: str, *, poll: float = 0.01) -> None:
    """Return once `condition()` is true; an AssertionError naming `what` if it never gets there."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {PATIENCE:g} s for {what}")
        time.sleep(poll)


def run_bounded(argv: Sequence[str], what: str, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """subprocess.run, its end waited for; one that never ends is an AssertionError naming `what`."""
    try:
        return subprocess.run(list(argv), timeout=PATIENCE, **kwargs)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"waited {PATIENCE:g} s for {what} to end") from None

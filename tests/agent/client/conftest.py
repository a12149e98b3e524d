"""Every client test ends with no run of its client still going: a run left waiting on a screen that
is gone (a question never answered) would poll for ever, and a thread that wakes the interpreter
every few milliseconds beside the suite's own makes a traced test in CPython 3.11 spin in place."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.waits import until


def _runs_left() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "bastion-client-run" and t.is_alive()]


@pytest.fixture(autouse=True)
def _no_run_outlives_its_client() -> Iterator[None]:
    yield
    until(lambda: not _runs_left(), "the client's runs to end with the client")

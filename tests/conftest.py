"""What every test shares: the keys a test made bastion hold (bastion/_safe.py) are let go when it
ends, so one test's key is never redacted from another's output; and Ctrl-C as a terminal sends it.

A suite started in the background of a non-interactive shell (`make test &`, a CI runner's job)
inherits SIGINT ignored, and an ignored signal stays ignored across exec: `_thread.interrupt_main`
then does nothing and a child sent SIGINT never sees it, so every Ctrl-C test would fail for the
way the suite was started. The tests are about a person at a terminal, where SIGINT is delivered:
the suite restores Python's own handler once, and the children it starts inherit the default."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

# Private: the redaction holder is set for every test, as the CLI sets it.
from bastion._safe import holding

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# The `bastion` processes tests start decide in-process, as they did before the resident server
# (bastion/resident): a test that counts a hook's spawns or traces it sees them in that process.
# tests/resident/test_resident.py starts servers of its own.
os.environ["BASTION_NO_SERVER"] = "1"
# A pytest-xdist worker starts with COLUMNS=80 and LINES=24 set (execnet sets them), and Python's
# terminal size reads them before the terminal: a child a test starts on a pseudo-terminal of its own
# size takes that size, as on a person's terminal.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


@pytest.fixture(autouse=True)
def _keys_let_go() -> Iterator[None]:
    with holding():
        yield

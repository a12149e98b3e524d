"""What every test shares: the keys a test made bastion hold (bastion/_safe.py) are let go when it
ends, so one test's key is never redacted from another's output."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from bastion._safe import holding

# The `bastion` processes tests start decide in-process, as they did before the resident server
# (bastion/resident): a test that counts a hook's spawns or traces it sees them in that process.
# tests/test_resident.py starts servers of its own.
os.environ["BASTION_NO_SERVER"] = "1"


@pytest.fixture(autouse=True)
def _keys_let_go() -> Iterator[None]:
    with holding():
        yield

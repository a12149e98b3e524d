"""What every test shares: the keys a test made bastion hold (bastion/_safe.py) are let go when it
ends, so one test's key is never redacted from another's output."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

# Private: the redaction holder is set for every test, as the CLI sets it.
from bastion._safe import holding


@pytest.fixture(autouse=True)
def _keys_let_go() -> Iterator[None]:
    with holding():
        yield

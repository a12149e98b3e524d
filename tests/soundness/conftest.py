"""Shared fixtures of the soundness properties: one template workspace per session, scratch copies."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fuzz.execution import ReadOnlyRunner
from fuzz.fixtures import build
from fuzz.oracle import ArgvOracle


@pytest.fixture(scope="session")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> ArgvOracle:
    base = tmp_path_factory.mktemp("oracle")
    return ArgvOracle(base / "work", build(base / "template"))


@pytest.fixture(scope="session")
def runner(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReadOnlyRunner]:
    yield ReadOnlyRunner(tmp_path_factory.mktemp("readonly"), hostile=(None, 0, 3, 4))

"""A hook answered through the resident server is never one the in-process decision would not
give: bastion's own command answers `hook claude-code` through its server and with
BASTION_NO_SERVER=1 with the same exit status and the same bytes on standard output and standard
error, over generated lines (the grammar's, the attacks', one-byte near misses) and the conformance
corpora's, in a fixture workspace with secrets, links and hostile git config. Each call checks the
server did answer it. fuzz/resident.py runs the same for as long as it is given."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.resident import Twice, corpus_lines
from fuzz.strategies import grammar_lines, hostile_lines, near_misses

CORPUS_SAMPLE = 20  # lines of the corpora, spread over them
GENERATED = 20  # hypothesis examples


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Twice]:
    found = Twice(tmp_path_factory.mktemp("agrees"))
    found.ready()
    yield found
    found.close()


def _sample() -> list[str]:
    lines = corpus_lines()
    return lines[:: max(1, len(lines) // CORPUS_SAMPLE)][:CORPUS_SAMPLE]


@pytest.mark.skipif(not _sample(), reason="no shared conformance corpus beside the checkout")
def test_the_corpora_lines_are_answered_alike_through_the_server_and_in_process(twice: Twice) -> None:
    assert [found for line in _sample() if (found := twice.differs(line))] == []


@settings(max_examples=GENERATED, deadline=None, suppress_health_check=list(HealthCheck))
@given(line=st.one_of(grammar_lines(), hostile_lines(), near_misses()))
def test_generated_lines_are_answered_alike_through_the_server_and_in_process(
    twice: Twice, line: str
) -> None:
    assert twice.differs(line) is None

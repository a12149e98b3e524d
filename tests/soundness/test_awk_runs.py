"""awk by execution: the report's line in each of its places, run as typed in the fixture, does harm
the oracle sees (a file made, a program started, `.env` printed); decided by the real gate and run
as bastion or Claude Code would, it does none. Allowed awk programs with divisions (fuzz/awkstages.py)
run under strace and do nothing but read and print. The long run is fuzz/readonly.py, whose attack
lines draw these stages too (docs/soundness.md)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.policy import Decision
from fuzz.awkstages import awk_stage
from fuzz.execution import ReadOnlyRunner
from fuzz.fixtures import scratch_env

HAZARDS = (
    'system("touch PWNED")',
    'print "x" > "out"',
    'getline l < ".env"; print l',
    '"cat .env" | getline l; print l',
    'print | "sh"',
)
PLACES = (
    "awk '{{ print x / 1; {} ; y = 1 / 2 }}' main.go",
    "awk 'BEGIN {{ print x / 1; {} ; y = 1 / 2 }}' main.go",
    "awk 'NR / 1 {{ {} }} NR / 2 {{ print }}' main.go",
    "cat main.go | awk '{{ print x / 1; {} ; y = 1 / 2 }}'",
)
ATTACKS = [place.format(hazard) for place in PLACES for hazard in HAZARDS]
DIVIDING = [
    "awk '{ print $1 / 2 }' main.go",
    "awk '{ n++; gsub(/a/, \"b\"); s += length($0) / 2 } END { print s / n }' main.go README.md",
    "cat main.go | awk 'NF / 2 >= 1 { print NR / 1, $NF }'",
    "awk '/package/ { print x / 1; y = 1 / 2 }' main.go",
]


@pytest.fixture(scope="module")
def awks(tmp_path_factory: pytest.TempPathFactory) -> ReadOnlyRunner:
    return ReadOnlyRunner(tmp_path_factory.mktemp("awk"), hostile=())


@pytest.mark.parametrize("line", ATTACKS)
def test_the_reported_line_does_harm_the_oracle_sees_when_run_ungated(
    awks: ReadOnlyRunner, line: str
) -> None:
    ws = awks._ws(None)
    env = scratch_env(awks.work / "home", awks.work / "tmp", None)
    problems = awks._run(ws, line, env, {"awk", "cat"}, line)
    awks.scratch.pop(None, None)
    assert problems, line


@pytest.mark.parametrize("agent", ["bastion", "claude"])
@pytest.mark.parametrize("line", ATTACKS)
def test_the_reported_line_decided_by_the_gate_does_no_harm(
    awks: ReadOnlyRunner, line: str, agent: str
) -> None:
    outcome = awks.check(line, None, agent)
    assert outcome.problems == [] and outcome.decision is not Decision.ALLOW, outcome


@pytest.mark.parametrize("line", DIVIDING)
def test_an_awk_program_with_divisions_runs_unasked_and_only_reads(awks: ReadOnlyRunner, line: str) -> None:
    outcome = awks.check(line, None, "bastion")
    assert outcome.decision is Decision.ALLOW and outcome.ran is not None, outcome
    assert outcome.problems == [], outcome


@settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), agent=st.sampled_from(["bastion", "claude"]))
def test_an_allowed_generated_awk_stage_does_no_harm(
    awks: ReadOnlyRunner, data: st.DataObject, agent: str
) -> None:
    line = awk_stage(lambda options: data.draw(st.sampled_from(list(options))))
    outcome = awks.check(line, None, agent)
    assert outcome.problems == [] or outcome.decision is not Decision.ALLOW, outcome

"""Issue 30 class 7: the plan bastion's Codex and Gemini CLI hooks hand over, run as that CLI runs it,
gets a hostile repository nothing.

Each attack of tests/soundness/test_hostile.py that Claude Code runs after bastion's hook is run
here as Codex 0.171 and Gemini CLI 0.61 run the command their hook answer names (fuzz/hook_runs.py:
Codex with `bash -lc` and its exec overlay, Gemini in its shopt guard and PID subshell with its
environment) by the execution oracle of property 2: strace sees no write, no secret read and no
program but the plan's, the tree and the output are checked. Run as typed by the same CLI, the
same attacks do harm the oracle sees, so a pass is a plan, not a fixture without teeth.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.policy import Decision
from fuzz.execution import Fixture, ReadOnlyRunner
from fuzz.fixtures import scratch_env
from fuzz.hook_runs import as_the_cli_runs, cli_env
from fuzz.hostile import VARIANTS
from fuzz.strategies import hostile_lines
from tests.soundness.test_hostile import ATTACKS

AGENTS = ("codex", "gemini")
# Every attack Claude Code runs after the hook, and the everyday reads the hand-over exists for.
HANDED: tuple[tuple[Fixture, str], ...] = (
    *(
        (fixture, line)
        for attacks in ATTACKS.values()
        for fixture, agent, line in attacks
        if agent == "claude"
    ),
    (None, "git log --oneline -3"),
    (0, "git status --short"),  # core.fsmonitor runs a program when git status runs as typed
    (1, "git log -p"),  # core.pager
    (3, "git diff HEAD~1"),  # diff.external
    (4, "git show"),  # a textconv driver
    ("path-inside", "cat main.go"),
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> ReadOnlyRunner:
    return ReadOnlyRunner(tmp_path_factory.mktemp("handed"), hostile=())


@pytest.mark.parametrize("agent", AGENTS)
def test_a_plan_the_hook_hands_over_gets_a_hostile_repository_nothing(
    hostile: ReadOnlyRunner, agent: str
) -> None:
    failed, ran = [], 0
    for fixture, line in HANDED:
        outcome = hostile.check(line, fixture, agent)
        ran += outcome.ran == "hook"
        if outcome.problems:
            failed.append((fixture, line, outcome.problems[:2]))
    assert failed == []
    assert ran >= 6, f"only {ran} lines were allowed and run as {agent}: the hand-over was not exercised"


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(("fixture", "line"), [(0, "git status --short"), (4, "git log -p")])
def test_the_same_line_run_as_typed_by_the_cli_does_harm_the_oracle_sees(
    hostile: ReadOnlyRunner, agent: str, fixture: Fixture, line: str
) -> None:
    ws = hostile._ws(fixture)
    variant = VARIANTS.get(fixture) if isinstance(fixture, str) else None
    path = variant.path(ws) if variant is not None and variant.path is not None else None
    env = cli_env(agent, scratch_env(hostile.work / "home", hostile.work / "tmp", path))
    argv = as_the_cli_runs(agent, line)
    problems = hostile._run(ws, argv[-1], env, {"git"}, line, shell=tuple(argv[:-1]))
    hostile.scratch.pop(fixture, None)
    assert problems, f"{line!r} run as typed by {agent} in fixture {fixture} did no harm the oracle sees"


_FIXTURES = (None, 0, 3, "link:packed-refs", "embedded", "secret-directories", "path-inside", "ref:tags")


@settings(
    max_examples=24,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(hostile_lines(), st.sampled_from(_FIXTURES), st.sampled_from(AGENTS))
def test_an_attack_line_the_hook_allows_runs_clean_as_the_cli_runs_it(
    hostile: ReadOnlyRunner, line: str, fixture: Fixture, agent: str
) -> None:
    outcome = hostile.check(line, fixture, agent)
    assert outcome.problems == [] or outcome.decision is not Decision.ALLOW, outcome

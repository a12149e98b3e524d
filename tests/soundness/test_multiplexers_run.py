"""A PATH whose first entry holds real multiplexers under the tools' names (fuzz/multiplexers.py:
ccache's masquerade directory, mise's shims, links to mise) gets no program started out of an
allowed line: the line asks, or runs the tool itself, as bastion and as Claude Code after bastion's
hook. Run ungated, the same lines do harm the oracle sees (ccache writes its cache in HOME, mise
runs the workspace's `evil/bin/<name>`), so a passing case is a refusal, not a fixture without teeth.
"""

from __future__ import annotations

import pytest

from bastion.policy import Decision
from fuzz.execution import ReadOnlyRunner
from fuzz.fixtures import scratch_env
from fuzz.hostile import VARIANTS
from fuzz.multiplexers import missing

# (variant, what it needs, lines that go through a multiplexer, lines that do not)
CASES = (
    ("shims-ccache", "ccache", ("gcc --version",), ("cat main.go", "ls -la")),
    (
        "shims-mise",
        "mise",
        ("node --version", "python3 --version", "cat main.go", "git status", "which cat"),
        (),
    ),
    ("shims-linked", "mise", ("ls -la", "head -n 1 README.md", "tree -L 1"), ("gcc --version",)),
)


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> ReadOnlyRunner:
    return ReadOnlyRunner(tmp_path_factory.mktemp("multiplexers"), hostile=())


def _cases() -> list[object]:
    return [
        pytest.param(
            *case, id=case[0], marks=pytest.mark.skipif(bool(missing(case[1])), reason=missing(case[1]))
        )
        for case in CASES
    ]


@pytest.mark.parametrize(("variant", "needs", "through", "beside"), _cases())
@pytest.mark.parametrize("agent", ["bastion", "claude"])
def test_a_line_through_a_multiplexer_asks_and_a_line_beside_it_runs_the_tool_alone(
    runner: ReadOnlyRunner,
    variant: str,
    needs: str,
    through: tuple[str, ...],
    beside: tuple[str, ...],
    agent: str,
) -> None:
    for line in through:
        outcome = runner.check(line, variant, agent)
        assert outcome.decision is not Decision.ALLOW, (line, outcome)
    for line in beside:
        outcome = runner.check(line, variant, agent)
        assert outcome.decision is Decision.ALLOW and outcome.problems == [], (line, outcome)


@pytest.mark.parametrize(("variant", "needs", "through", "beside"), _cases())
def test_each_line_through_a_multiplexer_does_harm_the_oracle_sees_when_run_ungated(
    runner: ReadOnlyRunner, variant: str, needs: str, through: tuple[str, ...], beside: tuple[str, ...]
) -> None:
    for line in through:
        ws = runner._ws(variant)
        shell = VARIANTS[variant].path
        assert shell is not None
        env = scratch_env(runner.work / "home", runner.work / "tmp", shell(ws))
        problems = runner._run(ws, line, env, {line.split()[0]}, line)
        runner.scratch.pop(variant, None)
        assert problems, f"{line!r} through {variant} did no harm the oracle sees"

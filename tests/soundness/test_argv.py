"""Property 1: the words bash passes to every stage equal the words the parser produced."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz.oracle
from fuzz.oracle import ArgvOracle, bash_glob
from fuzz.strategies import grammar_lines

_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@_SETTINGS
@given(st.lists(grammar_lines("mixed", stop=65), min_size=1, max_size=8))
def test_bash_passes_every_stage_the_words_the_parser_produced(oracle: ArgvOracle, lines: list[str]) -> None:
    mismatches = [m for m in oracle.check(lines) if not ("=" in m.line and "~" in m.line)]
    assert mismatches == []


@_SETTINGS
@given(st.lists(grammar_lines("pool", stop=75), min_size=1, max_size=8))
def test_realistic_lines_run_as_typed_give_bash_the_parsed_words(
    oracle: ArgvOracle, lines: list[str]
) -> None:
    mismatches = [m for m in oracle.check(lines) if not ("=" in m.line and "~" in m.line)]
    assert mismatches == []


def test_the_oracle_sees_a_disagreement_when_the_expected_words_are_wrong(oracle: ArgvOracle) -> None:
    original = oracle.expected
    try:
        oracle.expected = lambda stage: [*original(stage), "extra"]  # type: ignore[method-assign]
        assert [m.how for m in oracle.check(["cat main.go"])] == ["rendered", "raw"]
    finally:
        oracle.expected = original  # type: ignore[method-assign]


def test_exec_recorders_agree_with_function_recorders(
    oracle: ArgvOracle, tmp_path_factory: pytest.TempPathFactory
) -> None:
    execs = ArgvOracle(tmp_path_factory.mktemp("exec"), oracle.ws, exec_recorders=True)
    lines = [
        "ls -la s*/*.go 2>&1 | grep -c x && cat 'a b.txt' \"x\"y",
        "git log --format=%h HEAD~1 >/dev/null",
    ]
    assert execs.check(lines) == [] and oracle.check(lines) == []


def test_glob_expansion_matches_bash_for_ls(oracle: ArgvOracle) -> None:
    assert bash_glob(oracle.ws, "s*/*.go") == ["sub dir/x.go", "sub/a.go"]
    assert bash_glob(oracle.ws, "nomatch*") == ["nomatch*"]
    assert oracle.check(["ls *", "ls */", "ls ?ain.go sub//*", "ls .*"]) == []


def test_a_stage_after_or_runs_and_is_recorded(oracle: ArgvOracle, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ["cat main.go || ls -la; grep x main.go\n# c\nls ! # d", "ls | cat || cat main.go && ls"]
    assert oracle.check(lines) == []
    # Recorders that all succeed never run what follows `||`: the oracle must then see the gap.
    monkeypatch.setattr(fuzz.oracle, "statuses", lambda plan: [0] * len(plan.stages))
    assert {m.how for m in oracle.check(lines)} == {"rendered", "raw"}

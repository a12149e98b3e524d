"""Findings of the soundness runs, each kept as a regression test once fixed."""

from __future__ import annotations

from pathlib import Path

from bastion.grammar import Outside, parse
from fuzz.execution import ReadOnlyRunner
from fuzz.fixtures import build, copy
from fuzz.oracle import ArgvOracle


def test_a_tilde_after_an_assignment_like_word_is_outside_or_literal(oracle: ArgvOracle) -> None:
    expanded = ["cat x=~/y", "echo a=b:~", "echo x+=~"]
    assert all(isinstance(parse(line), Outside) for line in expanded)
    assert oracle.check(["cat x=''~/y", "echo a=b:''~", "git log HEAD~1"]) == []


def test_git_status_never_runs_a_program_from_an_embedded_repository(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    runner = ReadOnlyRunner(tmp_path / "r", hostile=())
    template = build(tmp_path / "embed", None, embed=True)
    runner.templates[None] = template
    runner.scratch[None] = copy(template, tmp_path / "scratch")
    outcome = runner.check("git status", None)
    assert outcome.ran == "rendered" and outcome.problems == []

"""Plans as tests compare them: every program by its command's name, and PATHs that hold a program.

A plan runs each program by the absolute path found on PATH (bastion/analyzer/programs/_programs.py), which
differs from machine to machine (`/usr/bin/cat`, `/bin/cat`). `by_name` checks that every stage that
runs a program names an absolute one of the command's name, and gives the plan with the command's
name in its place: the one spelling the tests write down.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bastion.analyzer import Analysis
from bastion.grammar import Word, render_word

__all__ = ["by_name", "fake_program", "needs"]


def by_name(analysis: Analysis) -> str | None:
    """The rendered plan with each program written as its command's name (None: no plan)."""
    text = analysis.rendered
    if text is None:
        return None
    for r in analysis.stages:
        program = r.check.program
        if not program:
            continue
        assert os.path.isabs(program) and os.path.basename(program) == r.stage.command, program
        assert program in analysis.programs, (program, analysis.programs)
        shown = render_word(Word(program))
        assert shown in text, (shown, text)
        text = text.replace(shown, render_word(Word(r.stage.command)), 1)
    return text


def fake_program(directory: Path, name: str, like: str = "true") -> Path:
    """An ELF program called `name` in `directory` (a copy of `like`, /usr/bin/true by default), for
    a command this machine may not have (go): what a plan may run."""
    directory.mkdir(parents=True, exist_ok=True)
    source = shutil.which(like, path="/usr/bin:/bin")
    assert source is not None, like
    target = directory / name
    shutil.copy(source, target)
    target.chmod(0o755)
    return target


def needs(program: str) -> pytest.MarkDecorator:
    """Skips a test that runs `program` for real on a machine that has none (tree is not on every
    machine); a test of the decision alone puts a fake_program on PATH instead."""
    return pytest.mark.skipif(shutil.which(program) is None, reason=f"{program} is not installed")

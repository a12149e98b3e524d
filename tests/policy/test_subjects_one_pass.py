"""A bash call's subjects are derived in one pass (design rule 100): from the gate, the cut, the
wrappers and the subjects are each entered once, and the subjects never call back into the other
two, so what a line runs is found before any subject is made of it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from bastion.policy import Gate, Policy, Settings
from bastion.workspace import LocalWorkspace

PASS = {"_cut.py", "_wrappers.py", "_subjects.py"}


def _moves(gate: Gate, line: str) -> list[tuple[str, str]]:
    """(from, to) of every move of the running code between the gate and the pass's modules."""
    seen: list[tuple[str, str]] = []
    where = ["_gate.py"]

    def module(frame: FrameType | None) -> str:
        while frame is not None:
            name = os.path.basename(frame.f_code.co_filename)
            if name in PASS or name == "_gate.py":
                return name
            frame = frame.f_back
        return ""

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event in ("call", "return"):
            now = module(frame if event == "call" else frame.f_back)
            if now != where[0]:
                seen.append((where[0], now))
                where[0] = now
        return tracer

    sys.settrace(tracer)
    try:
        gate.decide("bash", {"command": line})
    finally:
        sys.settrace(None)
    return seen


@pytest.mark.parametrize(
    "line",
    [
        "git status && ls",
        "timeout 5 bash -c 'rm -rf x > out; cd d && echo $(cat y) > z' | tee f",
        "sudo env A=1 xargs sh -c 'cat a > b' < list",
        "cat a | nice find . -exec rm {} + > log",
    ],
)
def test_the_subjects_module_is_entered_once_and_never_calls_back(tmp_path: Path, line: str) -> None:
    ws = LocalWorkspace(str(tmp_path))
    moves = _moves(Gate(Settings(Policy()), ws), line)
    into_subjects = [m for m in moves if m[1] == "_subjects.py"]
    assert into_subjects == [("_gate.py", "_subjects.py")], moves
    assert not [m for m in moves if m[0] == "_subjects.py" and m[1] in PASS], moves
    entered = [to for start, to in moves if start == "_gate.py" and to in PASS]
    assert len(entered) == len(set(entered)), moves

"""A bash call's subjects are derived in one pass (design rule 100): from the gate, the cut, the
wrappers and the subjects are each entered once, and the subjects never call back into the other
two, so what a line runs is found before any subject is made of it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.waits import run_bounded

PASS = {"_cut.py", "_wrappers.py", "_subjects.py"}

# The trace runs in a fresh interpreter: sys.settrace in the suite's own process, beside threads
# other tests left waking it, can make CPython 3.11 spin at a traced call's first line.
_TRACE = r"""
import json, os, sys
from bastion.policy import Gate, Policy, Settings
from bastion.workspace import LocalWorkspace

PASS = {"_cut.py", "_wrappers.py", "_subjects.py", "_gate.py"}
where, line = sys.argv[1:3]
Gate(Settings(Policy()), LocalWorkspace(where)).decide("bash", {"command": line})  # caches warm
gate = Gate(Settings(Policy()), LocalWorkspace(where))
seen, now = [], ["_gate.py"]

def module(frame):
    while frame is not None:
        name = os.path.basename(frame.f_code.co_filename)
        if name in PASS:
            return name
        frame = frame.f_back
    return ""

def tracer(frame, event, arg):
    if event in ("call", "return"):
        at = module(frame if event == "call" else frame.f_back)
        if at != now[0]:
            seen.append((now[0], at))
            now[0] = at
    return tracer

sys.settrace(tracer)
try:
    gate.decide("bash", {"command": line})
finally:
    sys.settrace(None)
print(json.dumps(seen))
"""


def _moves(where: Path, line: str) -> list[tuple[str, str]]:
    """(from, to) of every move of the running code between the gate and the pass's modules."""
    done = run_bounded(
        [sys.executable, "-c", f"import sys; sys.path[:] = {sys.path!r}\n{_TRACE}", str(where), line],
        "the traced decision", capture_output=True, text=True, check=True,
    )  # fmt: skip
    return [(a, b) for a, b in json.loads(done.stdout)]


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
    moves = _moves(tmp_path, line)
    into_subjects = [m for m in moves if m[1] == "_subjects.py"]
    assert into_subjects == [("_gate.py", "_subjects.py")], moves
    assert not [m for m in moves if m[0] == "_subjects.py" and m[1] in PASS], moves
    entered = [to for start, to in moves if start == "_gate.py" and to in PASS]
    assert len(entered) == len(set(entered)), moves

"""How often the gate's derivation of a bash call's subjects goes back and forth between the modules
of the pass (policy/_cut.py, _wrappers.py, _subjects.py), and under how many names.

An entry is a move of the running code into one of the three modules from another (the gate, or
one of the other two), by a call or by the return to it; "from the gate" counts the calls the gate
makes into each. The names are the distinct parameter and local names of the pass's functions that
ran, and per datum handed between them (a cut, a part, the words...), the parameter names it is
handed under. Each line is decided once with the pass's memos cleared, in an empty workspace,
without a stamper (a dry run). Run from a checkout: `python benchmarks/passes.py` (`-v`: the names).
"""

from __future__ import annotations

import collections
import importlib
import json
import os
import sys
import tempfile
from types import FrameType
from typing import Any

from bastion.policy import Gate, load_settings
from bastion.workspace import LocalWorkspace

PASS = ("_subjects.py", "_cut.py", "_wrappers.py")
GATE = "_gate.py"
DATA = ("Analysis", "Cut", "Part", "Target", "Runs", "Handed", "StageResult", "LocalWorkspace")
LINES = (
    "ls *.md",
    "git status && ls",
    "timeout 5 bash -c 'rm -rf x > out; cd d && echo $(cat y) > z' | tee f",
    "sudo env A=1 xargs sh -c 'cat a > b' < list",
    'for f in *; do echo "$f" > /tmp/x; done',
    "cat a | nice find . -exec rm {} + > log",
)


def _datum(value: object) -> str | None:
    name = type(value).__name__
    if name in DATA:
        return name
    if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        return "words"
    if isinstance(value, str) and (value in LINES or " " in value):
        return "line"
    return None


def _module(frame: FrameType | None) -> str:
    """The pass's module (or the gate) the frame runs in, or is called from."""
    while frame is not None:
        name = os.path.basename(frame.f_code.co_filename)
        if name in PASS or name == GATE:
            return name
        frame = frame.f_back
    return ""


class Tracer:
    def __init__(self) -> None:
        self.entries: collections.Counter[str] = collections.Counter()
        self.from_gate: collections.Counter[str] = collections.Counter()
        self.names: set[str] = set()
        self.carried: collections.defaultdict[str, set[str]] = collections.defaultdict(set)
        self.where = GATE

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if event == "call":
            code = frame.f_code
            if os.path.basename(code.co_filename) in PASS and not code.co_name.startswith("<"):
                self.names.update(code.co_varnames)
                for param in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
                    datum = _datum(frame.f_locals.get(param))
                    if datum is not None:
                        self.carried[datum].add(param)
            now = _module(frame)
        elif event == "return":
            now = _module(frame.f_back)
        else:
            return self
        if now != self.where:
            if now in PASS:
                self.entries[now] += 1
                if self.where == GATE and event == "call":
                    self.from_gate[now] += 1
            self.where = now
        return self


def main() -> None:
    root = tempfile.mkdtemp()
    os.environ["XDG_CONFIG_HOME"] = root  # no user config
    ws = LocalWorkspace(root)
    gate = Gate(load_settings(ws), ws)
    print("bastion from", os.path.dirname(importlib.import_module("bastion").__file__ or ""))
    total, from_gate = Tracer(), collections.Counter[str]()
    worst = 0
    for line in LINES:
        for name in ("_subjects", "_cut", "_wrappers"):
            for value in vars(importlib.import_module(f"bastion.policy.{name}")).values():
                if hasattr(value, "cache_clear"):
                    value.cache_clear()
        tracer = Tracer()
        sys.settrace(tracer)
        gate.decide("bash", {"command": line})
        sys.settrace(None)
        total.entries += tracer.entries
        from_gate += tracer.from_gate
        total.names |= tracer.names
        for datum, names in tracer.carried.items():
            total.carried[datum] |= names
        worst = max(worst, tracer.entries["_subjects.py"])
        print(json.dumps(dict(sorted(tracer.entries.items()))), line)
    print("entries, all lines:", dict(sorted(total.entries.items())))
    print("calls from the gate, all lines:", dict(sorted(from_gate.items())))
    print("most entries into _subjects.py for one line:", worst)
    print("distinct names (parameters and locals) of the pass's functions:", len(total.names))
    handed = {k: sorted(v) for k, v in sorted(total.carried.items())}
    print("data handed between functions:", len(handed), "under", sum(map(len, handed.values())), "names")
    if "-v" in sys.argv:
        print("names per datum:", handed)
        print("names:", sorted(total.names))


if __name__ == "__main__":
    main()

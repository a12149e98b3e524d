"""How the time to decide one line grows with its length: it must grow linearly.

    .venv/bin/python benchmarks/scaling.py [--rounds N]

Decides lines of 1k, 2k, 4k, 8k and 16k words of several shapes (one command with many file words,
many `&&` stages, many pipes, many quoted words, one long word, lines outside the subset that are
cut) through the same gate `bastion check` uses, each the first time it is seen (every memo cleared),
and prints the best of N rounds per length with the ratio to the length before: linear is about 2x
per doubling, quadratic 4x. The last row is a line over the size bound, which asks at once.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from decide import forget  # the memos a first-time decision must not find (this script's directory)

from bastion.grammar import MAX_LINE_WORDS
from bastion.policy import Gate, load_settings
from bastion.workspace import LocalWorkspace

SIZES = (1000, 2000, 4000, 8000, 16000)
# Each line has n words as the size bound counts them (bastion.grammar.MAX_LINE_WORDS: runs of
# characters, and each operator, quote or `$` character on its own).
SHAPES: dict[str, Callable[[int], str]] = {
    "cat many files": lambda n: "cat " + " ".join(f"f{i}" for i in range(n - 1)),
    "ls many files": lambda n: "ls -l " + " ".join(f"f{i}" for i in range(n - 2)),
    "&& stages": lambda n: " && ".join(["ls"] * (n // 3)),
    "| stages": lambda n: "cat f0 | " + " | ".join(["sort"] * (n // 2 - 1)),
    "quoted words": lambda n: "grep -e x " + " ".join(f"'{i % 99}' \"{i % 99}\"" for i in range(n // 6)),
    "one long word": lambda n: "echo " + "a" * (6 * n),
    "outside, cut": lambda n: "echo " + " ".join(f"w{i}" for i in range(n - 3)) + " ; ls",
    "; commands, cut": lambda n: "ls;" * (n // 2),
}


def best(gate: Gate, line: str, rounds: int) -> float:
    """The best time of `rounds` first-time decisions of the line, in milliseconds."""
    times = []
    for _ in range(rounds):
        forget()
        start = time.perf_counter()
        gate.decide("bash", {"command": line})
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bastion-scaling-") as tmp:
        root = Path(tmp)
        (root / "f0").write_text("x\n")
        ws = LocalWorkspace(str(root))
        gate = Gate(load_settings(ws, os.devnull), ws)
        gate.decide("bash", {"command": "ls"})  # the parser is built before any clock starts
        print(f"best of {a.rounds}; ms per line, and the ratio to the line half as long")
        print(f"{'words':>16} " + " ".join(f"{n:>14}" for n in SIZES))
        for name, shape in SHAPES.items():
            cells, before = [], 0.0
            for n in SIZES:
                took = best(gate, shape(n), a.rounds)
                cells.append(f"{took:8.1f}" + (f" {took / before:4.1f}x" if before else "      "))
                before = took
            print(f"{name:>16} " + " ".join(f"{c:>14}" for c in cells))
        over = "cat " + " ".join(f"f{i}" for i in range(MAX_LINE_WORDS + 1))
        print(f"over the bound ({MAX_LINE_WORDS + 2} words): {best(gate, over, a.rounds):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Whole awk stages for the execution property's attack lines (strategies.hostile_stage): programs
of fuzz/awkgen.py (divisions after every kind of operand, regular expressions, strings with slashes
and escapes, hazards in plain sight and hidden between two slashes) and the report's line in each
of its places, run first on a fixture's file or after a pipe. A hazard's canary is the fixture's
`.env` and $HOME, so an allowed line that runs one is seen by the oracle (fuzz/execution.py): a
file made (`touch`, `>`), a program started (system, `|`), a secret read or printed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .awkgen import attack, program

__all__ = ["awk_stage"]

FILES = ("main.go", "README.md", "sub/a.go", "notes.txt", ".env")


class _ChoicePick:
    """awkgen's Pick over a choice of strings (random's or hypothesis's)."""

    def __init__(self, choice: Callable[[Sequence[str]], str]) -> None:
        self.choice = choice

    def below(self, n: int) -> int:
        return int(self.choice([str(i) for i in range(n)]))


def awk_stage(choice: Callable[[Sequence[str]], str]) -> str:
    """`awk 'PROGRAM' FILE` or `cat FILE | awk 'PROGRAM'`, half the programs the report's line."""
    pick = _ChoicePick(choice)
    if choice(("attack", "program")) == "attack":
        text = attack(pick)
    else:
        text = program(pick, int(choice(("0", "3", "10"))))
    text = text.replace("canary.txt", ".env").replace('"AWK_CANARY"', '"HOME"')
    quoted = "'" + text.replace("'", "'\\''") + "'"
    file = choice(FILES)
    return f"awk {quoted} {file}" if choice(("first", "pipe")) == "first" else f"cat {file} | awk {quoted}"

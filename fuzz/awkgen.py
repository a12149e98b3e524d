"""Generated awk programs for the differential property of bastion's awk grammar: awk's own
language, wider than bastion's (so the near misses are generated too), with every token class and
the places where awks lex differently.

* divisions after every kind of operand (a name, a number, a string, `)`, `]`, `$1`, `$x`, NF, a
  postfix ++, `length` without parentheses, a regular expression, the `)` of an if);
* regular expressions after every operator, with brackets holding `/`, `]` first, `\\]`, classes,
  `\\/`, `=` first, characters beyond ASCII before `\\` or `]`;
* strings holding slashes, escapes, `#`, quotes; numbers as awks read them differently (`0x1A`,
  `011`, `1e`, `1.`, `.5`, `1.5.3`); names that are keywords, built-ins, special arrays or their
  prefixes (`printx`, `getlinex`, `info`); comments, continuations, \\r \\f \\v, newlines anywhere;
* hazards in plain sight (system, getline, redirects, ENVIRON, ARGV, printf, `/=`) and hidden
  between two slashes or inside strings, where only a misreading runs them: each makes a file
  (`touch`, `>`) or reads a canary (`canary.txt`, $AWK_CANARY), which fuzz/awk_readers.py's busybox
  probe sees.

`program(pick)` draws through a `Pick`: `RandomPick` (fuzz/awk_differential.py's long runs) or
`DataPick` (hypothesis in tests/analyzer/commands/test_awk_differential.py; the first choice of each draw is
the simplest, so a failure shrinks towards a short program).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

from hypothesis import strategies as st

__all__ = ["DataPick", "Pick", "RandomPick", "attack", "program"]

T = TypeVar("T")


class Pick(Protocol):
    def below(self, n: int) -> int:
        """A number in 0..n-1."""


class RandomPick:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def below(self, n: int) -> int:
        return self.rng.randrange(n)


class DataPick:
    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def below(self, n: int) -> int:
        return self.data.draw(st.integers(0, n - 1))


# Each makes a file or reads a canary, so that busybox's run shows it.
HAZARDS = (
    'system("touch sys")', 'print "x" > "out"', 'print "x" >> "app"', 'print "x" | "sh"',
    'getline l < "canary.txt"; print l', '"cat canary.txt" | getline c; print c',
    'print ENVIRON["AWK_CANARY"]', 'ARGV[1] = "canary.txt"', 'printf "%s\\n", ENVIRON["AWK_CANARY"]',
    'close("x"); system("touch cl")', 'while ((getline l < "canary.txt") > 0) print l', 'print > "file"',
)  # fmt: skip
# Each pool: the forms bastion's grammar may accept, then those where awks read differently.
NUMBERS = (
    (
        "1", "2", "0", "10", "3.5", ".5", "1e5", "1E-2", "1.", "2.e1",
    ),
    (
        "0x1A", "011", "1e", "1.5.3", "1e+", "00",
    ),
)  # fmt: skip
STRINGS = (
    (
        '"a"', '""', '"/"', '"a/b"', '"\\""', '"\\\\"', '"\\/"', '"#"', '"x\\ty"', '"/ 1 /"', '"é"', '"%d"',
        '"\\052"', '"; system(\\"touch st\\"); "', '"/ 1; system(\\"touch st\\"); y = 1 /"', '"a\tb"',
    ),
    (
        '"é\\n"', '"a\\\nb"', '"a\rb"', '"unterminated',
    ),
)  # fmt: skip
REGEXES = (
    (
        "/a/", "/^#/", "/a\\/b/", "/[[:alpha:]]/", "/\\//", "/a|b/", "/é/", "/#/", '/"/', "/[a-z]+/", "//",
        "/[x[:digit:]]+$/", '/ 1; system("touch re"); y = 1 /', '/;print > "out";/', "/[^^]/", "/a\tb/",
        "/ /", "/[.]/", "/\\]/", "/[^a-z]/",
    ),
    (
        '/[/]/', '/[]/]/', '/[^]/]/', '/[\\]]/', '/[[:a/', '/x]/', '/=/',
        '/é\\\\/', '/é]/', '/\\\n/', '/[\\/]/', '/[[.a.]]/', '/a\rb/',
    ),
)  # fmt: skip
NAMES = (
    (
        "x", "y", "s", "n", "NR", "NF", "FS", "printx", "getlinex", "print_", "info", "index1", "x1", "_",
        "RS",
    ),
    (
        "func", "BEGINFILE", "ENVIRON", "ARGV", "ARGC", "PROCINFO", "SYMTAB", "system", "getline", "in",
        "systime", "gensub", "é",
    ),
)  # fmt: skip
FIELDS = (("$1", "$0", "$NF", "$x", "$(NF-1)", "$ 1", "$$0", "$i++"), ("$-1", "$++i", "$/a/", "$"))
CALLS = (
    (
        "length($0)", "length()", "substr($0, 2)", 'index(s, "/")', "split($0, a, /,/)", "tolower($1)",
        "toupper(x)", "int(x / 2)", "sqrt(4)", "match($0, /a+/)", "rand()", "srand(1)", "atan2(1, 2)",
        "exp(1)", "log(2)", "sin(x)", "cos(x)", "substr (x, 1)", 'sub(/a/, "b")', 'gsub("/", "\\\\/", s)',
    ),
    (
        'sprintf("%d", 1)', "f(x)", "x(1)", 'system("touch sc")', "close(x)", "fflush()", "getline",
        "getline x", '"cat canary.txt" | getline', "x ? y : z", "(x in a)", "length x",
    ),
)  # fmt: skip
# The operands after which awks lex `/` differently or alike (the line around each).
OPERANDS = (
    "x", "1", '"s"', "(x)", "a[1]", "$1", "$x", "NF", "x++", "length", "/r/", "x--", "length(x)", "$NF",
    "if (x)",
)  # fmt: skip
BLANKS = (" ", "", "  ", "\t", " # c\n", "\n", "\\\n", "\r", "\f", "\v")
OPERATORS = (
    (
        " + ", " - ", " * ", " % ", " ^ ", "-", "+", "*", "%",
    ),
    (
        " /= ", " in ", " ** ", " | ", " >> ", " ? ", " & ", "==", " < ", " > ", " ~ ", " && ",
    ),
)  # fmt: skip


class _Gen:
    """Draws through `pick`; `wild` percent of the draws are near misses (the second part of a pool)."""

    def __init__(self, pick: Pick, wild: int) -> None:
        self.pick = pick
        self.wild = wild

    def one(self, options: Sequence[T]) -> T:
        return options[self.pick.below(len(options))]

    def maybe(self, percent: int) -> bool:
        return self.pick.below(100) < percent

    def pool(self, pool: tuple[tuple[str, ...], tuple[str, ...]]) -> str:
        return self.one(pool[1] if self.maybe(self.wild) else pool[0])

    def blank(self) -> str:
        return self.one(BLANKS[2:]) if self.maybe(self.wild) else self.one(BLANKS[:2])

    def attack(self) -> str:
        """The issue's line, with its operand, hazard and place drawn: code between two slashes."""
        operand, hazard = self.one(OPERANDS), self.one(HAZARDS)
        head = f"{operand} / 1" if operand.startswith("if") else f"print {operand} / 1"
        body = f"{head}; {hazard}; y = 1 / 2"
        return self.one(
            (
                "{ " + body + " }",
                "BEGIN { " + body + " }",
                f"{operand} / 1 {{ {hazard}; y = 1 / 2 }}",
                f"$1 ~ {operand} / 2; {hazard}; z = 1 / 2 {{ print }}",
            )
        )

    def atom(self, depth: int) -> str:
        """An operand; one that may start a concatenated operand unless `lead` (no regular
        expression, unary operator or ++/-- first)."""
        kind = self.pick.below(8 if depth > 0 else 6)
        if kind == 0:
            return self.pool(NAMES)
        if kind == 1:
            return self.pool(NUMBERS)
        if kind == 2:
            return self.pool(STRINGS)
        if kind == 3:
            return self.pool(FIELDS)
        if kind == 4:
            return self.pool(CALLS)
        if kind == 5:
            return self.one(("a[1]", "x++", "n[$1]++", "$2--", "a[x, y]", "NF", "a[$1 $2]"))
        if kind == 6:
            return f"a[{self.cat(depth - 1)}]"
        return "(" + self.expr(depth - 1) + ")"

    def arith(self, depth: int, lead: bool = True) -> str:
        """Arithmetic, a third of its operators divisions (`lead`: it may start with a unary one)."""
        if depth <= 0 or self.maybe(35):
            return self.atom(depth)
        if lead and self.maybe(15):
            return self.one(("-", "!", "+", "- ", "++", "--")) + self.arith(depth - 1)
        op = self.one((" / ", "/", " /", "/ ")) if self.maybe(35) else self.pool(OPERATORS)
        if op.strip() and self.maybe(self.wild):
            op = self.blank() + op.strip() + self.blank()
        right = self.arith(depth - 1) if op.strip() else self.arith(depth - 1, lead=self.maybe(self.wild))
        return self.arith(depth - 1, lead) + op + right

    def cat(self, depth: int) -> str:
        """A concatenation (what a print list holds)."""
        text = self.arith(depth)
        for _ in range(self.pick.below(3) if depth > 0 else 0):
            text += " " + self.arith(depth - 1, lead=self.maybe(self.wild))
        return text

    def expr(self, depth: int) -> str:
        """A condition: comparisons, matches, regular expressions, && and ||."""
        kind = self.pick.below(7 if depth > 0 else 5)
        if kind == 0:
            return self.cat(depth)
        if kind == 1:
            return (
                self.cat(depth - 1)
                + self.one((" < ", " > ", " == ", " != ", " <= ", ">="))
                + self.cat(depth - 1)
            )
        if kind == 2:
            right = self.pool(REGEXES) if self.maybe(60) else self.cat(depth - 1)
            return self.cat(depth - 1) + self.one((" ~ ", " !~ ", "~")) + right
        if kind == 3:
            return self.one(("", "!", "! ")) + self.pool(REGEXES)
        if kind == 4:
            return (
                self.one(("length > ", "length == ")) + self.arith(depth - 1)
                if self.maybe(50)
                else self.atom(0)
            )
        return self.expr(depth - 1) + self.one((" && ", " || ", " &&\n", "||")) + self.expr(depth - 1)

    def statement(self, depth: int) -> str:
        kind = self.pick.below(10 if depth > 0 else 7)
        if kind == 0:
            return "print"
        if kind == 1:
            return "print " + ", ".join(self.cat(2) for _ in range(1 + self.pick.below(3)))
        if kind == 2:
            lvalue = self.one(("x", "y", "a[1]", "$1", "n[$1]", "s", "$x"))
            assign = self.one(("=", "+=", "-=", "*=", "%=", "^=")) if not self.maybe(self.wild) else "/="
            return f"{lvalue} {assign} {self.expr(3)}"
        if kind == 3:
            return (
                self.pool(CALLS) if self.maybe(50) else self.one(("x++", "++n[$1]", "$1--", "next", "exit 1"))
            )
        if kind == 4:
            return "print " + self.cat(3) + " / " + self.arith(2)
        if kind == 5:
            return self.one(HAZARDS) if self.maybe(self.wild) else "print " + self.cat(3)
        if kind == 6:
            return self.attack().strip("{} ") if self.maybe(self.wild + 5) else "x = " + self.expr(3)
        if kind == 7:
            head = f"if ({self.expr(2)})" + self.one((" ", "\n")) + self.statement(depth - 1)
            return head + (f"; else {self.statement(depth - 1)}" if self.maybe(40) else "")
        return self.block(depth - 1)

    def block(self, depth: int) -> str:
        inside = self.statement(depth) if self.maybe(85) else ""
        for _ in range(self.pick.below(4)):
            inside += self.one(("; ", "\n", ";", " ; ", ";\n") if not self.maybe(self.wild) else (" ", ""))
            inside += self.statement(depth)
        return "{" + self.blank() + inside + self.blank() + "}"

    def item(self) -> tuple[str, bool]:
        """An item, and whether it ends with an action."""
        kind = self.pick.below(7)
        if kind == 0:
            return self.block(2), True
        if kind == 1:
            return f"{self.one(('BEGIN', 'END'))} {self.block(2)}", True
        if kind == 2:
            return f"{self.expr(3)} {self.block(2)}", True
        if kind == 3:
            return self.expr(3), False
        if kind == 4:
            return self.expr(2) + "," + self.one((" ", "\n ", "")) + self.expr(2), False
        if kind == 5:
            return self.attack(), True
        return "{ print }", True


def program(pick: Pick, wild: int | None = None) -> str:
    """One awk program of 1 to 3 items; `wild` percent of its draws near misses (drawn: 0 to 40)."""
    gen = _Gen(pick, (0, 3, 10, 40)[pick.below(4)] if wild is None else wild)
    text, action = gen.item()
    for _ in range(pick.below(3)):
        text += gen.one(("\n", " ", ";", "\n\n", " ;\n") if action else ("\n", ";", " "))
        item, action = gen.item()
        text += item
    return text


def attack(pick: Pick) -> str:
    """The issue's line with its operand, hazard and place drawn."""
    return _Gen(pick, 0).attack()

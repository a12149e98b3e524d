"""bastion cuts an awk program into tokens where awk's own lexers do, or the program asks.

The proof is made from the tables the analyzer runs (`bastion/analyzer/awk_program.lark`, LALR over
lark's contextual lexer, where each parser state lexes only the terminals it accepts): for every
state, the set of tokens that can come right before it (a fixpoint over its shifts and over the
reductions that lead to it), and for each state that lexes a regular expression or a division,
that set held to the tokens after which mawk (scan.c's can_precede_div), gawk (awkgram.y: a `/` is a
regexp where its grammar expects an operand) and busybox (next_token's `expected & TC_REGEXP`)
agree. Then every other boundary where awks differ, each a program that must not parse.
"""

from __future__ import annotations

import pytest

# Private: the grammar and its tables are what is proved.
from bastion.analyzer.commands._awk import AWK, program_prints_only
from bastion.grammar._lalr import SHIFT

START = "^"
# Where all three read a regular expression: no token yet, `(`, `,`, `{`, `}`, `;`, a newline, `!`,
# `~`, `!~`, `&&`, `||`, a comparison, an assignment, an arithmetic operator, `[`, print (none of
# them is in mawk's can_precede_div; each is a place where gawk's and busybox's parsers expect an
# operand).
REGEX_AFTER = frozenset(
    {START, "LPAR", "COMMA", "LBRACE", "RBRACE", "SEMI", "NL", "NOT", "MATCH", "AND", "OR", "RELOP", "ASSIGN"}
    | {"PLUS", "MINUS", "STAR", "PERCENT", "SLASH", "CARET", "LSQB", "PRINT"}
)
# Where all three divide: after a number (a field's too: `$1`), a string, a name (a variable, `$x`,
# NF), `)` or `]`. Not after a postfix ++/-- (mawk: a regular expression), `length` (mawk: a
# regular expression), a regular expression (gawk's grammar), `$` (an operand follows).
DIVISION_AFTER = frozenset({"NUMBER", "INDEX", "STRING", "NAME", "RPAR", "RSQB"})


def previous_tokens() -> list[frozenset[str]]:
    """For each state of the tables, every token that can be the last one shifted when the parser
    is in it: a terminal's shift leads to a state after that terminal, and a goto on a rule to a
    state after whatever came last when that rule was reduced."""
    tables = AWK.generated()
    assert tables is not None, "run `python -m bastion.grammar` (make does)"
    states, rules = tables.STATES, tables.RULES
    before: list[set[str]] = [set() for _ in states]
    before[tables.START].add(START)
    reduced: dict[str, set[str]] = {}
    changed = True
    while changed:
        changed = False
        for state, actions in enumerate(states):
            for symbol, (how, argument) in actions.items():
                if how == SHIFT:
                    came = {symbol} if symbol.isupper() else reduced.get(symbol, set())
                    target = before[argument]
                else:
                    came, target = before[state], reduced.setdefault(rules[argument][0], set())
                if not came <= target:
                    target |= came
                    changed = True
    return [frozenset(b) for b in before]


def test_the_proof_sees_every_state_and_what_comes_before_it() -> None:
    before = previous_tokens()
    assert all(before), "a state no token leads to"
    lexing = [b for b, actions in zip(before, AWK.generated().STATES, strict=True) if "REGEX" in actions]
    assert lexing and frozenset().union(*lexing) >= {START, "LPAR", "COMMA", "MATCH", "NOT"}


def test_a_state_that_lexes_a_regular_expression_follows_only_tokens_every_awk_starts_one_after() -> None:
    for state, (before, actions) in enumerate(zip(previous_tokens(), AWK.generated().STATES, strict=True)):
        if "REGEX" in actions:
            assert before <= REGEX_AFTER, (state, sorted(before - REGEX_AFTER))
            assert "SLASH" not in actions, state


def test_a_state_that_lexes_a_division_follows_only_an_operand_every_awk_divides_after() -> None:
    for state, (before, actions) in enumerate(zip(previous_tokens(), AWK.generated().STATES, strict=True)):
        if "SLASH" in actions:
            assert before <= DIVISION_AFTER, (state, sorted(before - DIVISION_AFTER))


@pytest.mark.parametrize(
    "prefix",
    ["{ if (x)", "{ if (x)\n", "{ if (x) print; else if (y)", "BEGIN { if ((x) / 2 > 1)"],
)
def test_after_the_parenthesis_of_an_if_no_slash_is_read_at_all(prefix: str) -> None:
    """The `)` of an if is `)` to mawk (a division follows) and a statement's start to gawk and
    busybox (a regular expression follows): neither may come there."""
    parser = AWK.lark().parse_interactive(prefix)
    parser.exhaust_lexer()
    accepts = parser.accepts()  # type: ignore[no-untyped-call]
    assert "PRINT" in accepts and not accepts & {"SLASH", "REGEX"}, accepts


# --- each boundary where awks read differently: the program must not parse ------------------------

DIFFERENT = [
    ("{ print x++ / 2 / 3 }", "mawk: x++ then the regular expression `/2 /` (a character dropped)"),
    ("{ print x-- / 2 }", "mawk: a regular expression after --"),
    ("{ print length / 2 / 3 }", "mawk: length then `/ 2 /`; gawk and busybox: two divisions"),
    ("length / 2", "the same in a pattern"),
    ("/a/ / 2", "a division after a regular expression"),
    ("{ if (x) /a/ ~ $0 }", "mawk: a division after the `)` of an if"),
    ("{ x /= 2 }", "`/=`: gawk's SLASH_BEFORE_EQUAL, mawk's DIV_ASG"),
    ("/=/", "a regular expression opening with `=`"),
    ("$0 ~ /=x/", "the same after ~"),
    ("{ print x / 2 }; /a/ /b/", "a regular expression right after another"),
    ("{ print 0x1A }", "gawk: 26; mawk: 0 then the name x1A"),
    ("{ print 011 }", "gawk: octal 9; mawk: 11"),
    ("{ print 1e }", "mawk: 1 then the name e"),
    ("{ print 1e+ }", "mawk: 1, e, +"),
    ("{ print 1.5.3 }", "busybox refuses; mawk 1.5 then .3"),
    ("{ print 1x }", "a name glued to a number"),
    ("{ print $1.5 }", "mawk: an invalid field index"),
    ("{ print $ 1e0, $.5 }", "the same"),
    ('{ print "a\\\nb" }', "a continuation inside a string"),
    (
        "{ print x \\\n y }",
        "a continuation between tokens (busybox, gawk and mawk skip it; not always alike)",
    ),
    ("/a\\\nb/", "a continuation inside a regular expression"),
    ("/[/]/", "busybox ends at the `/` inside the brackets, gawk and mawk do not"),
    ("/[]/]/", "`]` first in brackets: gawk and mawk keep `/]`, busybox ends at `/`"),
    ("/[^]/]/", "the same after ^"),
    ("/[\\]]/ ~ x", "an escaped `]` inside brackets: gawk and mawk keep the bracket open"),
    ("/[[:a/]/", "`[:` opens a class for gawk and mawk"),
    ("/[[.a.]]/", "a collating element"),
    ("/x]/", "a `]` outside brackets"),
    ("/é\\//", "a character beyond ASCII before a backslash (a two-byte locale's trail byte)"),
    ("/é]/", "the same before ]"),
    ('{ print "é\\n" }', "the same in a string"),
    ("{ print x\r }", "\\r: a blank to gawk and mawk, not to busybox"),
    ("{ print x\f }", "\\f: a blank to mawk only"),
    ("{ print x\v }", "\\v: a blank to mawk only"),
    ('{ print "a\rb" }', "a control character in a string"),
    ('{ printf "%d", 1 }', "printf"),
    ("{ printx = 1; print printf }", "printf as a name"),
    ("{ getline }", "getline"),
    ("{ x = getlinex; y = getline }", "getline as a name"),
    ("{ f(1) }", "a user function's call"),
    ("{ print x(1) }", "a name before `(`: gawk, mawk and busybox call a function"),
    ('{ print ENVIRON["HOME"] }', "the environment"),
    ('{ ARGV[1] = "x" }', "the operands"),
    ('{ print ARGC, PROCINFO["pid"], SYMTAB["x"], FUNCTAB["f"], ARGIND }', "the process"),
    ("{ print x in a }", "in"),
    ("BEGINFILE { print }", "gawk's BEGINFILE"),
    ("{ print awk::x }", "gawk's namespaces"),
    ('@include "x"', "gawk's @include"),
    ("{ print @/a/ }", "gawk's typed regular expression"),
    ("{ print 2 ** 3 }", "gawk's and busybox's **, mawk's syntax error"),
    ('{ print x > "f" }', "a redirect"),
    ("{ print a[x > 1] }", "mawk: `>` inside brackets in print is a redirect"),
    ('{ print x | "sh" }', "a pipe"),
    ("{ print 1 < 2 }", "a comparison in a print list"),
    ("{ print x ? y : z }", "?: (its `:` and `>` in print)"),
    ("{ print x; } { x = 1 +\n2 }", "busybox joins a line after +; gawk and mawk end the statement"),
    ("{ print 1 ++x }", "++ after a number: awk's lexer joins it to the left, where no lvalue is"),
    ("{ print a !b }", "! as the start of a concatenated operand"),
    ("{ print a -1 }\n{ print $-1 }", "$ of a negative number"),
    ("length x", "concatenation after length without parentheses"),
    ("{ print (length) }", "busybox refuses length before )"),
    ("length", "busybox refuses length at the end"),
    ("length { print }", "busybox refuses length before {"),
    ("{ while (1) print }", "a loop"),
]


@pytest.mark.parametrize(("program", "why"), DIFFERENT, ids=[d[0] for d in DIFFERENT])
def test_a_program_awks_read_differently_does_not_parse(program: str, why: str) -> None:
    assert not program_prints_only(program), why


SAME = [
    "{ print $1 / 2 }",
    "{ print x / 1; y = 1 / 2 }",
    '{ print (x) / 2, a[1] / 3, "4" / 2, NF / 2, $x / 2, $NF / 2 }',
    "{ print length($0) / 2, substr($0, 1) / 3 }",
    "$1 / 2 > 1",
    "!/^#/ && $2 ~ /a\\/b/ { n[$1]++ }",
    "/[[:alpha:]][^a-z]x[.]/, /\\]/",
    '{ gsub(/a/, "b"); print }',
    '{ sub(/x/, "/", $2); print }',
    "{ print 1e5, .5, 1., 2.e1, 1E-2, 0, 10 }",
    '{ print "a/b", "#", "\\"/\\\\", "é" } # a comment, é',
    "length > 72",
    "{ print length }",
    "!seen[$0]++",
    "NR==1,\n/end/ { print }",
    'BEGIN { FS = ":" } { s += $2 } END { print s / NR }',
    "{ if (x > 1) print; else { print x; next } }",
    "{ print x; print a[x, y]; print a[(x > 1)] }",
    "{ x ^= 2; y %= 3; z *= 4; w -= 1; v += 1 }",
    "{ print -x, !x, x^-1, x++ + ++x }",
]


@pytest.mark.parametrize("program", SAME)
def test_a_program_every_awk_reads_alike_parses(program: str) -> None:
    assert program_prints_only(program)


RESERVED = (
    "BEGIN", "BEGINFILE", "END", "ENDFILE", "and", "asort", "asorti", "atan2", "bindtextdomain", "break",
    "case", "close", "compl", "continue", "cos", "dcgettext", "dcngettext", "default", "delete", "do",
    "else", "eval", "exit", "exp", "fflush", "for", "func", "function", "gensub", "getline", "gsub", "if",
    "in", "include", "index", "int", "isarray", "length", "load", "log", "lshift", "match", "mkbool",
    "mktime", "namespace", "next", "nextfile", "or", "patsplit", "print", "printf", "rand", "return",
    "rshift", "sin", "split", "sprintf", "sqrt", "srand", "stopme", "strftime", "strtonum", "sub", "substr",
    "switch", "system", "systime", "tolower", "toupper", "typeof", "while", "xor", "ENVIRON", "ARGV",
    "ARGC", "ARGIND", "PROCINFO", "SYMTAB", "FUNCTAB",
)  # fmt: skip


@pytest.mark.parametrize("word", RESERVED)
def test_a_word_any_awk_reserves_is_never_a_variable(word: str) -> None:
    """gawk's tokentab, mawk's keywords and built-ins, busybox's tokenlist, and the arrays that reach
    the environment: never a NAME (a keyword of the grammar is a terminal of its own, so `print x`
    parses, never `x = print`); a name that only starts with one is a name."""
    if word != "length":  # `x = length` is its call
        assert not program_prints_only(f"{{ x = {word} }}")
    assert not program_prints_only(f"{{ {word} = 1 }}")
    assert program_prints_only(f"{{ {word}x = 1; x = _{word} }}")

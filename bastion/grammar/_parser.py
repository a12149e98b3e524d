"""Parsing one line with the subset's parser into a plan, or an Outside that says where and why."""

from __future__ import annotations

import re
from functools import lru_cache

from ._lalr import END, Unexpected
from ._load import loaded, parser
from ._plan import Outside, Plan, Redirect

__all__ = ["MAX_LINE_BYTES", "MAX_LINE_WORDS", "oversized", "parse", "parser", "prepare"]

_TRIM = " \t"
# The longest line analysed. The longest lines agents really sent (the conformance corpus's) are
# under 2,000 bytes and 400 words and operators; past these bounds a line is not parsed, cut or
# matched at all and asks at once, so no line can make a decision slow however it is built.
MAX_LINE_BYTES = 131_072
MAX_LINE_WORDS = 16_384
# What MAX_LINE_WORDS counts: runs of other characters, and each character that makes a shell
# operator, a quote or an expansion on its own (`ls;ls;ls` is five, not one: the cut of a line
# outside the subset spends its time per command, not per blank).
_WORD = re.compile(r"""[;&|()<>$`'"]|[^\s;&|()<>$`'"]+""")
# Lines up to this length are remembered once parsed (a line is decided, then re-checked before it
# runs); a longer one is parsed each time, so the memo cannot hold much memory.
_REMEMBERED = 4_096

# What a person is told about the byte where the subset ended. This table only words the reason:
# whether a line is in the subset is decided by the grammar alone.
_SEQUENCES: tuple[tuple[str, str], ...] = (
    ("$(", "command substitution"),
    ("$'", "ANSI-C quoting"),
    ('$"', "locale quoting"),
    ("${", "parameter expansion"),
    ("$[", "arithmetic expansion"),
    ("<(", "process substitution"),
    (">(", "process substitution"),
    ("<<<", "a here-string"),
    ("<<", "a here-document"),
    ("||", "the `||` operator"),
    ("|&", "the `|&` operator"),
    (">&", "a redirect to a file or descriptor"),
    (">>", "an appending redirect"),
    ("&>", "a redirect of both outputs"),
)
_CHARACTERS: dict[str, str] = {
    "$": "variable expansion",
    "`": "command substitution",
    "\\": "a backslash escape",
    ";": "a command separator",
    "&": "running in the background",
    "|": "an empty pipeline stage",
    "<": "an input redirect",
    ">": "an output redirect",
    "#": "a comment",
    "(": "a subshell or grouping",
    ")": "a subshell or grouping",
    "{": "brace expansion or a group",
    "}": "brace expansion or a group",
    "[": "a character class or test",
    "]": "a character class or test",
    "!": "history expansion or negation",
    "~": "tilde expansion at the start of a word",
    "^": "a `^` at the start of a word",
    "=": "an assignment in the command word",
    "*": "a glob here",
    "?": "a glob here",
    "'": "an unterminated or misplaced quote",
    '"': "an unterminated, misplaced or expanding double quote",
    "\n": "a newline",
    "\r": "a carriage return",
    "\t": "a tab here",
    " ": "an empty stage",
}


def _at(line: str, column: int, token: str, kind: str, reason: str) -> Outside:
    """The one place an Outside is made from a parse: the 1-based column, the token there and its
    kind (facts a program reads), and the reason (the same for a person)."""
    return Outside(line, column, reason, token, kind)


def _describe(line: str, index: int) -> Outside:
    rest = line[index:]
    column = index + 1
    for seq, what in _SEQUENCES:
        if rest.startswith(seq):
            return _at(line, column, seq, what, f"`{seq}` at column {column}: {what} is outside the subset")
    char = rest[:1]
    if char == "~" and line[index - 1 : index] in ("=", ":"):
        return _at(line, column, char, "a tilde after `=` or `:`",
                   f"`~` at column {column}: a tilde after `=` or `:` is expanded by bash in a word that "
                   "looks like an assignment, and is outside the subset")
    if char in _CHARACTERS:
        shown = char.encode("unicode_escape").decode("ascii")
        what = _CHARACTERS[char]
        return _at(line, column, char, what, f"`{shown}` at column {column}: {what} is outside the subset")
    if char and (ord(char) < 0x20 or ord(char) == 0x7F):
        return _at(line, column, char, "a control byte",
                   f"control byte {ord(char):#04x} at column {column} is outside the subset")
    if char and ord(char) > 0x7E:
        return _at(line, column, char, "a non-ASCII character",
                   f"non-ASCII character U+{ord(char):04X} at column {column} is outside the subset")
    return _at(line, column, char, "a character outside the subset",
               f"`{char}` at column {column} is outside the subset")


def _outside(line: str, err: Unexpected) -> Outside:
    token = err.token
    if token is not None and token.type == END:
        return _at(line, len(line), "", "the end of the line",
                   "the line ends where a command or word must follow")
    index = err.pos
    if token is not None:
        text = str(token)
        before = line[:index]
        if token.type in ("AND", "PIPE"):
            index += len(text) - len(text.lstrip(_TRIM))
            return _at(line, index + 1, text.strip(), "an empty stage",
                       f"`{text.strip()}` at column {index + 1}: a stage is empty or a word is missing")
        if "=" in text and "CMD_BARE" in err.expected:
            return _describe(line, index + text.index("="))
        if before.endswith(tuple(r.value for r in Redirect)):
            return _at(line, index + 1, text, "a word attached to a redirect",
                       f"`{text}` at column {index + 1}: a redirect is a whole word, "
                       "followed by a space, `|`, `&&` or the end of the line")
        if token.type.startswith(("ERR_", "OUT_")):
            return _at(line, index + 1, text, "a misplaced redirect",
                       f"`{text}` at column {index + 1}: a redirect is a whole word "
                       "after the command word: 2>&1, 2>/dev/null or >/dev/null")
        if token.type.endswith("TAIL"):
            return _describe(line, index)
        if token.type == "GLOB" or before.endswith(("*", "?")):
            return _at(line, index + 1, text, "a glob with something attached",
                       f"`{text}` at column {index + 1}: a glob is a whole unquoted "
                       "word after the command word, with nothing attached")
        return _at(line, index + 1, text, "words not separated",
                   f"`{text}` at column {index + 1}: words must be separated by spaces or tabs here")
    return _describe(line, index)


def prepare() -> None:
    """Load the parser now rather than at the first parse (before a clock starts, say)."""
    loaded()


def oversized(line: str) -> str | None:
    """Why a line is too long to be analysed (over MAX_LINE_BYTES or MAX_LINE_WORDS), or None."""
    if len(line) <= MAX_LINE_WORDS:  # so at most that many words, and 4 bytes a character: within both
        return None
    size = len(line) if line.isascii() else len(line.encode("utf-8", "surrogatepass"))
    if size > MAX_LINE_BYTES:
        return (f"the line is {size:,} bytes long, over the {MAX_LINE_BYTES:,} bastion analyses "
                "(a line that long is never decided by its parts)")
    words = len(_WORD.findall(line))
    if words > MAX_LINE_WORDS:
        return (f"the line has {words:,} words and operators, over the {MAX_LINE_WORDS:,} bastion "
                "analyses (a line that long is never decided by its parts)")
    return None


def parse(line: str) -> Plan | Outside:
    """Parse one line. Only spaces and tabs are trimmed; the result never raises for any text."""
    too_long = oversized(line)
    if too_long is not None:
        return Outside(line, 0, too_long, kind="a line too long")
    text = line.strip(_TRIM)
    if not text:
        return Outside(line, 0, "the command is empty", kind="an empty line")
    return _parse_trimmed(text) if len(text) <= _REMEMBERED else _parse_text(text)


@lru_cache(maxsize=4096)
def _parse_trimmed(text: str) -> Plan | Outside:
    # Plans and Outsides are frozen, so one line parsed twice (decided, then re-checked right
    # before it runs) is parsed once.
    return _parse_text(text)


def _parse_text(text: str) -> Plan | Outside:
    try:
        plan: Plan = loaded().parse(text)
    except Unexpected as err:
        return _outside(text, err)
    return plan

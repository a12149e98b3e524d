"""Parsing one line with the subset's parser into a plan, or an Outside that says where and why."""

from __future__ import annotations

import re
from functools import lru_cache

from ._lalr import END, Unexpected
from ._load import grammar_text, loaded, parser
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
    ("|&", "the `|&` operator (a pipe of both outputs)"),
    (";;", "a case terminator"),
    (";&", "a case fall-through"),
    (">&", "a redirect to a file or descriptor"),
    (">>", "an appending redirect"),
    ("&>", "a redirect of both outputs"),
)
_CHARACTERS: dict[str, str] = {
    "$": "variable expansion",
    "`": "command substitution",
    "\\": "a backslash outside double quotes",
    ";": "a `;` with no command before it",
    "&": "running in the background",
    "|": "an empty pipeline stage",
    "<": "an input redirect",
    ">": "an output redirect",
    "#": "a comment that does not follow a space or start a line",
    "(": "a subshell or grouping",
    ")": "a subshell or grouping",
    "{": "brace expansion other than one group {A,B,...} in a plain word, or a group",
    "}": "brace expansion other than one group {A,B,...} in a plain word, or a group",
    "[": "a character class, or a `[` that is not the command word on its own",
    "]": "a character class, or a `]` that is not a word on its own",
    "!": "a `!` that is not a word of its own after the command word (negation, or history expansion)",
    "~": "tilde expansion at the start of a word",
    "^": "a `^` at the start of a word",
    "=": "an assignment in the command word",
    "*": "a glob here",
    "?": "a glob here",
    "'": "an unterminated or misplaced quote",
    '"': "an unterminated, misplaced or expanding double quote",
    "\n": "a newline that does not join two commands",
    "\r": "a carriage return",
    "\t": "a tab here",
    " ": "an empty stage",
}


# The operators as a token names them, for a person.
_OPERATORS = {"AND": "`&&`", "OR": "`||`", "PIPE": "`|`", "SEMI": "`;`", "NEWLINE": "a newline"}


def _found(line: str, column: int, token: str, kind: str, reason: str) -> Outside:
    """The one place an Outside is made from a parse: the 1-based column, the token there and its
    kind (facts a program reads: the audit groups lines by token), and the reason for a person."""
    return Outside(line, column, reason, token, kind)


def _at(line: str, index: int) -> Outside:
    """The line outside the subset at the byte `index`, said in words (the column is where the
    construct that is outside begins, which may be before `index` or inside a quoted string)."""
    # A sequence the byte before began (`|&`: the `|` was read as a pipe) is named whole.
    for start in (index - 1, index) if index else (index,):
        for seq, what in _SEQUENCES:
            if line.startswith(seq, start) and start + len(seq) > index:
                why = f"`{seq}` at column {start + 1}: {what} is outside the subset"
                return _found(line, start + 1, seq, what, why)
    if line[index : index + 1] == '"':
        return _inside_double_quotes(line, index)
    if line[index : index + 1] == "'":
        return _inside_single_quotes(line, index)
    return _describe(line, index)


def _describe(line: str, index: int) -> Outside:
    char, column = line[index : index + 1], index + 1
    if char == "~" and line[index - 1 : index] in ("=", ":"):
        return _found(
            line,
            column,
            char,
            "a tilde after `=` or `:`",
            f"`~` at column {column}: a tilde after `=` or `:` is expanded by bash in a word that "
            "looks like an assignment, and is outside the subset",
        )
    if char in _CHARACTERS:
        shown, what = char.encode("unicode_escape").decode("ascii"), _CHARACTERS[char]
        return _found(line, column, char, what, f"`{shown}` at column {column}: {what} is outside the subset")
    if char and (ord(char) < 0x20 or ord(char) == 0x7F):
        return _found(
            line,
            column,
            char,
            "a control byte",
            f"control byte {ord(char):#04x} at column {column} is outside the subset",
        )
    if char and ord(char) > 0x7E:
        return _found(
            line,
            column,
            char,
            "a non-ASCII character",
            f"non-ASCII character U+{ord(char):04X} at column {column} is outside the subset",
        )
    return _found(
        line,
        column,
        char,
        "a character outside the subset",
        f"`{char}` at column {column} is outside the subset",
    )


@lru_cache(maxsize=1)
def _text() -> re.Pattern[str]:
    """TEXT, the other scripts' characters a quoted string may hold, as the grammar file writes it
    (only to say which character ended a string: the grammar alone decides)."""
    blocks = re.findall(r"^_TEXT_[A-Z]+: /(\[.*\])/$", grammar_text(), re.MULTILINE)
    return re.compile("|".join(blocks))


# After a $ inside double quotes, what bash leaves literal (the grammar's _DQ_DOLLAR, and the quote).
_LITERAL_AFTER_DOLLAR = frozenset('\t |)/.:,=+%]}^~"')


def _in_quotes(line: str, i: int, quote: str) -> Outside:
    """The character at `i` inside a quoted string that is not TEXT, said in words."""
    found = _at(line, i)
    what = "double" if quote == '"' else "single"
    if line[i] in "\u00a0\u200b" or not line[i].isascii():
        found = found._replace(
            reason=f"{found.reason}: a quoted string may hold letters, signs, symbols and emoji, but no "
            "bidirectional control, blank, combining mark or look-alike of a shell character"
        )
    return found._replace(reason=f"{found.reason} (inside {what} quotes)")


def _inside_double_quotes(line: str, index: int) -> Outside:
    """Why the double-quoted string at `index` is not a whole DQUOTED piece: what stops it."""
    i = index + 1
    text = _text()
    while i < len(line):
        char = line[i]
        if char == "\\" and line[i + 1 : i + 2].isprintable() and line[i + 1 : i + 2].isascii():
            i += 2
            continue
        if char == '"':
            break
        if char == "$" and line[i + 1 : i + 2] in _LITERAL_AFTER_DOLLAR and line[i + 1 : i + 2]:
            i += 1
            continue
        if not char.isascii() and text.fullmatch(char):
            i += 2 if line[i + 1 : i + 2] == "\ufe0f" else 1
            if line[i : i + 1] == "\\":
                column = i + 1
                return _found(
                    line,
                    column,
                    "\\",
                    "a backslash after a non-ASCII character",
                    f"`\\` at column {column}: a backslash right after a non-ASCII character in double "
                    "quotes is outside the subset (a multibyte locale could read the two as one character)",
                )
            continue
        if char in "$`" or not (char.isascii() and (char.isprintable() or char == "\t")):
            return _in_quotes(line, i, '"')
        i += 1
    return _describe(line, index)


def _inside_single_quotes(line: str, index: int) -> Outside:
    """Why the single-quoted string at `index` is not a whole SQUOTED piece: what stops it."""
    i = index + 1
    text = _text()
    while i < len(line) and line[i] != "'":
        char = line[i]
        if not char.isascii() and text.fullmatch(char):
            i += 2 if line[i + 1 : i + 2] == "\ufe0f" else 1
            continue
        if not (char.isascii() and (char.isprintable() or char == "\t")):
            return _in_quotes(line, i, "'")
        i += 1
    return _describe(line, index)


def _operator(line: str, index: int, token_type: str, text: str) -> Outside:
    """An operator where a command must come first: at the start, or right after another."""
    if token_type == "SEMI" and line[index - 1 : index] == ";" or line.startswith(";;", index):
        start = index - 1 if line[index - 1 : index] == ";" else index
        return _at(line, start)
    return _found(
        line,
        index + 1,
        text,
        "a missing command",
        f"{_OPERATORS[token_type]} at column {index + 1}: a command is missing before it",
    )


def _outside(line: str, err: Unexpected) -> Outside:
    token = err.token
    if token is not None and token.type == END:
        last = line.rstrip(_TRIM)[-1:]
        if last in (";", "\n"):
            what = "`;`" if last == ";" else "a newline"
            why = f"the line ends with {what}: in the subset a command must follow it"
            return _found(line, len(line), last, "the end of the line", why)
        return _found(
            line, len(line), "", "the end of the line", "the line ends where a command or word must follow"
        )
    index = err.pos
    if index == 0 and line.startswith("#"):
        return _found(
            line,
            1,
            "#",
            "a comment",
            "the line is only a comment: a line without a command is outside the subset",
        )
    if token is not None:
        text = str(token)
        before = line[:index]
        if token.type in _OPERATORS:
            return _operator(line, index + len(text) - len(text.lstrip(_TRIM)), token.type, text.strip(_TRIM))
        if token.type == "BANG" or before.endswith("!"):
            index -= 0 if token.type == "BANG" else 1
            return _at(line, index)
        if token.type in ("SQUOTED", "DQUOTED") and "CMD_SQUOTED" in err.expected:
            bad = next((k for k, c in enumerate(text) if not c.isascii()), None)
            if bad is not None:
                column = index + bad + 1
                return _found(
                    line,
                    column,
                    text[bad],
                    "a non-ASCII character in the command word",
                    f"non-ASCII character U+{ord(text[bad]):04X} at column {column} is outside the subset: "
                    "the command word is printable ASCII",
                )
        if "=" in text and "CMD_BARE" in err.expected:
            index += text.index("=")
            return _at(line, index)
        if before.endswith(tuple(r.value for r in Redirect)):
            return _found(
                line,
                index + 1,
                text,
                "a word attached to a redirect",
                f"`{text}` at column {index + 1}: a redirect is a whole word, "
                "followed by a space, `|`, `&&` or the end of the line",
            )
        if token.type.startswith(("ERR_", "OUT_")):
            return _found(
                line,
                index + 1,
                text,
                "a misplaced redirect",
                f"`{text}` at column {index + 1}: a redirect is a whole word "
                "after the command word: 2>&1, 2>/dev/null or >/dev/null",
            )
        if token.type.endswith("TAIL") or token.type in ("TEST_OPEN", "TEST_CLOSE"):
            return _at(line, index)
        if token.type == "GLOB" or before.endswith(("*", "?")):
            return _found(
                line,
                index + 1,
                text,
                "a glob with something attached",
                f"`{text}` at column {index + 1}: a glob is a whole unquoted "
                "word after the command word, with nothing attached",
            )
        return _found(
            line,
            index + 1,
            text,
            "words not separated",
            f"`{text}` at column {index + 1}: words must be separated by spaces or tabs here",
        )
    return _at(line, index)


def prepare() -> None:
    """Load the parser now rather than at the first parse (before a clock starts, say)."""
    loaded()


def oversized(line: str) -> str | None:
    """Why a line is too long to be analysed (over MAX_LINE_BYTES or MAX_LINE_WORDS), or None."""
    if len(line) <= MAX_LINE_WORDS:  # so at most that many words, and 4 bytes a character: within both
        return None
    size = len(line) if line.isascii() else len(line.encode("utf-8", "surrogatepass"))
    if size > MAX_LINE_BYTES:
        return (
            f"the line is {size:,} bytes long, over the {MAX_LINE_BYTES:,} bastion analyses "
            "(a line that long is never decided by its parts)"
        )
    words = len(_WORD.findall(line))
    if words > MAX_LINE_WORDS:
        return (
            f"the line has {words:,} words and operators, over the {MAX_LINE_WORDS:,} bastion "
            "analyses (a line that long is never decided by its parts)"
        )
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

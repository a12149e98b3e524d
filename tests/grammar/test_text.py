"""TEXT, the other scripts' characters a quoted string may hold: none of them can change what bash
reads or pass for a shell character to a person reading the line."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import pytest

from bastion.grammar import Outside, Plan, grammar_text, parse

# What a look-alike would pass for: a quote, an operator, an expansion, a glob, a blank.
_SHELL = frozenset("\"'`$&;|\\/()[]{}<>#!?*~= \t")
# Names of characters that look like one of those (for a character that is not a letter).
_LOOKS_LIKE = re.compile(
    r"QUOTATION|APOSTROPHE|GRAVE|ACUTE|PRIME|DOLLAR|AMPERSAND|SEMICOLON|SOLIDUS|PARENTHES|BRACKET|"
    r"BRACE|LESS-THAN|GREATER-THAN|NUMBER SIGN|EXCLAMATION|QUESTION|ASTERISK|TILDE|SPACE|BLANK|"
    r"FILLER|DIAGONAL|COMMA|VERTICAL (?:LINE|BAR)|(?:LIGHT|HEAVY|DOUBLE) VERTICAL(?: .*DASH)?$|"
    r"(?:LEFT|RIGHT)-POINTING (?:SMALL )?TRIANGLE|POINTER|ANGLE|EQUALS"
)
# Letters that pass for a shell character: the click letters look like | || and !.
_LETTERS_LOOKING_LIKE = frozenset("\u01c0\u01c1\u01c2\u01c3")
_BIDI = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


@cache
def _text_chars() -> tuple[str, ...]:
    blocks = re.findall(r"^_TEXT_[A-Z]+: /(\[.*\])/$", grammar_text(), re.MULTILINE)
    assert len(blocks) == 6
    text = re.compile("|".join(blocks))
    return tuple(chr(c) for c in range(0x80, 0x110000) if text.fullmatch(chr(c)))


def test_every_text_character_is_printable_and_no_control_mark_or_look_alike() -> None:
    chars = _text_chars()
    assert len(chars) > 30_000
    for char in chars:
        name = unicodedata.name(char)
        assert char.isprintable(), name
        assert unicodedata.category(char)[0] not in "CMZ", name  # controls, marks, blanks
        assert unicodedata.bidirectional(char) not in _BIDI, name
        assert not (unicodedata.category(char)[0] != "L" and _LOOKS_LIKE.search(name)), name
        assert not set(unicodedata.normalize("NFKC", char)) & _SHELL, name
        assert char not in _LETTERS_LOOKING_LIKE, name


@pytest.mark.parametrize(
    "char",
    ["\u202e", "\u2066", "\u200f", "\u061c", "\u200b", "\u00a0", "\u3000", "\u3164", "\u2800", "\u0301",
     "\ufeff", "\ue000", "\u2019", "\u201c", "\u00b4", "\u02bc", "\u2032", "\uff02", "\uff07", "\uff04",
     "\u037e", "\uff1b", "\u01c0", "\u2223", "\u2502", "\uff5c", "\u2044", "\u2215", "\u29f5", "\uff08",
     "\u2768", "\u276c", "\u2039", "\u3008", "\u2217", "\u2731", "\u01c3", "\u2757", "\u2753", "\u2053",
     "\uff5e", "\u2474", "\ufe5f", "\U000e0001", "\U0001f3f4\U000e0067"],
)  # fmt: skip
def test_controls_blanks_marks_and_look_alikes_stay_outside_quotes_too(char: str) -> None:
    for line in (f"echo '{char}'", f'echo "{char}"', f"echo 'a{char}b'"):
        assert isinstance(parse(line), Outside), (line, unicodedata.name(char[0], "?"))


@pytest.mark.parametrize(
    "text", ["\u2713 exists", "\u2717 missing", "\u26a0\ufe0f  IMPORTANT", "\u2501" * 20, "caf\u00e9",
             "\u6b63\u5b97", "\U0001f916 Generated", "a \u2192 b", "\u2705 \u274c \u2714", "\u0416",
             "\u216b", "\u2163 \u2173"],
)  # fmt: skip
def test_the_text_agents_print_is_a_quoted_word(text: str) -> None:
    for line in (f"echo '{text}'", f'echo "{text}"', f'test -f x && echo "{text}: x"'):
        plan = parse(line)
        assert isinstance(plan, Plan), line
        assert text in plan.stages[-1].args[0].text


def test_a_backslash_right_after_text_in_double_quotes_is_outside() -> None:
    # Big5 and other multibyte locales could read a trailing byte and the backslash as one character.
    found = parse('echo "\u2713\\$HOME"')
    assert isinstance(found, Outside) and found.token == "\\" and "multibyte" in found.reason
    assert isinstance(parse('echo "\u2713 \\$HOME"'), Plan)
    assert isinstance(parse("echo '\u2713\\'"), Plan)  # in single quotes a backslash is a character


def test_the_command_word_stays_ascii() -> None:
    for line in ("'\u2713' x", '"\u00e9" x', "\u00e9 x"):
        found = parse(line)
        assert isinstance(found, Outside) and "non-ASCII" in found.reason

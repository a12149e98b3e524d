"""The model's markdown on a terminal: rendered a block at a time as it streams (on a terminal the
arriving block shown plain meanwhile, then replaced, never shown twice), a code block kept whole
across its blank lines, the model's own escape sequences and a held key never reaching the terminal."""

from __future__ import annotations

import io

import pytest

from bastion.agent.front import MarkdownStream, rows_above


def test_a_block_is_shown_once_complete_and_the_rest_when_the_reply_ends() -> None:
    out = io.StringIO()
    stream = MarkdownStream(out)
    stream.feed("First **para")
    assert out.getvalue() == ""
    stream.feed("graph**.\n\nSecond")
    assert "First paragraph." in out.getvalue() and "**" not in out.getvalue()
    assert "Second" not in out.getvalue()
    stream.flush()
    assert "Second" in out.getvalue()


def test_a_code_block_with_blank_lines_is_rendered_whole() -> None:
    out = io.StringIO()
    stream = MarkdownStream(out)
    stream.feed("```python\nx = 1\n\ny = 2\n")
    assert out.getvalue() == ""  # the fence is still open
    stream.feed("```\n\n")
    assert "x = 1" in out.getvalue() and "y = 2" in out.getvalue() and "```" not in out.getvalue()


def test_the_models_escape_sequences_are_shown_never_obeyed() -> None:
    out = io.StringIO()
    stream = MarkdownStream(out)
    stream.feed("title \x1b]0;pwned\x07here\x1b[2J\u202e\n\n")
    shown = out.getvalue()
    assert "\x1b]" not in shown and "\x1b[2J" not in shown and "\u202e" not in shown
    assert "title \\x1b]0;pwned\\x07here\\x1b[2J\\u202e" in shown


def test_live_the_arriving_block_is_shown_plain_then_replaced_by_its_rendering_once() -> None:
    out = io.StringIO()
    stream = MarkdownStream(out, live=True)
    stream.feed("Hello **wor")
    assert out.getvalue() == "Hello **wor"  # shown as it arrives
    stream.feed("ld**.\n\nNext")
    shown = out.getvalue()
    erased = shown.index("\r\x1b[J")  # the plain text is taken off the screen...
    assert "Hello world." in shown[erased:] and "**" not in shown[erased:]  # ...and rendered in its place
    assert shown.endswith("\nNext")  # the next block starts arriving, plain, after one blank line
    stream.flush()
    final = out.getvalue()
    assert final.count("Next") == 2 and final.rindex("\x1b[J") < final.rindex("Next")


def test_live_a_retry_takes_the_broken_block_off_the_screen_without_printing_it() -> None:
    out = io.StringIO()
    stream = MarkdownStream(out, live=True)
    stream.feed("The answer bro")
    stream.drop()
    stream.flush()
    assert out.getvalue() == "The answer bro\r\x1b[J"


def test_live_a_held_keys_start_is_not_shown_before_the_rest_of_it_arrives() -> None:
    from bastion._safe import hold, holding

    with holding():
        hold("sk-live-0123456789abcdef")
        out = io.StringIO()
        stream = MarkdownStream(out, live=True)
        stream.feed("key: sk-live-0123")
        stream.feed("456789abcdef done")
        assert "0123" not in out.getvalue()


@pytest.mark.parametrize(
    ("text", "columns", "rows"),
    [("abc", 10, 0), ("abc\n", 10, 1), ("a" * 10, 10, 0), ("a" * 11, 10, 1), ("a" * 10 + "\nb", 10, 1),
     ("\n\nx", 10, 2), ("界" * 6, 10, 1)],
)  # fmt: skip
def test_the_rows_erased_are_the_rows_the_text_took(text: str, columns: int, rows: int) -> None:
    assert rows_above(text, columns) == rows

"""The model's markdown on a terminal: rendered a block at a time as it streams, a code block kept
whole across its blank lines, the model's own escape sequences never reaching the terminal."""

from __future__ import annotations

import io

from bastion.agent._render import MarkdownStream


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

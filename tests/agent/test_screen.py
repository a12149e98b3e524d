"""The printer's screen: each result under its own call's line when several calls came between, a
sub-agent's report set apart from its last command's output, a search's line showing its pattern,
a collapsed result kept to be opened whole, a running command's last line on the spinner; the
spinner one row of the terminal whatever it is told (no flood of the scrollback), and what bastion
says (a denial, /help) wrapped between words, never inside one."""

from __future__ import annotations

import functools
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion._safe import safe_line
from bastion.agent.front import EXPAND_KEPT, Printer, Spinner, help_text, summary

# private: the spinner's line and the terminal's width of a text are the things tested
from bastion.agent.front._render import cells
from bastion.agent.front._screen import status
from bastion.agent.runtime import Answer, ToolCall, ToolResult
from bastion.policy import Decision, Verdict

from ..waits import until

ALLOW = Verdict(Decision.ALLOW, "allowed")
ASK = Verdict(Decision.ASK, "asks")


def _call(id_: str, name: str, **args: object) -> ToolCall:
    return ToolCall(id_, name, json.dumps(args))


def test_a_result_after_other_lines_is_drawn_under_its_own_call_line_again() -> None:
    err = io.StringIO()
    printer = Printer(io.StringIO(), err)
    ls, rm = _call("a", "bash", command="ls"), _call("b", "bash", command="rm x")
    printer.verdict(ls, ALLOW, None)
    printer.verdict(rm, ASK, Answer(False, ""))
    printer.message(ToolResult("a", "bash", "x\n[exit 0]"))
    printer.message(ToolResult("b", "bash", "refused by the user; the call was not run", is_error=True))
    shown = ["→ bash ls", "✗ bash refused", "→ bash ls", "  │ x", "  │ [exit 0]"]
    assert err.getvalue().splitlines() == shown


def test_a_result_right_under_its_line_is_not_headed_twice() -> None:
    err = io.StringIO()
    printer = Printer(io.StringIO(), err)
    printer.verdict(_call("a", "bash", command="ls"), ALLOW, None)
    printer.message(ToolResult("a", "bash", "[exit 0]"))
    assert err.getvalue().splitlines() == ["→ bash ls", "  │ [exit 0]"]


def test_a_sub_agents_report_is_set_apart_from_its_last_commands_output() -> None:
    err = io.StringIO()
    printer = Printer(io.StringIO(), err)
    task = _call("t1", "task", prompt="find the bug")
    child = _call("t1/c1", "[task 1: explore] bash", command="grep -n bug x.py")
    printer.verdict(task, ALLOW, None)
    printer.verdict(child, ALLOW, None)
    printer.message(ToolResult("t1/c1", child.name, "3: bug\n[exit 0]"))
    printer.message(ToolResult("t1", "task", "The bug is on line 3."))
    lines = err.getvalue().splitlines()
    assert lines[-2:] == ["→ task find the bug", "  │ The bug is on line 3."]
    assert lines[-3] == "  │ [exit 0]"


def test_a_search_call_line_shows_its_pattern_and_where_it_looks() -> None:
    assert summary(_call("g", "grep", pattern="def main", path="src")) == "grep def main  (in src)"
    assert summary(_call("g", "glob", pattern="**/*.py")) == "glob **/*.py"
    assert summary(_call("r", "read", path="a.py")) == "read a.py"


def test_a_collapsed_result_is_numbered_and_kept_to_be_opened_whole() -> None:
    err = io.StringIO()
    printer = Printer(io.StringIO(), err)
    content = "".join(f"line {n}\n" for n in range(10)) + "[exit 0]"
    for n in range(EXPAND_KEPT + 1):
        printer.verdict(_call(f"c{n}", "bash", command=f"seq {n}"), ALLOW, None)
        printer.message(ToolResult(f"c{n}", "bash", content))
    assert f"  │ … 7 more lines (/expand {EXPAND_KEPT + 1})" in err.getvalue()
    whole = printer.expanded()
    assert whole is not None and whole[0] == f"→ bash seq {EXPAND_KEPT}" and len(whole) == 12
    assert printer.expanded(1) is None and printer.expanded(2) is not None  # the oldest went first


def test_a_running_commands_last_line_is_shown_on_the_spinners_line() -> None:
    tty = io.StringIO()
    printer = Printer(tty, tty)
    printer.spinner.on = True
    printer.started(_call("a", "bash", command="make test"))
    printer.output("collecting\n\x1b[31mtest_a PASSED\n")
    until(lambda: "running bash make test" in tty.getvalue() and "│ \\x1b[31mtest_a PASSED" in tty.getvalue(),
          "the spinner to show the command's last line, made safe")  # fmt: skip
    printer.finished(_call("a", "bash", command="make test"))
    assert tty.getvalue().endswith("\r\x1b[2K")


@settings(max_examples=300, deadline=None)
@given(
    what=st.text(max_size=300),
    tail=st.text(max_size=80),
    columns=st.integers(10, 240),
    seconds=st.integers(0, 10**6),
)
def test_the_spinners_line_is_one_row_of_the_terminal_whatever_it_is_told(
    what: str, tail: str, columns: int, seconds: int
) -> None:
    line = status(what, seconds, tail, columns)
    assert cells(line) <= columns - 1  # within the width, its last column left empty
    # No line break, control, escape or tab (each made visible): a redraw never leaves a row behind.
    assert safe_line(line) == line and "\t" not in line
    if cells(f"running {what[:5]}") < columns - 20:
        assert line.startswith(Spinner.FRAMES[0] + " ") and f" {seconds}s" in line  # the seconds stay


def test_a_long_command_with_line_breaks_and_wide_text_spins_on_one_row_of_60_columns() -> None:
    tty = io.StringIO()
    printer = Printer(tty, tty)
    printer.spinner.on = True
    printer.spinner.width = lambda: 60
    command = "python3 - <<'EOF'\nprint('日本語のテキスト' * 20)\nEOF\n" + "x" * 200
    printer.started(_call("a", "bash", command=command))
    printer.output("\x1b[31m" + "長い出力の行" * 30 + "\n")
    until(lambda: "長い" in tty.getvalue(), "the spinner to show the command's last line beside it")
    printer.finished(_call("a", "bash", command=command))
    frames = [f for f in tty.getvalue().split("\r\x1b[2K") if f]
    assert frames and all(cells(f) <= 59 and "\n" not in f and "\x1b" not in f for f in frames), frames


def test_what_bastion_says_on_a_terminal_is_wrapped_between_words_and_in_a_pipe_kept_whole() -> None:
    reason = "asked by " + " ".join(f"bash(npm-run-script-{n}:*)" for n in range(12))
    for width in (60, 80):
        err = io.StringIO()
        printer = Printer(io.StringIO(), err, width=functools.partial(int, width))
        printer.verdict(_call("d", "bash", command="npm run x"), Verdict(Decision.DENY, reason), None)
        lines = err.getvalue().splitlines()
        assert len(lines) > 1 and all(len(line) <= width for line in lines), lines
        assert " ".join(err.getvalue().split()) == f"✗ bash denied: {reason}"  # no word broken
    piped = io.StringIO()
    Printer(io.StringIO(), piped).verdict(
        _call("d", "bash", command="x"), Verdict(Decision.DENY, reason), None
    )
    assert piped.getvalue() == f"✗ bash denied: {reason}\n"


@pytest.mark.parametrize("columns", [60, 80])
def test_help_is_wrapped_between_words_to_the_terminal(columns: int) -> None:
    shown = help_text(columns=columns).splitlines()
    assert all(len(line) <= columns for line in shown), [line for line in shown if len(line) > columns]
    words = " ".join(help_text(columns=10_000).split())
    assert " ".join(" ".join(shown).split()) == words  # the same words, none broken

"""The printer's screen: each result under its own call's line when several calls came between, a
sub-agent's report set apart from its last command's output, a search's line showing its pattern,
a collapsed result kept to be opened whole, a running command's last line on the spinner."""

from __future__ import annotations

import io
import json

from bastion.agent.front import EXPAND_KEPT, Printer, summary
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

"""Questions a person can answer: a diff for write and edit, a caret for a line outside the subset,
no question whose yes cannot work, `a` only where it is safe, and a run's results shown collapsed."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bastion.agent.front import (
    AGAIN,
    ONCE,
    PROJECT,
    SESSION,
    Asker,
    CallKey,
    Colour,
    Printer,
    cannot_work,
    collapsed,
    colour_for,
    describe,
    may_always,
    parse_reply,
)
from bastion.agent.runtime import Answer, ToolCall, ToolResult
from bastion.analyzer import Stamper
from bastion.policy import Decision, Gate, Verdict, load_settings
from bastion.workspace import LocalWorkspace

from ..waits import until

PLAIN = Colour(False)


def _gate(root: Path) -> Gate:
    ws = LocalWorkspace(str(root))
    return Gate(load_settings(ws, None), ws, Stamper())


def _call(name: str, **args: object) -> tuple[ToolCall, dict[str, object]]:
    return ToolCall("c1", name, json.dumps(args)), dict(args)


def _asker(tmp_path: Path, replies: list[str]) -> tuple[Asker, list[str], Gate]:
    shown: list[str] = []

    def reply(prompt: str) -> str | None:
        shown.append(prompt)
        return replies.pop(0) if replies else None

    asker = Asker(
        reply,
        shown.append,
        str(tmp_path),
        PLAIN,
        offer_always=True,
    )
    return asker, shown, asker.watch(_gate(tmp_path))  # type: ignore[return-value]


def test_an_edit_question_shows_a_unified_diff_not_json(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("a = 1\nb = 2\nc = 3\n")
    call, args = _call("edit", path="app.py", old_string="b = 2\n", new_string="b = 20\nb2 = 3\n")
    lines = describe(call, args, None, str(tmp_path), PLAIN)
    assert lines[:2] == ["--- a/app.py", "+++ b/app.py"]
    assert "-b = 2" in lines and "+b = 20" in lines and "+b2 = 3" in lines and " a = 1" in lines
    assert not any("\\n" in line or "old_string" in line for line in lines)


def test_a_write_over_a_file_shows_its_diff_and_a_new_file_its_start_and_size(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("one\ntwo\n")
    call, args = _call("write", path="notes.md", content="one\nTWO\n")
    assert "-two" in describe(call, args, None, str(tmp_path), PLAIN)
    call, args = _call("write", path="new.md", content="".join(f"line {n}\n" for n in range(100)))
    lines = describe(call, args, None, str(tmp_path), PLAIN)
    assert lines[0] == "  new file new.md (790 bytes, 100 lines)"
    assert lines[1] == "+line 0" and lines[-1] == "  … 80 more lines"


def test_a_diff_is_coloured_on_a_terminal_and_model_text_cannot_inject_escapes(tmp_path: Path) -> None:
    call, args = _call("write", path="x.txt", content="\x1b]0;pwned\x07hello\n")
    lines = describe(call, args, None, str(tmp_path), Colour(True))
    assert lines[1] == "\x1b[32m+\\x1b]0;pwned\\x07hello\x1b[0m"  # the model's sequence shown, not obeyed


def test_a_line_outside_the_subset_shows_a_caret_at_its_column(tmp_path: Path) -> None:
    asker, shown, gate = _asker(tmp_path, ["n"])
    call, args = _call("bash", command="echo $(date) now")
    verdict = gate.decide("bash", args).verdict
    asker(call, args, verdict)
    text = "".join(shown)
    assert "  $ echo $(date) now\n" + " " * 9 + "^ command substitution" in text
    assert "[y/N]" in text and "[y/n/a]" not in text  # no `a` for a line outside the subset


def test_a_file_tool_outside_the_working_directory_is_refused_unasked(tmp_path: Path) -> None:
    asker, shown, gate = _asker(tmp_path, ["y"])
    call, args = _call("write", path="/etc/passwd", content="x")
    verdict = gate.decide("write", args).verdict
    answer = asker(call, args, verdict)
    assert answer == Answer(False, answer.note, by="rule") and "outside the working directory" in answer.note
    assert shown == []
    assert cannot_work(*_call("bash", command="cat /etc/passwd")[:1], verdict) is None


@pytest.mark.parametrize(
    ("tool", "args", "offered"),
    [
        ("read", {"path": ".env"}, False),  # a secret-looking path: asked every time
        ("bash", {"command": "cat .env"}, False),
        ("bash", {"command": "echo $(id)"}, False),  # outside the subset
        ("bash", {"command": "make test"}, True),
        ("write", {"path": "a.txt", "content": "x"}, True),
    ],
)
def test_allow_for_the_session_is_never_offered_for_secrets_or_unread_lines(
    tmp_path: Path, tool: str, args: dict[str, object], offered: bool
) -> None:
    verdict = _gate(tmp_path).decide(tool, args).verdict
    assert verdict.decision is Decision.ASK
    assert may_always(verdict) is offered


def test_a_allows_the_same_exact_call_again_unasked_and_no_other(tmp_path: Path) -> None:
    asker, shown, gate = _asker(tmp_path, ["a"])
    recorded: list[CallKey] = []
    asker.on_rule = recorded.append
    call, args = _call("bash", command="make test")
    assert asker(call, args, gate.decide("bash", args).verdict) == Answer(True, "")
    assert recorded == [CallKey("bash", '{"command": "make test"}')]
    again = asker(call, {**args}, gate.decide("bash", args).verdict)
    assert again == Answer(True, "", by="session rule")
    other, other_args = _call("bash", command="make clean")
    assert asker(other, other_args, gate.decide("bash", other_args).verdict).allow is False  # no reply left


def test_a_and_r_are_not_answers_where_they_are_not_offered() -> None:
    # Not read as a refusal whose reason is "a": the question is put again (AGAIN).
    assert parse_reply("a", always=False) == (Answer(False, "a: not an answer this question offers"), AGAIN)
    assert parse_reply("a", always=True) == (Answer(True, ""), SESSION)
    assert parse_reply("n too risky", always=True) == (Answer(False, "too risky"), ONCE)
    assert parse_reply(None, always=True)[0].allow is False
    assert parse_reply("r", always=True) == (Answer(False, "r: not an answer this question offers"), AGAIN)
    assert parse_reply("r ok then", always=True, learn=True) == (Answer(True, "ok then"), PROJECT)
    assert parse_reply("perhaps", always=False) == (Answer(False, "perhaps"), ONCE)


def test_an_a_where_the_session_is_not_offered_asks_again_and_the_next_answer_counts(tmp_path: Path) -> None:
    asker, shown, gate = _asker(tmp_path, ["a", "y"])
    call, args = _call("bash", command="echo $(id)")  # outside the subset: [y/N], no `a`
    assert asker(call, args, gate.decide("bash", args).verdict) == Answer(True, "")
    text = "".join(shown)
    assert text.count("[y/N]") == 2 and "a: not an answer this question offers" in text


def test_a_result_is_shown_collapsed_with_its_exit_status_and_a_failed_edit_as_failed() -> None:
    assert collapsed("".join(f"{n}\n" for n in range(50)) + "[exit 2]") == [
        "0",
        "1",
        "2",
        "… 47 more lines",
        "[exit 2]",
    ]
    err = io.StringIO()
    printer = Printer(io.StringIO(), err)
    call = ToolCall("e1", "edit", json.dumps({"path": "a.py", "old_string": "x", "new_string": "y"}))
    printer.started(call)
    printer.message(ToolResult("e1", "edit", "error: old_string was not found in a.py", is_error=True))
    assert err.getvalue() == "  ✗ edit failed: error: old_string was not found in a.py\n"
    denied = ToolCall("d1", "bash", "{}")
    printer.verdict(denied, Verdict(Decision.DENY, "x"), None)
    printer.message(ToolResult(denied.id, "bash", "denied by policy: x", is_error=True))
    assert err.getvalue().count("\n") == 2  # a denial was said when it was decided, not again


def test_colour_is_off_when_not_a_terminal_or_no_color_is_set() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert colour_for(Tty(), {"TERM": "xterm"}).on is True
    assert colour_for(Tty(), {"TERM": "xterm", "NO_COLOR": ""}).on is False
    assert colour_for(io.StringIO(), {"TERM": "xterm"}).on is False


def test_retries_are_shown_with_the_wait_and_the_count(tmp_path: Path) -> None:
    from .agent_fixtures import run_main
    from .scripted_server import ScriptedServer
    from .test_scenarios import _env

    (tmp_path / "work").mkdir()
    rounds = [{"status": 429, "retry_after": "2"}, {"status": 500}, {"text": "hello"}]
    with ScriptedServer(rounds) as server:
        argv = ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(argv, cwd=str(tmp_path / "work"), env=_env(tmp_path))
    assert code == 0 and out == "hello\n"
    lines = [line for line in err.splitlines() if "retrying" in line]
    assert [line.split(",")[0] for line in lines] == ["rate limited", "the service is unavailable"]
    assert lines[0].endswith("s (1/3)") and lines[1].endswith("s (2/3)")


def test_the_spinner_draws_only_on_a_terminal_and_wipes_its_line_before_output() -> None:

    from bastion.agent.front import Spinner

    quiet = io.StringIO()
    Spinner(quiet, on=False).start("waiting for the model")
    assert quiet.getvalue() == ""
    tty = io.StringIO()
    spinner = Spinner(tty, on=True)
    spinner.start("waiting for the model")
    until(lambda: "waiting for the model" in tty.getvalue(), "the spinner to draw its line")
    spinner.stop()
    assert "waiting for the model" in tty.getvalue()
    assert tty.getvalue().endswith("\r\x1b[2K")

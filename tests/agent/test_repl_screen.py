"""The REPL's screen in a pseudo-terminal against the scripted model server: text shown before its
stream ends and kept when Ctrl-C cuts it, several calls each with its result under its own line,
Ctrl-C at a question ending the turn, a long question wrapped at word boundaries, a collapsed
result opened whole, a running command watched, a resumed conversation rendered; at 60 columns the
spinner on one row and /help and errors broken between words. Every wait is on what the screen
shows (or the server was asked), never on a clock."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path
from typing import Any

import pexpect

from bastion.agent.runtime import CUT_SHORT, NOT_RUN
from tests.waits import PATIENCE, until

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _session_events

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
# The spinner's line, drawn and then wiped before anything else is printed.
_SPUN = re.compile(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [^\r\n]*?(?=\r\x1b\[2K)")


def _spawn(tmp: Path, url: str, *extra: str, columns: int = 200) -> pexpect.spawn:
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, **_env(tmp), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}
    code = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"
    child = pexpect.spawn(
        sys.executable,
        ["-c", code, "--front", "repl", "--provider", "openai", "--base-url", url + "/v1", *extra],
        cwd=str(work),
        env=env,
        encoding="utf-8",
        timeout=PATIENCE,
        dimensions=(40, columns),
    )
    child.expect("/help for commands")
    return child


def _leave(child: pexpect.spawn) -> None:
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()


def _plain(text: str) -> str:
    """What the screen shows, as text: the spinner's lines and the terminal's controls left out."""
    return _ANSI.sub("", _SPUN.sub("", text))


def _messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages = request["body"]["messages"]
    assert isinstance(messages, list)
    return messages


def test_text_is_shown_before_its_stream_ends_and_kept_when_ctrl_c_cuts_it(tmp_path: Path) -> None:
    # The reply's first frames come, then the server holds the rest back: only a screen that shows
    # text as it arrives can show these words.
    rounds = [{"text": "Streaming words arrive before the end", "pieces": 6, "stall": 3}, {"text": "again"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.sendline("talk")
        child.expect("Streaming wo")
        child.sendcontrol("c")
        child.expect(r"\[aborted\]")
        child.sendline("go on")
        child.expect("again")
        _leave(child)
    kept = [m for m in _messages(server.requests[1]) if m["role"] == "assistant"]
    assert kept and kept[0]["content"].startswith("Streaming wo") and CUT_SHORT in kept[0]["content"]
    recorded = [e for e in _session_events(tmp_path) if e["type"] == "message" and "Streaming wo" in str(e)]
    assert recorded, "the cut reply is in the session's record too"


def test_each_result_is_drawn_under_its_own_call_line(tmp_path: Path) -> None:
    calls = [
        {"name": "bash", "arguments": {"command": "ls"}},
        {"name": "bash", "arguments": {"command": "rm -f notes.txt"}},
    ]
    with ScriptedServer([{"calls": calls}, {"text": "both done"}]) as server:
        (tmp_path / "work").mkdir()
        (tmp_path / "work" / "notes.txt").write_text("keep me\n")
        child = _spawn(tmp_path, server.url)
        child.sendline("list, then delete")
        child.expect(r"allow bash\? \[y/n/a")
        child.sendline("n")
        child.expect("both done")
        screen = _plain(child.before)
        _leave(child)
    refused = screen.index("✗ bash refused")
    after = screen[refused:]
    # ls's result comes after the refusal: its line is drawn again above it, so the refused call's
    # line never seems to have printed `[exit 0]`.
    assert re.search(r"✗ bash refused[^\n]*\n→ bash ls\n(  │ [^\n]*\n)*  │ \[exit 0\]", after), after
    assert (tmp_path / "work" / "notes.txt").exists()


def test_ctrl_c_at_a_question_ends_the_turn_and_the_model_is_not_asked_again(tmp_path: Path) -> None:
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]}, {"text": "later"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.sendline("make it")
        child.expect(r"allow bash\? \[y/n/a")
        child.sendcontrol("c")
        child.expect(r"\[aborted\]")
        assert len(server.requests) == 1  # the turn ended: no "no" went back to the model to ask again
        child.sendline("next")
        child.expect("later")
        _leave(child)
    results = [m for m in _messages(server.requests[1]) if m["role"] == "tool"]
    assert [r["content"] for r in results] == [NOT_RUN]
    assert not (tmp_path / "work" / "made.txt").exists()


def test_ctrl_c_at_a_sub_agents_question_ends_the_whole_turn(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "task", "id": "t1", "arguments": {"prompt": "make the file"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]},
        {"text": "later"},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.sendline("delegate")
        child.expect(r"allow \[task 1: explore\] bash\? \[y/n/a")
        child.sendcontrol("c")
        child.expect(r"\[aborted\]")
        assert len(server.requests) == 2  # neither the sub-agent nor its parent went on
        child.sendline("next")
        child.expect("later")
        _leave(child)
    assert not (tmp_path / "work" / "made.txt").exists()


def test_a_long_question_is_wrapped_at_word_boundaries_to_the_terminal(tmp_path: Path) -> None:
    line = "rm -f " + " ".join(f"build/output-file-{n}.o" for n in range(6))
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": line}}]}, {"text": "ok"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url, columns=60)
        child.sendline("clean")
        child.expect(r"allow bash\?")
        question = _plain(child.before)
        child.sendline("n")
        child.expect("ok")
        _leave(child)
    said = question[question.index("? bash:") : question.index("  $ rm")].splitlines()
    assert said[0].startswith("? bash: `rm -f") and "deletes 6 files" in " ".join(said)
    assert len(said) > 2 and all(len(s) <= 60 for s in said), said
    names = [w.strip("`") for w in " ".join(s.strip() for s in said).split() if "/" in w]
    assert names == [f"build/output-file-{n}.o" for n in range(len(names))]  # no name broken
    assert not re.search(r"subset|vouch", question)


def test_a_collapsed_result_is_opened_whole_with_expand_and_ctrl_o(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "long.txt").write_text("".join(f"row {n}\n" for n in range(30)))
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": "cat long.txt"}}]}, {"text": "read it"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.sendline("read the file")
        child.expect(r"… 27 more lines \(/expand 1\)")
        child.expect("read it")
        child.sendline("/expand 1")
        child.expect("row 17")
        child.expect(r"\[exit 0\]")
        child.sendcontrol("o")
        child.expect("row 23")
        child.sendline("/expand 9")
        child.expect(r"no collapsed result 9 \(results 1 to 1 are kept\)")
        _leave(child)


def test_a_running_commands_output_is_shown_as_it_runs(tmp_path: Path) -> None:
    line = "sh -c 'echo halfway there; while [ ! -e go ]; do sleep 0.05; done; echo finished'"
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": line}}]}, {"text": "it ended"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.sendline("run it")
        child.expect(r"allow bash\?")
        child.sendline("y")
        child.expect("│ halfway there")  # on the spinner's line, while the command still runs
        (tmp_path / "work" / "go").touch()
        child.expect("it ended")
        _leave(child)


def test_resume_shows_the_earlier_exchange_rendered(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedServer([{"text": "## Found it\n\nThe bug is in **parse**."}]) as server:
        argv = ["-p", "where is the bug?", "--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(argv, cwd=str(work), env=_env(tmp_path))[0] == 0
        until(lambda: list((tmp_path / "home" / ".bastion" / "sessions").glob("*.jsonl")), "the session")
        session_id = run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1].split()[0]
        child = _spawn(tmp_path, server.url, "--resume", session_id)
        child.expect(r"\(the conversation so far ends with\)")
        child.expect("The bug is in")
        shown = _plain(child.before + child.after + child.buffer)
        _leave(child)
    assert "Found it" in shown and "## Found it" not in shown and "**parse**" not in shown


_FRAME = re.compile(r"\r\x1b\[2K([⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [^\r]*)")


def test_at_60_columns_the_spinner_keeps_to_one_row_and_help_and_errors_break_between_words(
    tmp_path: Path,
) -> None:
    words = "output that is longer than the terminal is wide " * 3
    line = f"sh -c 'echo {words}; while [ ! -e go ]; do sleep 0.05; done; echo finished' # " + "x" * 80
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": line}}]}, {"text": "it ended"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url, columns=60)
        child.logfile_read = drawn = io.StringIO()  # everything the terminal was sent, from here on
        child.sendline("/help")
        child.expect("Tab completes a slash command.")
        shown = _plain(child.before).splitlines()
        child.sendline("/no-such-command")
        child.expect(r"starts with /\)")
        shown += _plain(child.before).splitlines()
        child.sendline("run it")
        child.expect(r"allow bash\?")
        child.sendline("y")
        child.expect("│ output that")  # the spinner shows the command's last line as it runs
        (tmp_path / "work" / "go").touch()
        child.expect("it ended")
        _leave(child)
    said = [s for s in shown if s.strip() and not s.startswith(">")]
    assert said and all(len(s) <= 60 for s in said), said
    assert "unknown command /no-such-command (/help lists them; // sends a line that" in " ".join(
        " ".join(said).split()
    )
    frames = _FRAME.findall(drawn.getvalue())
    assert frames and all(len(f) <= 59 and "\n" not in f for f in frames), frames

"""The client in a real pseudo-terminal: it is the default there (and only there), it draws each
frame as one synchronized update where the terminal offers it (no flicker), and when it leaves it
prints what it held while it had the screen, then the command that resumes the session."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from tests.agent.scripted_server import ScriptedServer
from tests.agent.test_scenarios import _env
from tests.waits import PATIENCE, until

CODE = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"


def _spawn(tmp: Path, url: str, *extra: str, **env: str) -> pexpect.spawn:
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    return pexpect.spawn(
        sys.executable,
        ["-c", CODE, "--provider", "openai", "--base-url", url + "/v1", *extra],
        cwd=str(work),
        env={**os.environ, **_env(tmp), "TERM": "xterm-256color", **env},
        encoding="utf-8",
        timeout=PATIENCE,
        dimensions=(24, 80),
    )


def test_on_a_terminal_the_client_runs_and_leaves_the_held_warnings_then_the_resume_command(
    tmp_path: Path,
) -> None:
    (tmp_path / "work" / ".bastion").mkdir(parents=True)
    (tmp_path / "work" / ".bastion" / "config.toml").write_text("[policy]\n")
    with ScriptedServer([{"text": "hello from the model"}]) as server:
        child = _spawn(tmp_path, server.url, "--no-project-config")
        child.expect_exact("a prompt (F1: every key)")  # the client's prompt: the client has the screen
        child.send("hi\r")
        child.expect_exact("hello from the model")
        until(lambda: len(server.requests) == 1, "the prompt's request")
        child.send("\x03")  # Ctrl-C, idle: leave
        child.expect(r"\.bastion/config\.toml is not read \(--no-project-config\)")
        child.expect(r"To resume this session: bastion --resume (\S+)")
        session_id = child.match.group(1)
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    assert (tmp_path / "home" / ".bastion" / "sessions" / f"{session_id}.jsonl").exists()


def test_each_frame_is_one_synchronized_update_where_the_terminal_offers_it(tmp_path: Path) -> None:
    with ScriptedServer([]) as server:
        child = _spawn(tmp_path, server.url)
        child.expect_exact("\x1b[?2026$p")  # asked whether the terminal has synchronized output
        child.send("\x1b[?2026;2$y")  # it has (mode 2026 known, reset)
        child.expect_exact("a prompt (F1: every key)")
        child.send("x")  # a change to draw
        child.expect_exact("\x1b[?2026h")
        child.expect_exact("\x1b[?2026l")
        child.send("\x03")  # clears the prompt
        child.send("\x03")  # leaves
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0


def test_the_repl_stays_a_flag_away_and_the_client_needs_a_terminal(tmp_path: Path) -> None:
    with ScriptedServer([]) as server:
        child = _spawn(tmp_path, server.url, "--front", "repl", PROMPT_TOOLKIT_NO_CPR="1")
        child.expect_exact("/help for commands")  # the line REPL's banner
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
        piped = pexpect.spawn(
            "bash",
            [
                "-c",
                f"{sys.executable} -c '{CODE}' --front client --provider openai "
                f"--base-url {server.url}/v1 </dev/null",
            ],
            cwd=str(tmp_path / "work"),
            env={**os.environ, **_env(tmp_path), "TERM": "xterm-256color"},
            encoding="utf-8",
            timeout=PATIENCE,
        )
        piped.expect_exact("--front client needs a terminal")
        piped.expect(pexpect.EOF)
        piped.close()
    assert child.exitstatus == 0 and piped.exitstatus == 2

"""The command line: --version, -p - and an empty -p, a mistyped subcommand, every flag explained;
where -p asks when its input is piped."""

from __future__ import annotations

import importlib.metadata
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from bastion import cli
from bastion.agent.front import NO_TERMINAL
from tests.waits import PATIENCE

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env


def _run(tmp_path: Path, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return run_main(argv, cwd=str(work), env=_env(tmp_path), stdin=stdin)


def test_version_prints_the_installed_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The agent's parser (`--version` among other flags) and the command itself (`--version` alone,
    answered before the agent loads) print the same: the installed version."""
    installed = f"bastion {importlib.metadata.version('bastion')}\n"
    code, out, _ = _run(tmp_path, ["--version", "--model", "m"])
    assert code == 0 and out == installed
    assert cli.main(["--version"]) == 0 and capsys.readouterr().out == installed


def test_p_dash_reads_the_prompt_from_standard_input(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "reviewed"}]) as server:
        argv = ["-p", "-", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, _ = _run(tmp_path, argv, stdin="review this diff\n+x = 1\n")
    assert code == 0 and out == "reviewed\n"
    assert server.requests[0]["body"]["messages"][-1]["content"] == "review this diff\n+x = 1\n"


def test_an_empty_prompt_is_a_usage_error_and_sends_nothing(tmp_path: Path) -> None:
    for argv, stdin in ((["-p", ""], ""), (["-p", "  "], ""), (["-p", "-"], "\n")):
        code, out, err = _run(tmp_path, argv, stdin)
        assert code == 2 and out == "" and "-p needs a prompt" in err


def test_a_mistyped_subcommand_suggests_the_right_one(tmp_path: Path) -> None:
    code, _, err = _run(tmp_path, ["chek", "ls"])
    assert code == 2 and "did you mean `bastion check`?" in err
    code, _, err = _run(tmp_path, ["fix", "the", "bug"])
    assert code == 2 and 'a prompt goes after -p: bastion -p "fix ..."' in err


def test_every_flag_has_a_help_line() -> None:
    # private: the flags' parser itself is the thing tested (every flag has a help line)
    from bastion.agent._main import _parser

    missing = [a.option_strings for a in _parser()._actions if a.option_strings and not a.help]
    assert missing == []


def test_piped_input_is_added_after_a_prompt_given_with_p(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "reviewed"}]) as server:
        argv = ["-p", "review this", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = _run(tmp_path, argv, stdin="commit 1\n+x = 1\n")
    assert code == 0 and out == "reviewed\n", err
    assert server.requests[0]["body"]["messages"][-1]["content"] == "review this\n\ncommit 1\n+x = 1\n"


def test_an_empty_prompt_with_piped_input_is_still_a_usage_error(tmp_path: Path) -> None:
    code, out, err = _run(tmp_path, ["-p", "", "--provider", "openai"], stdin="some input\n")
    assert code == 2 and out == "" and "-p needs a prompt (it is empty)" in err


def test_yes_to_stdin_reads_answers_there_and_never_makes_them_the_prompt(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
        {"text": "done"},
    ]
    with ScriptedServer(rounds) as server:
        argv = [
            "-p",
            "write it",
            "--yes-to",
            "stdin",
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
        ]
        code, _, err = _run(tmp_path, argv, stdin="y\n")
    assert code == 0, err
    assert server.requests[0]["body"]["messages"][-1]["content"] == "write it"
    assert (tmp_path / "work" / "out.txt").read_text() == "hi\n"
    code, _, err = _run(tmp_path, ["-p", "-", "--yes-to", "stdin"], stdin="prompt\n")
    assert code == 2 and "both read standard input" in err


def test_with_the_prompt_piped_in_a_question_is_refused_not_answered_by_the_input(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
        {"text": "ok"},
    ]
    with ScriptedServer(rounds) as server:
        argv = ["-p", "write it", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, _, err = _run(tmp_path, argv, stdin="y\n")
    assert code == 0, err
    assert not (tmp_path / "work" / "out.txt").exists()
    # The tests run with no controlling terminal (conftest): the refusal says why.
    assert f"n ({NO_TERMINAL})" in err


_WRITE_ROUNDS: list[dict[str, object]] = [
    {"calls": [{"name": "write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
    {"text": "done"},
]
_MAIN = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"


def _piped_command(url: str) -> list[str]:
    """`printf ... | bastion -p "write it"` as argv for a program run with the environment of _env."""
    bastion = shlex.join(
        [sys.executable, "-c", _MAIN, "-p", "write it", "--provider", "openai", "--base-url", url + "/v1"]
    )
    return ["bash", "-c", f"printf 'commit 1\\n' | {bastion}"]


def test_with_input_piped_a_question_is_asked_on_the_controlling_terminal(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedServer(_WRITE_ROUNDS) as server:
        command = _piped_command(server.url)
        child = pexpect.spawn(
            command[0],
            command[1:],
            cwd=str(work),
            env={**os.environ, **_env(tmp_path), "TERM": "xterm"},
            encoding="utf-8",
            timeout=PATIENCE,
        )
        child.expect(r"allow write\? \[y/N\]")
        child.sendline("y")
        child.expect("done")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    assert (work / "out.txt").read_text() == "hi\n"
    # The pipe is the prompt's, the answer is not.
    assert server.requests[0]["body"]["messages"][-1]["content"] == "write it\n\ncommit 1\n"


def test_with_input_piped_and_no_controlling_terminal_a_question_is_refused_saying_why(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedServer(_WRITE_ROUNDS) as server:
        done = subprocess.run(
            _piped_command(server.url),
            cwd=str(work),
            env={**os.environ, **_env(tmp_path)},
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            start_new_session=True,
        )
    assert done.returncode == 0, done.stderr
    assert f"allow write? [y/N] n ({NO_TERMINAL})" in done.stderr
    assert not (work / "out.txt").exists()
    assert "no answer (end of input)" in server.requests[1]["body"]["messages"][-1]["content"]


def test_an_unknown_config_key_suggests_the_right_one_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('provider = "openai"\nmodle = "gpt-5"\n')
    code, _, err = _run(tmp_path, ["-p", "hi"])
    assert code == 1 and err == f"bastion: {config}: modle: unknown field; did you mean model?\n"


def test_a_pipe_left_open_says_what_p_waits_for(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"
    with ScriptedServer([{"text": "reviewed"}]) as server:
        argv = ["-p", "review this", "--provider", "openai", "--base-url", server.url + "/v1"]
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *argv],
            cwd=work,
            env={**os.environ, **_env(tmp_path)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stderr is not None
        assert "waiting for standard input to add to the prompt" in proc.stderr.readline()
        out, _ = proc.communicate("late input\n", timeout=PATIENCE)
    assert proc.returncode == 0 and out == "reviewed\n"
    assert server.requests[0]["body"]["messages"][-1]["content"] == "review this\n\nlate input\n"


def test_the_help_names_every_subcommand() -> None:
    # private: the parser's help is the thing tested
    from bastion.agent._main import SUBCOMMANDS, _parser

    shown = _parser().format_help()
    assert [name for name in SUBCOMMANDS if name not in shown] == []


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--resume"], "--resume without an ID lists the sessions in the terminal client"),
        (["--front", "client"], "--front client needs a terminal"),
        (["--front", "client", "-p", "hi"], "--front client and -p are two fronts"),
        (["--resume", "--continue"], "--continue resumes the latest session"),
    ],
    ids=[
        "resume-without-an-id-off-a-terminal",
        "client-off-a-terminal",
        "client-and-p",
        "resume-and-continue",
    ],
)
def test_a_front_that_cannot_run_what_the_flags_ask_is_a_usage_error_and_makes_no_session(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    with ScriptedServer([]) as server:
        code, out, err = run_main(
            [*argv, "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=str(tmp_path),
            env=_env(tmp_path),
        )
    assert code == 2 and said in err and not server.requests
    assert not (tmp_path / "home" / ".bastion" / "sessions").exists()

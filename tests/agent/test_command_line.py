"""The command line: --version, -p - and an empty -p, a mistyped subcommand, every flag explained."""

from __future__ import annotations

from pathlib import Path

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env


def _run(tmp_path: Path, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return run_main(argv, cwd=str(work), env=_env(tmp_path), stdin=stdin)


def test_version_prints_the_installed_version(tmp_path: Path) -> None:
    code, out, _ = _run(tmp_path, ["--version"])
    assert code == 0 and out.startswith("bastion ") and out.strip() != "bastion"


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
    from bastion.agent._main import _parser

    missing = [a.option_strings for a in _parser()._actions if a.option_strings and not a.help]
    assert missing == []

"""`bastion mcp serve` driven by the SDK's own client over stdio: `check` answers exactly what
`bastion check --json` prints, `explain` what `check --explain` prints, bad requests are the tool's
error, and nothing is ever run."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from bastion.cli import check


def _check_json(
    config: str, cwd: str, line: str | None = None, tool: str = "bash", path: str | None = None
) -> dict[str, Any]:
    out = io.StringIO()
    argv = ["--json", "--config", config, "--cwd", cwd, "--tool", tool]
    argv += ["--path", path] if path is not None else []
    argv += ["--", line] if line is not None else []
    check(argv, out=out, err=io.StringIO())
    found: dict[str, Any] = json.loads(out.getvalue())
    return found


def _explain(config: str, cwd: str, line: str) -> str:
    out = io.StringIO()
    check(["--explain", "--config", config, "--cwd", cwd, "--", line], out=out, err=io.StringIO())
    return out.getvalue()


async def _session(config: str, cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, bool]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bastion", "mcp", "serve", "--config", config, "--cwd", str(cwd)],
        env={"PATH": os.environ["PATH"], "HOME": str(cwd.parent)},  # outside: rule 118
    )
    answers = []
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = await session.list_tools()
            answers.append((",".join(sorted(t.name for t in listed.tools)), False))
            for name, args in calls:
                result = await session.call_tool(name, args)
                text = "".join(getattr(block, "text", "") for block in result.content)
                answers.append((text, bool(result.is_error)))
    return answers


def _serve(config: str, cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, bool]]:
    return anyio.run(_session, config, cwd, calls)


def _without_time(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "elapsed_us"}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / ".env").write_text("KEY=1\n")
    return tmp_path


def test_check_and_explain_answer_as_the_check_command_does_and_nothing_runs(work: Path) -> None:
    config = work / "config.toml"
    config.write_text('[policy]\nallow = ["mcp(docs:*)"]\ndeny = ["bash(rm:*)"]\n')
    cfg = str(config)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("check", {"line": "cat notes.txt | head -1"}),
        ("check", {"line": "cat .env"}),
        ("check", {"line": "rm -rf notes.txt"}),
        ("check", {"line": "touch made.txt"}),
        ("check", {"tool": "read", "args": {"path": "notes.txt"}}),
        ("check", {"tool": "mcp__docs__search", "args": {"query": "x"}}),
        ("check", {"line": "ls", "cwd": str(work)}),
        ("explain", {"line": "cat .env"}),
    ]
    listed, *answers = _serve(cfg, work, calls)
    assert listed == ("check,explain", False)
    assert all(not error for _, error in answers)
    got = [_without_time(json.loads(text)) for text, _ in answers[:7]]
    want = [
        _check_json(cfg, str(work), "cat notes.txt | head -1"),
        _check_json(cfg, str(work), "cat .env"),
        _check_json(cfg, str(work), "rm -rf notes.txt"),
        _check_json(cfg, str(work), "touch made.txt"),
        _check_json(cfg, str(work), tool="read", path="notes.txt"),
    ]
    assert got[:5] == [_without_time(w) for w in want]
    assert [g["decision"] for g in got] == ["allow", "ask", "deny", "ask", "allow", "allow", "allow"]
    assert got[2]["rule"] == "bash(rm:*)" and got[2]["source"] == f"user:{cfg}"
    assert got[5]["rule"] == "mcp(docs:*)" and got[0]["reads"] == ["notes.txt"] and got[0]["plan"]
    assert answers[7][0] == _explain(cfg, str(work), "cat .env")
    assert sorted(p.name for p in work.iterdir()) == [".env", "config.toml", "notes.txt"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "give `line` (a bash line) or `tool` with `args`"),
        ({"line": "ls", "tool": "read", "args": {"path": "x"}}, "not both"),
        ({"line": "ls", "cwd": "relative"}, "`cwd` must be an absolute directory path"),
        ({"line": "ls", "cwd": "/nonexistent/dir"}, "is not a directory"),
    ],
)
def test_a_request_that_cannot_be_decided_is_the_tools_error(
    work: Path, args: dict[str, Any], message: str
) -> None:
    _, (text, error) = _serve(os.devnull, work, [("check", args)])
    assert error and message in text


def test_under_a_config_that_cannot_be_used_every_call_is_denied_naming_its_error(work: Path) -> None:
    config = work / "bad.toml"
    config.write_text('[policy]\nallow = ["mcp(docs)"]\n')
    _, (text, error) = _serve(str(config), work, [("check", {"line": "ls"})])
    answer = json.loads(text)
    assert not error and answer["decision"] == "deny" and answer["source"] == "config"
    assert "policy.allow[0]" in answer["config_error"] and "mcp_specifier" in answer["config_error"]


def test_serve_outside_a_directory_is_a_usage_error(tmp_path: Path) -> None:
    from bastion.cli import main

    with contextlib.redirect_stderr(io.StringIO()) as err:
        assert main(["mcp", "serve", "--cwd", str(tmp_path / "missing")]) == 2
    assert "not a directory" in err.getvalue()

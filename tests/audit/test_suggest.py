"""`bastion audit --suggest`: the narrowest rules, their counts and warnings, valid TOML that makes
the asked calls run, and never an allow for a secret path or a line outside the subset."""

from __future__ import annotations

import tomllib

from bastion.audit import audit_main

from .conftest import FIXTURES, Workspace, run


def _suggest(ws: Workspace, *files: str) -> str:
    code, out, err = run(audit_main, ["--config", str(ws.config), "--cwd", str(ws.root), "--suggest", *files])
    assert code in (0, 1), err
    return out


def _history(ws: Workspace, *lines: str) -> str:
    path = ws.root.parent / "h.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _allow(toml: str) -> list[str]:
    return list(tomllib.loads(toml).get("policy", {}).get("allow", []))


def test_only_make_test_seen_gives_make_test_not_make(ws: Workspace) -> None:
    out = _suggest(ws, _history(ws, "make test", "make test", "git status"))
    assert _allow(out) == ["bash(make test:*)"]
    assert '"bash(make test:*)",  # 2 calls' in out
    assert "# seen only as `make test`" in out


def test_each_subcommand_gets_its_own_rule_and_a_runner_keeps_its_script_name(ws: Workspace) -> None:
    out = _suggest(
        ws, _history(ws, "make test", "make lint", "npm run build", "npm run build --prod", "pytest -x")
    )
    assert sorted(_allow(out)) == [
        "bash(make lint:*)",
        "bash(make test:*)",
        "bash(npm run build:*)",
        "bash(pytest -x)",
    ]
    assert "seen only as `npm run build`" not in out


def test_a_command_without_a_subcommand_gets_the_exact_lines_until_there_are_many(ws: Workspace) -> None:
    out = _suggest(ws, _history(ws, "rm -rf build", "pytest -x tests", "pytest -q", "jq -r .a x.json"))
    assert sorted(_allow(out)) == [
        "bash(jq -r .a x.json)",
        "bash(pytest -q)",
        "bash(pytest -x tests)",
        "bash(rm -rf build)",
    ]
    many = [f"pytest -k case{i}" for i in range(5)] + [f"rm -f tmp{i}" for i in range(5)]
    out = _suggest(ws, _history(ws, *many))
    assert "bash(pytest:*)" in _allow(out) and "bash(rm:*)" not in _allow(out)
    assert sorted(r for r in _allow(out) if r.startswith("bash(rm")) == [
        f"bash(rm -f tmp{i})" for i in range(5)
    ]
    assert "# warning: allows pytest with any arguments at all (seen with 5 different ones)" in out


def test_a_rule_for_a_command_that_runs_code_carries_a_warning(ws: Workspace) -> None:
    out = _suggest(
        ws, _history(ws, "make test", "./scripts/deploy.sh --dry", "jq . data.json", "curl -s x.org")
    )
    assert any("# warning: curl reaches the network" in line for line in out.splitlines())
    lines = out.splitlines()
    make = lines.index(next(line for line in lines if line.strip().startswith('"bash(make test:*)"')))
    assert lines[make + 1].strip().startswith("# warning: make runs code the repository controls")
    assert any("# warning: ./scripts/deploy.sh is a program from the directory" in line for line in lines)
    jq = lines.index(next(line for line in lines if line.strip().startswith('"bash(jq . data.json)"')))
    assert "warning" not in lines[jq + 1]


def test_never_a_rule_for_a_secret_path_or_a_line_outside_the_subset(ws: Workspace) -> None:
    lines = (
        "cat .env",
        "echo $(id)",
        "make test > log",
        "cat /etc/passwd",
        "make test",
        "python3 -c 'import os'",
        "sh",
    )
    out = _suggest(ws, _history(ws, *lines))
    assert _allow(out) == ["bash(make test:*)"]
    assert all(not r.startswith(("bash(cat", "read", "bash(echo")) and r != "bash" for r in _allow(out))
    assert "#        1  secret path .env*" in out
    assert "#        1  outside the subset at `$(`" in out
    assert "#        1  outside the subset at `>`" in out
    assert "#        1  cat refused by its checker" in out
    assert "#        1  no narrow rule for python3" in out and "#        1  no narrow rule for sh" in out


def test_file_tool_calls_get_exact_path_rules(ws: Workspace) -> None:
    out = _suggest(ws, str(ws.fixture("claude_transcript.jsonl")))
    assert sorted(_allow(out)) == ["bash(make test:*)", "edit(src/app.py)"]
    assert "secret path .env*" in out
    assert (
        "#        1  no narrow rule for sh" in out
    )  # `curl ... | sh` is in the subset, but sh runs anything


def test_pasting_the_suggestion_lets_exactly_the_coverable_asked_calls_run(ws: Workspace) -> None:
    history = _history(
        ws, "make test", "npm run build", "go test ./...", "cat .env", "echo $(id)", "git status"
    )
    out = _suggest(ws, history)
    ws.config.write_text(out)
    code, after, _ = run(
        audit_main, ["--config", str(ws.config), "--cwd", str(ws.root), "--summary", history]
    )
    assert code == 0
    assert "6 calls: 4 run unasked, 2 ask, 0 denied" in after
    assert "secret path .env*" in after and "outside the subset at `$(`" in after


def test_with_nothing_asked_there_is_nothing_to_suggest(ws: Workspace) -> None:
    out = _suggest(ws, str(FIXTURES / "history.txt").replace("history.txt", "bash_history"))
    assert _allow(out) == ["bash(make test:*)"]
    out = _suggest(ws, _history(ws, "git status", "ls"))
    assert "# No allow rule to suggest." in out and tomllib.loads(out) == {}


def test_an_asked_mcp_call_gets_the_rule_for_that_one_tool(ws: Workspace) -> None:
    import json

    calls = ws.root.parent / "calls.jsonl"
    lines = [
        {"tool": "mcp__docs__search", "args": {"query": "a"}, "cwd": str(ws.root)},
        {"tool": "mcp__docs__search", "args": {"query": "b"}, "cwd": str(ws.root)},
        {"tool": "mcp__docs__a__b", "args": {}, "cwd": str(ws.root)},
    ]
    calls.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = _suggest(ws, str(calls))
    assert _allow(out) == ["mcp(docs:search)"]
    assert '"mcp(docs:search)",  # 2 calls' in out

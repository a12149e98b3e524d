"""Your rules for one project (`[projects."DIR".policy]` in your own config): applied where the
workspace's root is DIR (as given or with its links resolved) and nowhere else, by the agent and by
every dry-run (check, the hooks), cited where they were written; a project's own file can never
hold such a scope."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from bastion.audit import claude_code_hook
from bastion.cli import check
from bastion.policy import (
    PROJECT_CONFIG,
    ConfigError,
    Decision,
    ProjectConfigError,
    Subject,
    load_settings,
)
from bastion.workspace import LocalWorkspace


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    work, other = tmp_path / "work", tmp_path / "other"
    work.mkdir()
    other.mkdir()
    return work, other


def _user(tmp_path: Path, text: str) -> str:
    path = tmp_path / "user.toml"
    path.write_text(text)
    return str(path)


def _scope(root: Path, *, allow: str = "", deny: str = "") -> str:
    return f"[projects.{json.dumps(str(root))}.policy]\nallow = [{allow}]\ndeny = [{deny}]\n"


def _decide(root: Path, config: str, value: str) -> Decision:
    settings = load_settings(LocalWorkspace(str(root)), config)
    return settings.policy.decide([Subject("bash", value)]).decision


def test_a_scope_applies_in_its_directory_and_nowhere_else(tmp_path: Path) -> None:
    work, other = _dirs(tmp_path)
    config = _user(tmp_path, _scope(work, allow='"bash(make build:*)"'))
    assert _decide(work, config, "make build -j2") is Decision.ALLOW
    assert _decide(other, config, "make build -j2") is Decision.ASK
    assert _decide(work / ".." / "work", config, "make build") is Decision.ALLOW  # the same root, spelled so
    (work / "sub").mkdir()
    assert _decide(work / "sub", config, "make build") is Decision.ASK  # the root, not a directory below it


def test_a_scope_written_for_the_real_path_applies_through_a_link(tmp_path: Path) -> None:
    work, _ = _dirs(tmp_path)
    os.symlink(work, tmp_path / "link")
    config = _user(tmp_path, _scope(work, allow='"bash(make build:*)"'))
    assert _decide(tmp_path / "link", config, "make build") is Decision.ALLOW


def test_a_scope_cites_where_its_rule_was_written_and_its_deny_beats_your_allow(tmp_path: Path) -> None:
    work, _ = _dirs(tmp_path)
    text = '[policy]\nallow = ["bash(make:*)"]\n\n' + _scope(work, deny='"bash(make deploy:*)"')
    config = _user(tmp_path, text)
    verdict = load_settings(LocalWorkspace(str(work)), config).policy.decide([Subject("bash", "make deploy")])
    assert verdict.decision is Decision.DENY
    assert verdict.rule is not None and verdict.rule.where is not None
    assert verdict.rule.where.field == f"projects.{json.dumps(str(work))}.policy.deny[0]"
    assert verdict.rule.where.line == 6
    assert f"your config ({config}) for {work}" in verdict.reason


def test_two_entries_for_the_same_directory_are_an_error_naming_both(tmp_path: Path) -> None:
    work, _ = _dirs(tmp_path)
    again = f'[projects."{work}/".policy]\nallow = ["bash(b:*)"]\n'
    config = _user(tmp_path, _scope(work, allow='"bash(a:*)"') + again)
    with pytest.raises(ConfigError, match="name the same directory"):
        load_settings(LocalWorkspace(str(work)), config)


def test_a_scope_for_a_relative_directory_is_an_error_naming_it(tmp_path: Path) -> None:
    work, _ = _dirs(tmp_path)
    config = _user(tmp_path, '[projects."work".policy]\nallow = ["bash(make:*)"]\n')
    with pytest.raises(ConfigError, match=r"projects"):
        load_settings(LocalWorkspace(str(work)), config)


@pytest.mark.parametrize(
    "text",
    [
        '[projects."{root}".policy]\nallow = ["bash(make:*)"]\n',
        '[policy]\nask = ["bash(x:*)"]\n\n[projects."{root}".policy]\ndeny = ["bash(make:*)"]\n',
        'projects = {{ "{root}" = {{ policy = {{ ask = ["bash(make:*)"] }} }} }}\n',
    ],
)
def test_a_project_file_can_never_hold_a_scope(tmp_path: Path, text: str) -> None:
    work, _ = _dirs(tmp_path)
    (work / ".bastion").mkdir()
    (work / PROJECT_CONFIG).write_text(text.format(root=work))
    with pytest.raises(ProjectConfigError, match="a project file may not scope rules to a project"):
        load_settings(LocalWorkspace(str(work)), _user(tmp_path, ""))


def test_check_and_a_hook_read_the_scope_of_the_directory_they_decide_for(tmp_path: Path) -> None:
    work, other = _dirs(tmp_path)
    config = _user(tmp_path, _scope(work, allow='"bash(make build:*)"'))
    for where, expected in ((work, "allow"), (other, "ask")):
        out = io.StringIO()
        argv = ["--cwd", str(where), "--config", config, "--json", "--", "make build"]
        check(argv, stdin=io.StringIO(""), out=out, err=io.StringIO())
        assert json.loads(out.getvalue())["decision"] == expected
        payload = {
            "session_id": "s",
            "transcript_path": str(tmp_path / "t.jsonl"),
            "cwd": str(where),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "make build"},
        }
        answer = claude_code_hook(json.dumps(payload), config)
        decided = answer["hookSpecificOutput"]["permissionDecision"] if answer is not None else "ask"
        assert decided == expected

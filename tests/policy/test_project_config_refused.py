"""A project's `.bastion/config.toml` that tries to loosen anything is refused whole, wherever it is
read, and the refusal names the entry; a person can go on without it (`--no-project-config`, for
the agent and for `check`), a hook in another agent cannot: it keeps refusing (fail closed)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bastion.audit import claude_code_hook
from bastion.cli import check
from bastion.policy import PROJECT_CONFIG, ProjectConfigError, load_settings
from bastion.workspace import LocalWorkspace
from tests.agent.agent_fixtures import run_main
from tests.agent.scripted_server import ScriptedServer
from tests.agent.test_scenarios import _env

LOOSENING = {
    "allow": ('[policy]\nallow = ["bash(rm:*)"]\n', "policy.allow: a project file may not allow anything"),
    "fallback": ('[policy]\nfallback = "allow"\n', "policy.fallback: a project file may only make"),
    "sandbox": ('sandbox = "off"\n', 'sandbox: a project file may only set sandbox = "require"'),
    "pass_env": ('pass_env = ["AWS_SECRET"]\n', "pass_env: a project file may not set pass_env"),
}


def _project(tmp_path: Path, text: str) -> Path:
    work = tmp_path / "work"
    (work / ".bastion").mkdir(parents=True, exist_ok=True)
    (work / PROJECT_CONFIG).write_text(text)
    (work / "notes.txt").write_text("notes\n")
    return work


def _user_config(tmp_path: Path) -> str:
    path = tmp_path / "user.toml"
    path.write_text("")
    return str(path)


@pytest.mark.parametrize("entry", sorted(LOOSENING))
def test_a_loosening_entry_is_refused_naming_it_and_skipping_the_file_goes_on(
    tmp_path: Path, entry: str
) -> None:
    text, said = LOOSENING[entry]
    ws = LocalWorkspace(str(_project(tmp_path, text)))
    with pytest.raises(ProjectConfigError, match=said) as refused:
        load_settings(ws, _user_config(tmp_path))
    assert refused.value.path == str(tmp_path / "work" / PROJECT_CONFIG)
    settings = load_settings(ws, _user_config(tmp_path), project_config=False)
    assert all(PROJECT_CONFIG not in source for source in settings.sources)


def test_the_agent_refuses_to_start_says_how_to_go_on_and_goes_on_when_told(tmp_path: Path) -> None:
    work = _project(tmp_path, LOOSENING["allow"][0])
    env = _env(tmp_path)
    with ScriptedServer([{"text": "went on"}]) as server:
        base = ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(base, cwd=str(work), env=env)
        assert code == 1 and server.requests == []
        assert "policy.allow: a project file may not allow anything" in err
        assert "run `bastion --no-project-config`" in err and "Traceback" not in err
        code, out, err = run_main([*base, "--no-project-config"], cwd=str(work), env=env)
    assert code == 0, err
    assert out.strip() == "went on"
    assert f"bastion: {PROJECT_CONFIG} is not read (--no-project-config): none of its rules apply" in err


def test_without_the_project_config_its_tightening_is_gone_too(tmp_path: Path) -> None:
    # A project file that only tightens is applied; skipped, its ask rule no longer applies.
    work = _project(tmp_path, '[policy]\nask = ["read(notes.txt)"]\n')
    config = _user_config(tmp_path)
    ws = LocalWorkspace(str(work))
    asked = load_settings(ws, config)
    plain = load_settings(ws, config, project_config=False)
    assert len(asked.policy.layers) == len(plain.policy.layers) + 1


def _check(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = check(argv, stdin=io.StringIO(""), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_check_refuses_says_how_to_go_on_and_honours_the_flag(tmp_path: Path) -> None:
    work = _project(tmp_path, LOOSENING["allow"][0])
    config = _user_config(tmp_path)
    code, out, err = _check(["--cwd", str(work), "--config", config, "--", "cat notes.txt"])
    assert code == 2 and out == ""
    assert "policy.allow: a project file may not allow anything" in err
    assert "run `bastion check --no-project-config`" in err
    code, out, err = _check(
        ["--cwd", str(work), "--config", config, "--no-project-config", "--", "cat notes.txt"]
    )
    assert code == 0 and out.startswith("allow:") and err == ""
    code, out, err = _check(
        ["--cwd", str(work), "--config", config, "--no-project-config", "--json", "--", "rm -rf /"]
    )
    assert code in (3, 4) and json.loads(out)["decision"] in ("ask", "deny")


def test_a_hook_keeps_refusing_a_loosening_project_config(tmp_path: Path) -> None:
    work = _project(tmp_path, LOOSENING["allow"][0])
    payload = {
        "session_id": "s",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(work),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf notes.txt"},
    }
    answer = claude_code_hook(json.dumps(payload), _user_config(tmp_path))
    assert answer is not None
    spec = answer["hookSpecificOutput"]
    assert spec["permissionDecision"] != "allow"
    assert "policy.allow" in spec["permissionDecisionReason"]
    assert "--no-project-config" not in spec["permissionDecisionReason"]  # no way round it there

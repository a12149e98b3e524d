"""`bastion hook claude-code`: recorded PreToolUse payloads in, Claude Code's hook output out.
Allow only for what bastion allows; ask for anything unreadable; never a crash."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.audit import claude_code_hook, hook_main

from .conftest import PAYLOADS, Workspace, run

EXPECTED = {
    "bash_git_status": "allow",
    "bash_git_log_patch": "allow",
    "bash_make_test": "ask",
    "bash_substitution": "ask",
    "bash_rm": "ask",
    "bash_go_version": "ask",
    "read_readme": "allow",
    "read_env": "ask",
    "read_outside": "ask",
    "write_src": "ask",
    "edit_src": "ask",
    "glob_py": "allow",
    "glob_climbs_out": "ask",
    "grep_src": "allow",
    "ls_root": "allow",
    "bad_no_cwd": "ask",
    "bad_input_not_object": "ask",
    "bad_command_not_string": "ask",
    "bad_cwd_missing_dir": "ask",
    "bad_truncated": "ask",
}


def _payload(ws: Workspace, name: str) -> str:
    return (PAYLOADS / f"{name}.json").read_text(encoding="utf-8").replace("{WS}", str(ws.root))


def _hook(ws: Workspace, name: str, *argv: str) -> dict[str, Any] | None:
    code, out, err = run(
        hook_main, ["claude-code", "--config", str(ws.config), *argv], stdin=_payload(ws, name)
    )
    assert code == 0 and err == ""
    if not out:
        return None
    answer = json.loads(out)
    assert set(answer) == {"hookSpecificOutput"}
    spec = answer["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse"
    assert spec["permissionDecisionReason"].startswith("bastion: ")
    return dict(spec)


def test_every_recorded_payload_has_an_expectation() -> None:
    claude = {p.stem for p in PAYLOADS.glob("*.json") if not p.stem.startswith(("codex_", "gemini_"))}
    assert claude == {*EXPECTED, "webfetch"}


@pytest.mark.parametrize(("name", "decision"), sorted(EXPECTED.items()))
def test_a_recorded_payload_gets_the_decision_bastion_would_make(
    ws: Workspace, name: str, decision: str
) -> None:
    spec = _hook(ws, name)
    assert spec is not None and spec["permissionDecision"] == decision


def test_the_reason_is_bastions_own(ws: Workspace) -> None:
    spec = _hook(ws, "read_env")
    assert spec is not None
    assert spec["permissionDecisionReason"] == (
        'bastion: asks: read(ci:.env*) from builtin on ".env" (the path of read; a secret-looking path)'
    )
    spec = _hook(ws, "bash_substitution")
    assert spec is not None and spec["permissionDecisionReason"].startswith(
        "bastion: asks: `$(` at column 6: command substitution is outside the subset"
    )  # the question says why the line is outside the subset


def test_an_auto_allowed_line_that_bastion_would_rewrite_runs_as_its_plan(ws: Workspace) -> None:
    spec = _hook(ws, "bash_git_log_patch")
    assert spec is not None
    assert spec["updatedInput"] == {
        "command": "'git' 'log' '--no-ext-diff' '--no-textconv' '--ignore-submodules=all' '-p' '-3'",
        "description": "Recent commits with diffs",
    }
    status = _hook(ws, "bash_git_status")
    assert status is not None
    assert status["updatedInput"]["command"] == "'git' 'status' '--ignore-submodules=all'"


def test_a_repository_whose_git_config_runs_a_program_when_typed_asks(ws: Workspace) -> None:
    subprocess.run(["git", "-C", str(ws.root), "config", "core.fsmonitor", "/tmp/evil"], check=True)
    spec = _hook(ws, "bash_git_status")
    assert spec is not None and spec["permissionDecision"] == "ask"
    assert "core.fsmonitor" in spec["permissionDecisionReason"]


def test_the_users_rules_decide_allow_and_deny(ws: Workspace) -> None:
    ws.rules(allow=["bash(make test:*)"], deny=["bash(rm:*)"])
    allowed = _hook(ws, "bash_make_test")
    assert allowed is not None and allowed["permissionDecision"] == "allow" and "updatedInput" not in allowed
    denied = _hook(ws, "bash_rm")
    assert denied is not None and denied["permissionDecision"] == "deny"
    assert denied["permissionDecisionReason"].startswith("bastion: denied by bash(rm:*) from your config")


def test_a_tool_bastion_does_not_decide_passes_through_unless_asked_to_ask(ws: Workspace) -> None:
    assert _hook(ws, "webfetch") is None
    spec = _hook(ws, "webfetch", "--others", "ask")
    assert spec is not None and spec["permissionDecision"] == "ask"


def test_a_broken_config_asks_and_names_the_file(ws: Workspace) -> None:
    ws.config.write_text("[policy\n")
    spec = _hook(ws, "bash_git_status")
    assert (
        spec is not None
        and spec["permissionDecision"] == "ask"
        and str(ws.config) in spec["permissionDecisionReason"]
    )


def test_another_hook_event_passes_through(ws: Workspace) -> None:
    payload = json.dumps({"cwd": str(ws.root), "hook_event_name": "PostToolUse", "tool_name": "Bash"})
    assert claude_code_hook(payload, str(ws.config)) is None


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tool=st.sampled_from(["Bash", "Read", "Write", "Edit", "Glob", "Grep", "LS", "MultiEdit"]),
    tool_input=_JSON,
    event=st.sampled_from(["PreToolUse", None]),
)
def test_malformed_inputs_never_allow_and_never_raise(
    ws: Workspace, tool: str, tool_input: object, event: object
) -> None:
    payload: dict[str, object] = {"cwd": str(ws.root), "tool_name": tool, "tool_input": tool_input}
    if event is not None:
        payload["hook_event_name"] = event
    answer = claude_code_hook(json.dumps(payload), str(ws.config))
    assert answer is not None
    decision = answer["hookSpecificOutput"]["permissionDecision"]
    assert decision in ("ask", "deny") or (isinstance(tool_input, dict) and tool in ("Glob", "Grep", "LS"))


def test_the_installed_command_speaks_the_protocol_end_to_end(ws: Workspace) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bastion", "hook", "claude-code", "--config", str(ws.config)],
        input=_payload(ws, "read_env"), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"

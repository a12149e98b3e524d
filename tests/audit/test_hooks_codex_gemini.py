"""`bastion hook codex` and `bastion hook gemini`: recorded payloads in, a block, a plan or no opinion
out. A deny is passed on (an ask too with --strict); an allowed shell line is handed back as what
bastion would run (its plan), in each CLI's own fields; another allow, an unknown tool or unreadable
input is no opinion, never an allow of the typed line; never a crash, never a word on stdout
besides the JSON."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.audit import claude_code_hook, codex_hook, gemini_hook, hook_main

# Private: the hooks' verdict value and module are the seam tested (a monkeypatch).
from bastion.audit._hook import HookVerdict
from fuzz.hook_runs import as_the_cli_runs
from tests.waits import PATIENCE

from .conftest import PAYLOADS, ROLLOUT, Workspace, run

RULES = {"deny": ["bash(rm:*)", "write(.git/**)", "edit(.git/**)"]}

# payload -> (the answer with RULES, the answer with RULES and --strict): "deny", "allow" (the plan
# handed over) or None (no opinion)
EXPECTED: dict[str, tuple[str | None, str | None]] = {
    "codex_bash_rm": ("deny", "deny"),
    "codex_bash_cat_env": (None, "deny"),
    "codex_bash_git_status": ("allow", "allow"),
    "codex_bash_argv_script": ("deny", "deny"),
    "codex_bash_argv_plain": (None, None),
    "codex_apply_patch": ("deny", "deny"),
    "codex_bash_apply_patch_heredoc": ("deny", "deny"),
    "codex_mcp_tool": (None, None),
    "codex_bad_input_not_object": (None, None),
    "codex_bad_no_cwd": (None, None),
    "codex_bad_truncated": (None, None),
    "gemini_shell_rm": ("deny", "deny"),
    "gemini_shell_rm_in_dir": ("deny", "deny"),
    "gemini_shell_cat_env": (None, "deny"),
    "gemini_shell_git_status": ("allow", "allow"),
    "gemini_shell_dir_outside": (None, "deny"),
    "gemini_read_env": (None, "deny"),
    "gemini_read_env_file_path": (None, "deny"),
    "gemini_read_readme": (None, None),
    "gemini_replace_git_hook": ("deny", "deny"),
    "gemini_grep_include_climbs": (None, "deny"),
    "gemini_read_many_glob": (None, "deny"),
    "gemini_web_fetch": (None, None),
    "gemini_mcp_tool": (None, None),
    "gemini_bad_command_not_string": (None, None),
    "gemini_bad_truncated": (None, None),
}


def _payload(ws: Workspace, name: str) -> str:
    return (PAYLOADS / f"{name}.json").read_text(encoding="utf-8").replace("{WS}", str(ws.root))


class Answer(NamedTuple):
    """A hook's answer read back: deny (with the reason) or allow (with the command to run)."""

    decision: str
    text: str


def _read(agent: str, out: str) -> Answer | None:
    """A hook's standard output as an Answer, or None for no opinion; checks the protocol's shape."""
    if agent == "codex":
        if not out:
            return None
        answer = json.loads(out)
        assert out == json.dumps(answer) + "\n" and set(answer) == {"hookSpecificOutput"}
        spec = answer["hookSpecificOutput"]
        assert spec["hookEventName"] == "PreToolUse" and spec["permissionDecisionReason"].startswith(
            "bastion: "
        )
        if spec["permissionDecision"] == "allow":  # Codex 0.171 takes an allow only with updatedInput
            assert set(spec) == {
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
            }
            return Answer("allow", spec["updatedInput"]["command"])
        assert set(spec) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
        assert spec["permissionDecision"] == "deny"
        return Answer("deny", spec["permissionDecisionReason"])
    answer = json.loads(out)
    assert out == json.dumps(answer) + "\n"
    if answer == {}:
        return None
    assert answer["reason"].startswith("bastion: ")
    if answer["decision"] == "allow":
        assert set(answer) == {"decision", "reason", "hookSpecificOutput"}
        assert answer["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
        return Answer("allow", answer["hookSpecificOutput"]["tool_input"]["command"])
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny"
    return Answer("deny", answer["reason"])


def _answer(ws: Workspace, name: str, *argv: str) -> Answer | None:
    agent = name.split("_", 1)[0]
    code, out, err = run(hook_main, [agent, "--config", str(ws.config), *argv], stdin=_payload(ws, name))
    assert code == 0 and err == ""
    return _read(agent, out)


def _hook(ws: Workspace, name: str, *argv: str) -> str | None:
    """The reason the hook blocks with, or None when it does not block."""
    answer = _answer(ws, name, *argv)
    return answer.text if answer is not None and answer.decision == "deny" else None


def test_every_recorded_payload_has_an_expectation() -> None:
    recorded = {p.stem for p in PAYLOADS.glob("*.json") if p.stem.startswith(("codex_", "gemini_"))}
    assert recorded == set(EXPECTED)


@pytest.mark.parametrize(("name", "expected"), sorted(EXPECTED.items()))
def test_a_recorded_payload_is_blocked_only_where_bastion_denies_or_strict_asks(
    ws: Workspace, name: str, expected: tuple[str | None, str | None]
) -> None:
    ws.rules(**RULES)
    plain, strict = expected
    for argv, want in (((), plain), (("--strict",), strict)):
        answer = _answer(ws, name, *argv)
        assert (answer.decision if answer is not None else None) == want, (argv, answer)


@pytest.mark.parametrize("name", ["codex_bash_rm", "gemini_shell_rm"])
def test_without_a_deny_rule_a_command_bastion_asks_about_gets_no_opinion(ws: Workspace, name: str) -> None:
    assert _hook(ws, name) is None
    assert _hook(ws, name, "--strict") == 'bastion: asks: no rule allows bash "rm -rf src" (the command)'


def test_the_deny_reason_is_bastions_own(ws: Workspace) -> None:
    ws.rules(**RULES)
    denied = 'bastion: denied by bash(rm:*) from your config ({}) on "rm -rf src" (the command)'
    assert _hook(ws, "codex_bash_rm") == denied.format(ws.config)
    assert _hook(ws, "codex_bash_argv_script") == denied.format(ws.config)
    assert _hook(ws, "gemini_shell_rm") == denied.format(ws.config)
    secret = 'bastion: asks: Read(ci:.env*) from builtin on ".env" (the path of read; a secret-looking path)'
    assert _hook(ws, "gemini_read_env", "--strict") == secret


def test_a_patch_is_denied_by_a_write_rule_and_asks_only_with_strict(ws: Workspace) -> None:
    assert _hook(ws, "codex_apply_patch") is None  # both files ask: no opinion
    assert (
        _hook(ws, "codex_apply_patch", "--strict")
        == 'bastion: asks: no rule allows write "src/app.py" (the path of write)'
    )
    ws.rules(**RULES)
    reason = _hook(ws, "codex_apply_patch")
    assert reason is not None and '".git/hooks/pre-commit"' in reason and "write(.git/**)" in reason


def test_a_shell_command_is_decided_in_its_directory(ws: Workspace) -> None:
    ws.rules(deny=["read(src/**)"])
    payload = json.loads(_payload(ws, "gemini_shell_rm_in_dir"))
    cases = [("dir_path", "src", True), ("directory", "src", True), ("dir_path", ".", False)]
    for key, where, blocked in cases:
        call = {**payload, "tool_input": {"command": "cat app.py", key: where}}
        assert (gemini_hook(json.dumps(call), str(ws.config)).get("decision") == "deny") == blocked
    reason = _hook(ws, "gemini_shell_dir_outside", "--strict")
    assert reason == "bastion: the directory '../..' is outside the working directory"


@pytest.mark.parametrize("name", ["codex_bash_git_status", "gemini_shell_git_status"])
def test_an_allowed_git_line_is_handed_over_as_its_plan_and_that_plan_runs_no_hostile_config(
    ws: Workspace, name: str, tmp_path: pathlib.Path
) -> None:
    # Before issue 30 class 7 the hook gave no opinion and the CLI ran `git status` as typed: the
    # repository's core.fsmonitor ran. The plan the hook hands over, run as the CLI runs it, does not.
    marker = tmp_path / "fsmonitor-ran"
    spy = tmp_path / "spy.sh"
    spy.write_text(f"#!/bin/sh\ntouch {marker}\n")
    spy.chmod(0o755)
    subprocess.run(["git", "-C", str(ws.root), "config", "core.fsmonitor", str(spy)], check=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    agent = name.split("_", 1)[0]
    subprocess.run(as_the_cli_runs(agent, "git status"), cwd=ws.root, env=env, capture_output=True)
    assert marker.exists(), "the typed line runs no fsmonitor here: the test proves nothing"
    marker.unlink()
    for argv in ((), ("--strict",)):
        answer = _answer(ws, name, *argv)
        assert answer is not None and answer.decision == "allow" and "core.fsmonitor=false" in answer.text
        done = subprocess.run(as_the_cli_runs(agent, answer.text), cwd=ws.root, env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
        assert not marker.exists()


def test_a_line_your_rule_allows_is_handed_over_as_typed(ws: Workspace) -> None:
    ws.rules(allow=["bash(make test:*)"])
    for agent, event, tool in (
        ("codex", "PreToolUse", "Bash"),
        ("gemini", "BeforeTool", "run_shell_command"),
    ):
        payload = {
            "cwd": str(ws.root),
            "hook_event_name": event,
            "transcript_path": str(ws.root.parent / ROLLOUT),
            "tool_name": tool,
            "tool_input": {"command": "make test", "description": "kept"},
        }
        code, out, err = run(hook_main, [agent, "--config", str(ws.config)], stdin=json.dumps(payload))
        assert code == 0 and err == ""
        assert _read(agent, out) == Answer("allow", "make test")
        if agent == "gemini":  # Gemini replaces the whole input: the other fields are kept
            assert json.loads(out)["hookSpecificOutput"]["tool_input"]["description"] == "kept"


def test_an_argument_vector_codex_cannot_rewrite_is_denied_not_run_as_typed(ws: Workspace) -> None:
    # An older Codex's ["bash", "-lc", SCRIPT]: Codex takes back only a string updatedInput.command.
    payload = json.loads(_payload(ws, "codex_bash_argv_script"))
    payload["tool_input"] = {"command": ["bash", "-lc", "git status"]}
    answer = _read("codex", json.dumps(codex_hook(json.dumps(payload), str(ws.config))) + "\n")
    assert answer is not None and answer.decision == "deny" and "argument vector" in answer.text


def test_a_plan_gemini_would_unwrap_is_denied(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    # Gemini CLI 0.61 takes a leading `bash -c` off a command (stripShellWrapper): such a plan would
    # not run as written. No plan bastion renders starts so today; the guard is on the hand-over.
    from bastion.audit import _hooks

    verdict = HookVerdict("allow", "allowed", "bash -c 'ls'")
    monkeypatch.setattr(_hooks, "_verdict", lambda *a, **k: (verdict, {"command": "ls"}))
    answer = _read("gemini", json.dumps(gemini_hook("{}", None)) + "\n")
    assert answer is not None and answer.decision == "deny" and "stripShellWrapper" in answer.text
    monkeypatch.setattr(
        _hooks, "_verdict", lambda *a, **k: (verdict._replace(rendered="ls"), {"command": "x"})
    )
    assert gemini_hook("{}", None)["hookSpecificOutput"]["tool_input"] == {"command": "ls"}


@pytest.mark.parametrize("claude", sorted(p.stem for p in PAYLOADS.glob("bash_*.json")))
def test_codex_decides_a_bash_call_as_the_claude_code_hook_does(ws: Workspace, claude: str) -> None:
    ws.rules(**RULES)
    text = _payload(ws, claude)
    answer = claude_code_hook(text, str(ws.config))
    assert answer is not None
    spec = answer["hookSpecificOutput"]
    decision = spec["permissionDecision"]
    # Codex names its rollout, whose session_meta says the session's directory.
    as_codex = json.dumps({**json.loads(text), "transcript_path": str(ws.root.parent / ROLLOUT)})
    codex = codex_hook(as_codex, str(ws.config))
    if decision == "allow":  # the same command to run: Claude Code's updatedInput, or the line
        typed = json.loads(text)["tool_input"]["command"]
        assert codex is not None and codex["hookSpecificOutput"]["permissionDecision"] == "allow"
        run_by_claude = spec.get("updatedInput", {}).get("command", typed)
        assert codex["hookSpecificOutput"]["updatedInput"]["command"] == run_by_claude
    else:
        assert codex == (answer if decision == "deny" else None)
    strict = codex_hook(as_codex, str(ws.config), strict=True)
    assert strict is not None and (strict == codex if decision != "ask" else True)
    assert strict["hookSpecificOutput"]["permissionDecision"] == ("allow" if decision == "allow" else "deny")


@pytest.mark.parametrize(
    "argv", [["claude-code", "--strict"], ["codex", "--others", "ask"], ["gemini", "--others", "ask"]]
)
def test_a_flag_for_another_agent_is_a_usage_error(ws: Workspace, argv: list[str]) -> None:
    code, out, err = run(hook_main, [*argv, "--config", str(ws.config)], stdin="{}")
    assert code == 2 and out == "" and "bastion hook:" in err


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)
_GEMINI_TOOLS = ["run_shell_command", "read_file", "write_file", "replace", "glob", "search_file_content",
                 "grep_search", "list_directory", "read_many_files"]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tool=st.sampled_from(["Bash", "apply_patch", *_GEMINI_TOOLS]),
    tool_input=_JSON,
    strict=st.booleans(),
)
def test_malformed_inputs_never_raise_and_never_allow(
    ws: Workspace, tool: str, tool_input: object, strict: bool
) -> None:
    codex: dict[str, object] = {"cwd": str(ws.root), "hook_event_name": "PreToolUse", "tool_name": tool}
    codex["tool_input"] = tool_input
    gemini = {**codex, "hook_event_name": "BeforeTool"}
    answer: Any = codex_hook(json.dumps(codex), str(ws.config), strict=strict)
    assert answer is None or answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    answer = gemini_hook(json.dumps(gemini), str(ws.config), strict=strict)
    assert answer == {} or answer["decision"] == "deny"


def test_another_hook_event_gets_no_opinion(ws: Workspace) -> None:
    ws.rules(**RULES)
    payload = {"cwd": str(ws.root), "tool_name": "Bash", "tool_input": {"command": "rm -rf src"}}
    assert codex_hook(json.dumps({**payload, "hook_event_name": "PostToolUse"}), str(ws.config)) is None
    assert gemini_hook(json.dumps({**payload, "hook_event_name": "AfterTool"}), str(ws.config)) == {}


@pytest.mark.parametrize(("agent", "name"), [("codex", "codex_bash_cat_env"), ("gemini", "gemini_read_env")])
def test_the_installed_command_speaks_the_protocol_end_to_end(ws: Workspace, agent: str, name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bastion", "hook", agent, "--strict", "--config", str(ws.config)],
        input=_payload(ws, name), capture_output=True, text=True, timeout=PATIENCE, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == "", done.stderr
    answer = json.loads(done.stdout)
    assert "deny" in (answer.get("decision"), answer.get("hookSpecificOutput", {}).get("permissionDecision"))


def _codex_at(
    ws: Workspace, cwd: str, command: str, rollout: str | None, *, strict: bool = True
) -> str | None:
    """The reason Codex's Bash call (run by Codex in cwd, its rollout at `rollout`) is blocked with,
    None when it is not ("allowed: COMMAND" when the plan is handed over)."""
    payload: dict[str, object] = {
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    if rollout is not None:
        payload["transcript_path"] = rollout
    said = codex_hook(json.dumps(payload), str(ws.config), strict=strict)
    answer = _read("codex", json.dumps(said) + "\n") if said is not None else None
    if answer is None or answer.decision == "deny":
        return None if answer is None else answer.text
    return "allowed: " + answer.text


def test_codex_decides_in_the_session_directory_not_in_the_workdir_the_model_chose(ws: Workspace) -> None:
    # Codex 0.171 sets the hook's cwd to the model's workdir: a directory beside the project must not
    # become the workspace (`cat notes.txt` there ran and reached the model).
    beside = ws.root.parent / "beside"
    beside.mkdir()
    (beside / "notes.txt").write_text("private\n")
    rollout = str(ws.root.parent / ROLLOUT)
    reason = _codex_at(ws, str(beside), "cat notes.txt", rollout)
    assert reason is not None and "outside the session's directory" in reason
    assert _codex_at(ws, "/", "cat etc/hostname", rollout) is not None
    # Inside the project, a subdirectory is where the line runs, and the project is the workspace.
    allowed = _codex_at(ws, str(ws.root / "src"), "cat app.py", rollout)  # the plan: cat by its path
    assert allowed is not None and allowed.startswith("allowed: '/") and allowed.endswith("/cat' 'app.py'")
    reason = _codex_at(ws, str(ws.root / "src"), "cat ../.env", rollout)
    assert reason is not None and not reason.startswith("allowed: ")


def test_a_codex_patch_path_is_taken_from_the_workdir_inside_the_session(ws: Workspace) -> None:
    ws.rules(deny=["write(src/**)"])
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n-print('hi')\n+print(2)\n*** End Patch"
    payload = {
        "cwd": str(ws.root / "src"),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "transcript_path": str(ws.root.parent / ROLLOUT),
        "tool_input": {"command": patch},
    }
    answer = codex_hook(json.dumps(payload), str(ws.config))
    assert answer is not None and "write(src/**)" in answer["hookSpecificOutput"]["permissionDecisionReason"]


def test_without_the_session_directory_codex_never_gets_an_allow_but_a_deny_still_denies(
    ws: Workspace,
) -> None:
    ws.rules(deny=["bash(rm:*)"])
    missing = str(ws.root.parent / "no-such-rollout.jsonl")
    link = ws.root.parent / "link.jsonl"
    link.symlink_to(ws.root.parent / ROLLOUT)  # a link is not followed
    other = ws.root.parent / "other.jsonl"
    other.write_text('{"type": "response_item", "payload": {}}\n')
    for rollout in (None, "relative.jsonl", missing, str(link), str(other)):
        assert _codex_at(ws, str(ws.root), "git status", rollout, strict=False) is None
        reason = _codex_at(ws, str(ws.root), "git status", rollout)
        assert reason is not None and "session's directory is not known" in reason
        reason = _codex_at(ws, str(ws.root), "rm -rf src", rollout, strict=False)
        assert reason is not None and "bash(rm:*)" in reason
    allowed = _codex_at(ws, str(ws.root), "git status", str(ws.root.parent / ROLLOUT))
    assert allowed is not None and allowed.startswith("allowed: 'unset' '-v' ")

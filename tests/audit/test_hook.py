"""`bastion hook claude-code`: recorded PreToolUse payloads in, Claude Code's hook output out.
Allow only for what bastion allows; ask for anything unreadable; never a crash."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.analyzer import probe_git
from bastion.audit import claude_code_hook, hook_main
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitrepo import GIT_ENV, git, make_repo, set_config, write
from tests.waits import PATIENCE

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
        'bastion: asks: Read(ci:.env*) from builtin on ".env" (the path of read; a secret-looking path)'
    )
    spec = _hook(ws, "bash_substitution")
    assert spec is not None and spec["permissionDecisionReason"].startswith(
        "bastion: asks: `$(` at column 6: command substitution is outside the subset"
    )  # the question says why the line is outside the subset


def test_an_auto_allowed_line_that_bastion_would_rewrite_runs_as_its_plan(ws: Workspace) -> None:
    spec = _hook(ws, "bash_git_log_patch")
    assert spec is not None
    assert set(spec["updatedInput"]) == {"command", "description"}
    assert spec["updatedInput"]["description"] == "Recent commits with diffs"
    command = spec["updatedInput"]["command"]
    assert command.startswith("'unset' '-v' ") and "'GIT_DIR'" in command
    assert "'-c' 'core.fsmonitor=false'" in command and "'--no-pager' '--no-optional-locks' 'log'" in command
    assert "'--no-ext-diff' '--no-textconv' '--ignore-submodules=all' '--no-notes' '-p' '-3' '--' " in command
    assert "':(top,exclude,icase,glob)**/.env*'" in command
    status = _hook(ws, "bash_git_status")
    assert status is not None
    # status opens tracked files to refresh the index: it carries the secret excludes (issue 30)
    command = status["updatedInput"]["command"]
    assert "'status' '--ignore-submodules=all' '--' ':(top,exclude,icase,glob)**/.env*'" in command


def test_a_repository_whose_git_config_runs_a_program_is_allowed_as_its_self_contained_plan(
    ws: Workspace,
) -> None:
    subprocess.run(["git", "-C", str(ws.root), "config", "core.fsmonitor", "/tmp/evil"], check=True)
    spec = _hook(ws, "bash_git_status")
    assert spec is not None and spec["permissionDecision"] == "allow"
    assert "'-c' 'core.fsmonitor=false'" in spec["updatedInput"]["command"]


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
        input=_payload(ws, "read_env"), capture_output=True, text=True, timeout=PATIENCE, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


# --- The plan in updatedInput runs in Claude Code's environment, not bastion's (issue 12, class 6) --
# A repository whose own config and hooks would run a program for every read-only form: the plan
# the hook hands over must run none of them in a plain environment, leave .git/index alone and
# print no secret.

_SPY = '#!/bin/sh\necho "$0" >> "{marker}"\ncat "$1" 2>/dev/null\nexit 0\n'
_PLAIN_FORMS = [
    "git status", "git status -s", "git diff", "git diff --stat", "git log", "git log -p", "git log --stat",
    "git show", "git show --stat HEAD", "git blame a.txt", "git stash list", "git shortlog -s HEAD",
    "git branch -v", "git describe --always", "git ls-files", "git tag -l", "git rev-parse HEAD",
]  # fmt: skip


def _hostile_repo(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """A repository with a tracked, modified .env, a signed-looking commit, and config that names a
    spy program for fsmonitor, hooks, the pager, signatures, external diffs and textconv."""
    marker = tmp_path / "ran"
    spy = tmp_path / "spy.sh"
    spy.write_text(_SPY.format(marker=marker))
    spy.chmod(0o755)
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n", ".env": "TOKEN=hunter2\n"})
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n"
    signed = git(repo, "cat-file", "commit", "HEAD").replace("\n\n", f"\n{signature}\n", 1)
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo, input=signed, text=True,
        capture_output=True, env=GIT_ENV, check=True,
    )  # fmt: skip
    git(repo, "update-ref", "HEAD", done.stdout.strip())
    write(repo, {".env": "TOKEN=hunter3\n", "a.txt": "two\n"})
    hooks = repo / "hooks"
    hooks.mkdir()
    for place in (hooks, repo / ".git" / "hooks"):
        for name in ("post-index-change", "post-checkout", "reference-transaction"):
            (place / name).write_text(_SPY.format(marker=marker))
            (place / name).chmod(0o755)
    for key, value in [
        ("core.fsmonitor", str(spy)), ("core.hooksPath", "hooks"), ("core.pager", str(spy)),
        ("log.showSignature", "true"), ("gpg.program", str(spy)),
    ]:  # fmt: skip
        set_config(repo, key, value)
    return repo, marker


def _executed(trace: pathlib.Path) -> set[str]:
    """The programs a strace log says were executed (successful execve calls)."""
    found = re.findall(r'execve\\("([^"]+)".*\\) = 0$', trace.read_text(), re.MULTILINE)
    return {os.path.basename(path) for path in found}


@pytest.mark.parametrize("line", ["git status", "git diff", "git log"])
def test_the_hostile_repository_runs_its_programs_and_prints_the_secret_when_typed(
    tmp_path: pathlib.Path, line: str
) -> None:
    repo, marker = _hostile_repo(tmp_path)
    plain = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    argv = ["bash", "-c", line]
    done = subprocess.run(argv, cwd=repo, env=plain, capture_output=True, text=True, check=False)
    assert marker.exists() and ("hunter" in done.stdout or line != "git diff")


def _steering(spy: str) -> dict[str, str]:
    """Variables another agent's environment could hold that make git run a program or write a file
    (GIT_TRACE: the trace file, next to the spy)."""
    return {
        "GIT_TRACE": f"{spy}.trace", "GIT_TRACE2_EVENT": f"{spy}.trace2",
        "GIT_EXTERNAL_DIFF": spy, "GIT_PAGER": spy, "PAGER": spy,
        "GIT_CONFIG_PARAMETERS": f"'core.pager'='{spy}'", "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": spy,
    }  # fmt: skip


@pytest.mark.parametrize("steered", [False, True], ids=["plain", "steered"])
@pytest.mark.parametrize("line", _PLAIN_FORMS)
def test_the_plan_handed_to_claude_code_runs_nothing_of_the_repositorys_in_a_plain_environment(
    tmp_path: pathlib.Path, line: str, steered: bool
) -> None:
    repo, marker = _hostile_repo(tmp_path)
    ws = LocalWorkspace(str(repo), env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert probe_git(ws, ".", strict=True), "the repository runs nothing as typed: the test proves nothing"
    config = tmp_path / "config.toml"
    config.write_text("")
    payload = {"cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": line}}  # fmt: skip
    answer = claude_code_hook(json.dumps(payload), str(config))
    assert answer is not None
    spec = answer["hookSpecificOutput"]
    assert spec["permissionDecision"] == "allow", spec["permissionDecisionReason"]
    command = spec["updatedInput"]["command"]
    home = tmp_path / "home"
    home.mkdir()
    index = repo / ".git" / "index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    plain = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C"}
    if steered:
        plain.update(_steering(str(tmp_path / "spy.sh")))
    argv = ["bash", "-c", command]
    trace = tmp_path / "trace"
    if shutil.which("strace"):
        argv = ["strace", "-f", "-qq", "-e", "trace=execve", "-o", str(trace), *argv]
    done = subprocess.run(
        argv, cwd=repo, env=plain, capture_output=True, text=True, timeout=PATIENCE, check=False
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()
    assert not list(tmp_path.glob("spy.sh.trace*"))
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert "hunter" not in done.stdout
    if trace.exists():
        assert _executed(trace) <= {"bash", "git"}

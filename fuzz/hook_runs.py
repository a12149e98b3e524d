"""How each CLI whose hook bastion answers runs a shell command after the hook allowed it: the
hook's answer read back as that CLI reads it, the argument vector it runs the command with, and the
environment it adds (issue 30 class 7). The execution oracle (execution.py) runs an allowed line
so; docs/integrations.md cites each CLI's source for what is here.

- Claude Code 2.1: `updatedInput.command` (else the line), with `bash -c`.
- Codex 0.171: an allow only with `updatedInput.command`, with `bash -lc` (the user's shell as a
  login shell), and its exec overlay (core/src/unified_exec/process_manager.rs, UNIFIED_EXEC_ENV).
- Gemini CLI 0.61: `hookSpecificOutput.tool_input.command` (else the line), after its shopt guard
  and inside its background-PID subshell, with `bash -c`, and its environment (GEMINI_CLI, its git
  overrides after the caller's GIT_CONFIG_* keys: services/shellExecutionService.ts,
  prepareExecution; tools/shell.ts, wrapCommandForBackgroundPIDs).
"""

from __future__ import annotations

import json
from pathlib import Path

from bastion.audit import claude_code_hook, codex_hook, gemini_hook
from bastion.policy import Decision

__all__ = ["HOOK_AGENTS", "as_the_cli_runs", "cli_env", "hook_answer"]

# The CLIs whose hook answers the runner executes as that CLI would (`agent=`).
HOOK_AGENTS = ("claude", "codex", "gemini")

# Gemini CLI 0.61 (packages/core/src/services/shellExecutionService.ts, tools/shell.ts): the guard
# put before every bash command, and the subshell that records background PIDs in a temporary file
# of Gemini's (here /dev/null: that write is Gemini's own, not the plan's).
_GEMINI_GUARD = "shopt -u promptvars nullglob extglob nocaseglob dotglob; "
_GEMINI_TRAP = "trap 'jobs -p > \"$_bgpids_file\"' EXIT"


def as_the_cli_runs(agent: str, command: str) -> list[str]:
    """The argument vector a CLI runs a shell command with (its last word the script)."""
    if agent == "codex":  # Codex 0.171: the user's shell as a login shell, `bash -lc CMD`
        return ["bash", "-lc", command]
    if agent == "gemini":
        wrapped = (
            f"_bgpids_file=/dev/null\n(\n  {_GEMINI_TRAP}\n{command.strip()}\n)\n__code=$?\nexit $__code"
        )
        return ["bash", "-c", _GEMINI_GUARD + wrapped]
    return ["bash", "-c", command]


# Codex 0.171's overlay on every exec_command (core/src/unified_exec/process_manager.rs,
# UNIFIED_EXEC_ENV); Gemini CLI 0.61's on every shell command (shellExecutionService.ts,
# prepareExecution): it keeps the caller's GIT_CONFIG_* keys and adds its own overrides after them.
_CODEX_ENV = {
    "NO_COLOR": "1", "TERM": "dumb", "LANG": "C.UTF-8", "LC_CTYPE": "C.UTF-8", "LC_ALL": "C.UTF-8",
    "COLORTERM": "", "PAGER": "cat", "GIT_PAGER": "cat", "GH_PAGER": "cat", "CODEX_CI": "1",
}  # fmt: skip
_GEMINI_GIT = (
    ("credential.helper", ""), ("core.fsmonitor", ""), ("core.hooksPath", ""), ("core.sshCommand", ""),
    ("core.pager", "cat"), ("core.editor", ""), ("sequence.editor", ""), ("diff.external", ""),
)  # fmt: skip


def cli_env(agent: str, base: dict[str, str]) -> dict[str, str]:
    """The environment a CLI runs a shell command in, made from the one it was started with."""
    if agent == "codex":
        return {**base, **_CODEX_ENV}
    if agent != "gemini":
        return dict(base)
    env = {**base, "GEMINI_CLI": "1", "TERM": "xterm-256color", "PAGER": "cat", "GIT_PAGER": "cat"}
    env.update(GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_SYSTEM="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    count = int(base.get("GIT_CONFIG_COUNT", "0") or "0")
    for i, (key, value) in enumerate(_GEMINI_GIT, count):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    env["GIT_CONFIG_COUNT"] = str(count + len(_GEMINI_GIT))
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="", SSH_ASKPASS="", GH_PROMPT_DISABLED="1")
    env.update(GCM_INTERACTIVE="never", DISPLAY="", DBUS_SESSION_BUS_ADDRESS="")
    return env


def hook_answer(agent: str, line: str, ws: Path, config: str, rollout: Path) -> tuple[Decision, str | None]:
    """What bastion's hook for `agent` answers of the Bash call `line` in the workspace `ws`, and the
    command the CLI then runs (None: none). Codex's session directory comes from the rollout it names
    (written at `rollout`)."""
    if agent == "claude":
        request = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(ws)}
        answer = claude_code_hook(json.dumps({**request, "tool_input": {"command": line}}), config) or {}
        said = answer.get("hookSpecificOutput", {})
        command, decision = said.get("updatedInput", {}).get("command", line), said.get("permissionDecision")
    elif agent == "codex":
        rollout.write_text(json.dumps({"type": "session_meta", "payload": {"cwd": str(ws)}}) + "\n")
        request = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(ws)}
        request["transcript_path"] = str(rollout)
        answer = codex_hook(json.dumps({**request, "tool_input": {"command": line}}), config) or {}
        said = answer.get("hookSpecificOutput", {})
        # Codex 0.171 takes an allow only with updatedInput (else the hook failed and the line runs)
        command, decision = said.get("updatedInput", {}).get("command"), said.get("permissionDecision")
    else:
        request = {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "cwd": str(ws)}
        answer = gemini_hook(json.dumps({**request, "tool_input": {"command": line}}), config)
        command = answer.get("hookSpecificOutput", {}).get("tool_input", {}).get("command", line)
        decision = answer.get("decision")
    verdicts = {"allow": Decision.ALLOW, "deny": Decision.DENY}
    found = verdicts.get(str(decision), Decision.ASK)
    return found, command if found is Decision.ALLOW and isinstance(command, str) else None

"""`bastion hook claude-code`: Claude Code's PreToolUse hook answered by bastion's policy.

Claude Code sends one JSON object on standard input (session_id, transcript_path, cwd,
hook_event_name, tool_name, tool_input) and reads one on standard output:

    {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow" | "ask" |
     "deny", "permissionDecisionReason": "...", "updatedInput": {...}}}

Bash, Read, Write, Edit and NotebookEdit are decided (and the Glob, Grep, LS and MultiEdit of older
Claude Codes, should they come; 2.1 has none of them); another tool is passed through (no output:
Claude Code's own permissions decide) unless `others="ask"`. Input that
cannot be read asks. Claude Code runs a command in its own environment, not in bastion's
neutralised one, so an auto-allowed line is replaced by its rendered plan (updatedInput) when they
differ, as it nearly always does: the plan names every program by its absolute path, found on the
PATH of this process, which is Claude Code's (analyzer/programs/_programs.py). A git plan carries its own
safety in its words (`env -u` for the variables that steer git, `git -c` for every neutralising
key, `--no-pager --no-optional-locks`, the diff flags and the secret excludes), so it is as safe
there as in bastion. A go stage asks (bastion runs go with GOTOOLCHAIN=local, which the plan does
not carry). `decide_call` is shared with the Codex and Gemini CLI hooks (_hooks.py), which hand
over the same plan in their own protocols. The answer is never allow on any error.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from .._safe import safe_line
from ..grammar import render
from ..policy import Decision, load_json
from ._decide import Decider, Outcome
from ._inputs import Call
from ._tools import CLAUDE_TOOLS, claude_call

__all__ = ["HookVerdict", "claude_code_hook", "decide_call", "reason_text"]

_MAX_REASON = 2000


class HookVerdict(NamedTuple):
    """What a hook says of one call: allow, ask or deny, why, and for an allowed bash line that
    bastion would run otherwise, the rendered plan (the Codex and Gemini hooks, whose allow must
    name what runs, set it to the line itself when nothing is to change)."""

    decision: str
    reason: str
    rendered: str | None = None


def reason_text(reason: str) -> str:
    """A reason as a hook hands it on: prefixed with "bastion: ", made safe to show (the other agent
    prints it on a terminal: a name's escape sequences and bidirectional controls visible, never
    obeyed), and cut when very long."""
    reason = safe_line(reason)
    reason = reason if len(reason) <= _MAX_REASON else reason[: _MAX_REASON - 3] + "..."
    return f"bastion: {reason}"


def _answer(decision: str, reason: str, updated: Mapping[str, object] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason_text(reason),
    }
    if updated is not None:
        out["updatedInput"] = dict(updated)
    return {"hookSpecificOutput": out}


def _ask(reason: str) -> dict[str, Any]:
    return _answer("ask", reason)


def _bash_allow(o: Outcome) -> HookVerdict:
    """An allowed bash line, held to what the agent will really run: its plan, or (a line your own
    rule allowed) the line as typed."""
    decided = o.decided
    a = decided.analysis if decided is not None else None
    if a is None or a.plan is None:
        return HookVerdict("ask", "the line was allowed but could not be re-checked for the agent's run")
    if not a.auto:
        return HookVerdict("allow", o.reason)  # a rule of yours allowed it as typed; git was probed strictly
    if any(r.stage.command == "go" for r in a.stages):
        return HookVerdict(
            "ask", "go runs unasked only with GOTOOLCHAIN=local, which a hook cannot set; " + o.reason
        )
    if a.rendered is None:
        return HookVerdict("ask", "the line was allowed but has no plan")
    if a.credentials:  # bastion's bash tool hides a URL's userinfo; the agent that runs the plan would not
        return HookVerdict("ask", f"the line prints a URL's credentials: {a.credentials}")
    reason = o.reason
    if a.submodules_hidden:
        reason += f"; submodules are not shown: {a.submodules_hidden}"
    if a.rendered == render(a.plan):
        return HookVerdict("allow", reason)
    return HookVerdict("allow", f"{reason}; runs as {a.rendered}", a.rendered)


def decide_call(
    decider: Decider,
    tool: str,
    args: Mapping[str, object],
    cwd: str,
    sub: str = ".",
) -> HookVerdict:
    """One call (bastion's tool and arguments, in the workspace at the absolute directory cwd; a
    bash line in its subdirectory sub) decided for an agent that runs it itself: an auto-allowed
    line as its plan (`rendered`, when it differs from the line); never allow on an error."""
    try:
        found = decider.decide(Call(tool, dict(args), "hook", cwd), sub)
        if not isinstance(found, Outcome):
            return HookVerdict("ask", found.message)
        if found.decision is Decision.DENY:
            return HookVerdict("deny", found.reason)
        if found.decision is not Decision.ALLOW:
            return HookVerdict("ask", found.reason)
        return _bash_allow(found) if tool == "bash" else HookVerdict("allow", found.reason)
    except Exception as err:  # a hook never crashes, and never allows on an error
        return HookVerdict("ask", f"the call could not be decided: {type(err).__name__}: {err}")


def claude_code_hook(text: str, config: str | None, *, others: str = "pass") -> dict[str, Any] | None:
    """The hook's answer to one PreToolUse input (None: pass through, print nothing)."""
    try:
        return _decide(text, config, others)
    except Exception as err:  # a hook never crashes, and never allows on an error
        return _ask(f"the call could not be decided: {type(err).__name__}: {err}")


def _decide(text: str, config: str | None, others: str) -> dict[str, Any] | None:
    try:
        payload = load_json(text)
    except ValueError as err:
        return _ask(f"the hook input is not JSON ({err})")
    if not isinstance(payload, dict):
        return _ask("the hook input is not a JSON object")
    event = payload.get("hook_event_name", "PreToolUse")
    if event != "PreToolUse":
        return None if isinstance(event, str) else _ask("`hook_event_name` is not a string")
    name, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(name, str):
        return _ask("`tool_name` is missing")
    if name not in CLAUDE_TOOLS:
        return _ask(f"bastion does not decide the {name} tool") if others == "ask" else None
    mapped = claude_call(name, tool_input)
    if mapped is None or isinstance(mapped, str):
        return _ask(mapped or f"the {name} call could not be read")
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return _ask("`cwd` is missing or not an absolute path")
    verdict = decide_call(Decider(config, cwd), mapped[0], mapped[1], cwd)
    if verdict.rendered is None:
        return _answer(verdict.decision, verdict.reason)
    assert isinstance(tool_input, Mapping)
    return _answer(verdict.decision, verdict.reason, {**tool_input, "command": verdict.rendered})

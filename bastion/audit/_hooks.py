"""`bastion hook codex` and `bastion hook gemini`: Codex CLI's PreToolUse and Gemini CLI's
BeforeTool hooks answered by bastion's policy.

Both agents read one JSON object on standard output; both block a call, and both run a rewritten
input (docs/integrations.md cites each contract's source):

    Codex 0.171:  {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
                   "deny", "permissionDecisionReason": "..."}}    (no output: no opinion), or
                  {"hookSpecificOutput": {..., "permissionDecision": "allow", "updatedInput":
                   {"command": PLAN}}}   (an allow must carry updatedInput; `ask` is not taken)
    Gemini 0.61:  {"decision": "deny", "reason": "..."}          ({}: no opinion), or
                  {"decision": "allow", "hookSpecificOutput": {"hookEventName": "BeforeTool",
                   "tool_input": {...the call's input, "command": PLAN}}}  (it replaces the input)

A call is decided as `bastion hook claude-code` decides it (decide_call). A shell line bastion
allows is handed back as what bastion would run: an auto-allowed line as its self-contained plan
(every program by absolute path, git's neutralising words), a line your own rule allowed as typed;
so the agent runs the plan, as Claude Code runs `updatedInput`. Where the contract cannot carry the
plan (an older Codex's argument vector; a plan Gemini would unwrap) the allow becomes a deny,
never the typed line. Another allowed tool (a file tool, a patch) is no opinion: the agent runs it
itself as bastion's tool would. An ask is no opinion (the agent's own approvals apply), or a deny
with `strict`. Input that cannot be read, an unknown tool or any error while reading it is no
opinion, never an allow. Codex's patches (its apply_patch tool, or a Bash line that applies one:
_patch.py) are decided as one write per file they add, update, delete or move (both ends), so a
patch is blocked where bastion denies writing one of them, and with `strict` where it asks; a
patch that cannot be read exactly asks.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from .._files import open_regular
from ..policy import load_json
from ._decide import Decider
from ._hook import HookVerdict, decide_call, reason_text
from ._patch import NOT_READ, Patch, patch_in_line, patch_paths
from ._tools import shell_script

__all__ = ["codex_hook", "gemini_hook"]

# A tool call as bastion's: (tool, args, the directory a bash line runs in, relative to the session's
# cwd; "." for a file tool, whose paths are taken from the session's cwd).
Mapped = tuple[str, dict[str, object], str]
# What an adapter makes of a tool call: the calls to decide (a str among them: an ask, for that
# reason, beside them), why bastion asks without deciding (a str), or None (no opinion: an unknown
# tool, or input it cannot read).
Adapted = list[Mapped | str] | str | None

_GLOB_CHARS = frozenset("*?[{")


def _text(given: Mapping[str, object], *keys: str) -> str | None:
    """The first of keys that is present; None when it is absent or not a string."""
    for key in keys:
        if key in given:
            value = given[key]
            return value if isinstance(value, str) else None
    return None


def _optional(given: Mapping[str, object], args: dict[str, object], name: str, *keys: str) -> bool:
    """Copy the first present of keys to args[name]; False when it is not a string."""
    if not any(k in given for k in keys):
        return True
    value = _text(given, *keys)
    if value is None:
        return False
    args[name] = value
    return True


def _gemini_call(name: str, given: Mapping[str, object]) -> Adapted:
    if name == "run_shell_command":
        command, where = _text(given, "command"), "."
        if any(k in given for k in ("dir_path", "directory")):
            where = _text(given, "dir_path", "directory") or ""
        return [("bash", {"command": command}, where)] if command is not None and where else None
    if name in ("read_file", "write_file", "replace"):
        path = _text(given, "absolute_path", "file_path")
        tool = {"read_file": "read", "write_file": "write", "replace": "edit"}[name]
        return [(tool, {"path": path}, ".")] if path is not None else None
    if name in ("glob", "search_file_content", "grep_search", "list_directory"):
        tool = {"glob": "glob", "list_directory": "ls"}.get(name, "grep")
        args: dict[str, object] = {}
        readable = _optional(given, args, "path", "path", "dir_path")
        if tool != "ls":
            readable &= _optional(given, args, "pattern", "pattern") and "pattern" in args
        if tool == "grep":
            readable &= _optional(given, args, "glob", "include")
        return [(tool, args, ".")] if readable else None
    if name == "read_many_files":
        return _many(given)
    return None


def _many(given: Mapping[str, object]) -> Adapted:
    paths = given.get("paths")
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        return None
    if given.get("include") or any(_GLOB_CHARS & set(p) for p in paths):
        return "read_many_files with a glob pattern: bastion does not decide which files a pattern reads"
    return [("read", {"path": p}, ".") for p in paths]


def _codex_writes(paths: tuple[str, ...], where: str) -> Adapted:
    """A patch's files as write calls, each path taken from where (an absolute one as it is)."""
    return [("write", {"path": os.path.join(where, path)}, ".") for path in paths]


def _codex_call(name: str, given: Mapping[str, object]) -> Adapted:
    """Codex's Bash (tool_input.command: a string since 0.171, or an argument vector before) and
    apply_patch (tool_input.command: the patch) calls. A Bash line that applies a patch is its
    files' writes; one that names apply_patch in a shape that is not read exactly asks."""
    where = "."
    if "workdir" in given:  # older versions; 0.171 sends none, and the line is decided in cwd
        where = _text(given, "workdir") or ""
    command = given.get("command")
    if not where:
        return None
    if name == "Bash":
        line = shell_script(command)
        if line is None:
            return None
        found = patch_in_line(line)
        if isinstance(found, Patch):
            return _codex_writes(found.paths, os.path.join(where, found.where))
        bash: list[Mapped | str] = [("bash", {"command": line}, where)]
        return bash if found is None else [found, *bash]  # a deny of the line still denies
    if name == "apply_patch":
        paths = patch_paths(command) if isinstance(command, str) else None
        return NOT_READ if paths is None else _codex_writes(paths, where)
    return None


# The most of a Codex rollout's first line read for its session_meta.
_META_BYTES = 1 << 20


def _codex_session_dir(payload: Mapping[str, object]) -> str | None:
    """The session's own directory, from the rollout Codex names in `transcript_path` (its first line,
    `session_meta`, holds the `cwd` the session started in); None when it cannot be read. Codex 0.171
    sets the hook's `cwd` to the `workdir` the model chose, so that one cannot be the workspace."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    try:
        fd = open_regular(path, follow=False)
        with os.fdopen(fd, "rb") as f:
            first = f.readline(_META_BYTES)
        record = load_json(first.decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    meta = (
        record.get("payload") if isinstance(record, dict) and record.get("type") == "session_meta" else None
    )
    cwd = meta.get("cwd") if isinstance(meta, dict) else None
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None


# Where the workspace of a call is: the session's directory (from the payload), or None when the
# agent's `cwd` is the session's directory itself.
SessionDir = Callable[[Mapping[str, object]], str | None]
_UNKNOWN_SESSION = "the session's directory is not known (no session_meta in the rollout at transcript_path)"


# What a hook decided of one tool call: the strongest verdict on its calls (deny, then ask, then
# allow; `rendered` set on a shell line's allow: what the agent is to run) and the call's input.
Decided = tuple[HookVerdict, Mapping[str, object]]


def _verdict(
    text: str,
    config: str | None,
    event: str,
    adapt: Callable[[str, Mapping[str, object]], Adapted],
    session_dir: SessionDir | None = None,
) -> Decided | None:
    """The verdict on a tool call, or None (no opinion). With `session_dir`, the workspace is the
    session's directory and `cwd` (where the agent runs the call) must lie inside it; a session
    directory that cannot be found makes an allow an ask."""
    try:
        payload = load_json(text)
    except ValueError:
        return None
    if not isinstance(payload, dict) or payload.get("hook_event_name", event) != event:
        return None
    name, given, cwd = payload.get("tool_name"), payload.get("tool_input"), payload.get("cwd")
    if not isinstance(name, str) or not isinstance(given, Mapping):
        return None
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return None
    adapted = adapt(name, given)
    if adapted is None or isinstance(adapted, str):
        return None if adapted is None else (HookVerdict("ask", adapted), given)
    root = session_dir(payload) if session_dir is not None else cwd
    if root is None:
        root, adapted = cwd, [*adapted, _UNKNOWN_SESSION]  # decided in cwd, but never allowed
    decider = Decider(config, root)
    verdicts = [
        HookVerdict("ask", m) if isinstance(m, str) else _decide_in(decider, root, cwd, m) for m in adapted
    ]
    for decision in ("deny", "ask", "allow"):
        found = [v for v in verdicts if v.decision == decision]
        if found:
            return found[0], given
    return None


def _decide_in(decider: Decider, root: str, cwd: str, mapped: Mapped) -> HookVerdict:
    """A call decided in the session's workspace (root); a bash line in its own directory (relative
    to cwd, where the agent runs it), which must lie inside the workspace, and a file tool's relative
    path taken from cwd. An allowed bash line's verdict carries what is to run: its plan, or the
    line as typed (a rule of yours allowed it, or the plan is the line)."""
    tool, args, where = mapped
    real, top = os.path.realpath(os.path.join(cwd, where)), os.path.realpath(root)
    if real != top and not real.startswith(top.rstrip("/") + "/"):
        if root == cwd:
            return HookVerdict("ask", f"the directory {where!r} is outside the working directory")
        shown = os.path.normpath(os.path.join(cwd, where))
        return HookVerdict("ask", f"the directory {shown!r} is outside the session's directory {root!r}")
    if tool != "bash" and isinstance(args.get("path"), str) and not os.path.isabs(str(args["path"])):
        args = {**args, "path": os.path.join(cwd, str(args["path"]))}
    verdict = decide_call(decider, tool, args, root, os.path.relpath(real, top))
    if tool == "bash" and verdict.decision == "allow" and verdict.rendered is None:
        return verdict._replace(rendered=str(args["command"]))
    return verdict


def _block(verdict: HookVerdict, strict: bool) -> str | None:
    """The reason to block with, or None (no opinion): a deny, and with `strict` an ask."""
    if verdict.decision == "deny" or (verdict.decision == "ask" and strict):
        return reason_text(verdict.reason)
    return None


# Codex's PreToolUse answers: a deny with its reason, or an allow that hands over the command to run.
def _codex_deny(reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason,
    }}  # fmt: skip


# Codex 0.171 takes updatedInput.command (a string) as exec_command's `cmd`; an older Codex's
# argument vector has no such field to carry the plan in.
_CODEX_ARGV = (
    "Codex sent the command as an argument vector, and its hook can hand back only a string "
    "`updatedInput.command`: bastion's plan cannot replace it, and the line as typed is not what "
    "bastion allowed"
)


def codex_hook(text: str, config: str | None, *, strict: bool = False) -> dict[str, Any] | None:
    """The answer to one Codex PreToolUse input (None: no opinion, print nothing)."""
    try:
        decided = _verdict(text, config, "PreToolUse", _codex_call, _codex_session_dir)
        if decided is None:
            return None
        verdict, given = decided
        if verdict.decision == "allow" and verdict.rendered is not None:
            if not isinstance(given.get("command"), str):
                return _codex_deny(reason_text(_CODEX_ARGV))
            return {"hookSpecificOutput": {
                "hookEventName": "PreToolUse", "permissionDecision": "allow",
                "permissionDecisionReason": reason_text(verdict.reason),
                "updatedInput": {**given, "command": verdict.rendered},
            }}  # fmt: skip
        reason = _block(verdict, strict)
    except Exception:  # a hook never crashes; no opinion is never an allow
        return None
    return None if reason is None else _codex_deny(reason)


# Gemini CLI 0.61 runs a shell command after stripShellWrapper (packages/core/src/utils/
# shell-utils.ts), which takes a leading `sh -c`, `bash -c`, `zsh -c`, `cmd.exe /c` or PowerShell
# `-Command` off the line: a plan that began so would not run as written.
_GEMINI_UNWRAPS = re.compile(
    r"^\s*(?:(?:(?:\S+/)?(?:sh|bash|zsh))\s+-c|cmd\.exe\s+/c|powershell(?:\.exe)?\s+(?:-NoProfile\s+)?-Command|"
    r"pwsh(?:\.exe)?\s+(?:-NoProfile\s+)?-Command)\s+",
    re.IGNORECASE,
)


def gemini_hook(text: str, config: str | None, *, strict: bool = False) -> dict[str, Any]:
    """The answer to one Gemini CLI BeforeTool input ({}: no opinion)."""
    try:
        decided = _verdict(text, config, "BeforeTool", _gemini_call)
        if decided is None:
            return {}
        verdict, given = decided
        if verdict.decision == "allow" and verdict.rendered is not None:
            if _GEMINI_UNWRAPS.match(verdict.rendered):
                why = "Gemini CLI would take the plan's leading shell `-c` off it (stripShellWrapper)"
                return {"decision": "deny", "reason": reason_text(why)}
            return {
                "decision": "allow",
                "reason": reason_text(verdict.reason),
                "hookSpecificOutput": {
                    "hookEventName": "BeforeTool",
                    "tool_input": {**given, "command": verdict.rendered},
                },
            }
        reason = _block(verdict, strict)
    except Exception:  # a hook never crashes; no opinion is never an allow
        return {}
    return {} if reason is None else {"decision": "deny", "reason": reason}

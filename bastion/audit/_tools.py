"""Other agents' tool calls as bastion's: Claude Code's tool_use items and Codex's shell calls.

Claude Code's tools map one to one (Bash, Read, Write, Edit, NotebookEdit; file_path and
notebook_path become path; the retired Glob, Grep, LS and MultiEdit are still read when they come).
Codex's shell calls (`["bash", "-lc", SCRIPT]` or an argument vector) become bash lines; its patches
(the apply_patch tool, or a shell line that applies one) become one write per file they name.
"""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Mapping

from ..policy import TOOLS, load_json
from ._patch import NOT_READ, Patch, patch_in_line, patch_paths

__all__ = ["CLAUDE_TOOLS", "claude_call", "codex_calls", "pattern_escapes", "shell_script"]

CLAUDE_TOOLS: dict[str, str] = {
    "Bash": "bash", "Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "edit",
    "NotebookEdit": "edit", "Glob": "glob", "Grep": "grep", "LS": "ls",
}  # fmt: skip

_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})

# (tool, args) | an error | None (a tool bastion does not decide)
Mapped = tuple[str, dict[str, object]] | str | None


def pattern_escapes(pattern: object) -> str:
    """Why a glob pattern reaches outside the directory it is taken from ("" when it does not)."""
    if not isinstance(pattern, str):
        return ""
    if pattern.startswith(("/", "~")):
        return f"the pattern {pattern!r} names a place outside the working directory"
    if ".." in pattern.split("/"):
        return f"the pattern {pattern!r} climbs out with `..`"
    return ""


def _string(value: object, name: str, tool: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{tool}: `{name}` must be a string")
    return value


def claude_call(name: object, given: object) -> Mapped:
    """A Claude Code tool_use (name, input) as a bastion (tool, args)."""
    if not isinstance(name, str) or name not in CLAUDE_TOOLS:
        return None
    if not isinstance(given, Mapping):
        return f"{name}: `input` must be a JSON object"
    tool = CLAUDE_TOOLS[name]
    args: dict[str, object] = {}
    try:
        if tool == "bash":
            args["command"] = _string(given.get("command"), "command", name)
        elif TOOLS[tool].default is None:  # a path it must give: Claude's tools call it file_path
            key = "notebook_path" if name == "NotebookEdit" else "file_path"
            args["path"] = _string(given.get(key), key, name)
        else:
            if given.get("path") is not None:
                args["path"] = _string(given.get("path"), "path", name)
            for key in ("pattern", "glob"):
                if given.get(key) is not None:
                    args[key] = _string(given.get(key), key, name)
    except ValueError as err:
        return str(err)
    return tool, args


def shell_script(command: object) -> str | None:
    """A command as one bash line: a string as it is, the SCRIPT of `["bash", "-lc", SCRIPT]` (or
    `sh -c`), else None."""
    if isinstance(command, str):
        return command
    if isinstance(command, list) and len(command) == 3 and all(isinstance(w, str) for w in command):
        return str(command[2]) if command[0] in _SHELLS and command[1] in ("-c", "-lc") else None
    return None


def _line(command: object) -> str | None:
    script = shell_script(command)
    if script is None and isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        return shlex.join(command)
    return script


# A Codex call as bastion's: (tool, args or why they cannot be read, the directory it ran in or None).
CodexCall = tuple[str, dict[str, object] | str, str | None]


def _writes(paths: tuple[str, ...] | None, cwd: str | None) -> list[CodexCall]:
    """A patch's files as writes in the call's directory, or why the patch is not read."""
    if paths is None:
        return [("write", f"apply_patch: {NOT_READ}", cwd)]
    return [("write", {"path": path}, cwd) for path in paths]


def _patch(text: str, cwd: str | None) -> list[CodexCall]:
    return _writes(patch_paths(text), cwd)


def _arguments(item: Mapping[str, object]) -> Mapping[str, object] | str:
    raw = item.get("arguments", {})
    if isinstance(raw, str):
        try:
            raw = load_json(raw)
        except json.JSONDecodeError:
            return f"{item.get('name')}: `arguments` is not JSON"
        except ValueError as err:
            return f"{item.get('name')}: `arguments` cannot be read: {err}"
    return raw if isinstance(raw, Mapping) else f"{item.get('name')}: `arguments` must be a JSON object"


def codex_calls(record: Mapping[str, object]) -> list[CodexCall]:
    """The calls in one Codex rollout record, each (tool, args or an error, cwd or None)."""
    item = record.get("payload") if record.get("type") == "response_item" else record
    if not isinstance(item, Mapping):
        return []
    kind, name = item.get("type"), item.get("name")
    if kind == "local_shell_call":
        action = item.get("action")
        if not isinstance(action, Mapping):
            return [("bash", "local_shell_call: `action` must be a JSON object", None)]
        line, cwd = _line(action.get("command")), action.get("working_directory")
    elif kind == "custom_tool_call" and name == "apply_patch":
        return _patch(str(item.get("input", "")), None)
    elif kind == "function_call" and name in ("shell", "shell_command", "exec_command", "apply_patch"):
        args = _arguments(item)
        if isinstance(args, str):
            return [("bash", args, None)]
        cwd = args.get("workdir")
        if name == "apply_patch":
            return _patch(str(args.get("input", "")), cwd if isinstance(cwd, str) else None)
        line = _line(args.get("command", args.get("cmd")))
    else:
        return []
    cwd = cwd if isinstance(cwd, str) and posixpath.isabs(cwd) else None
    if line is None:
        return [("bash", f"{name or kind}: `command` must be a string or a list of strings", cwd)]
    found = patch_in_line(line)
    if isinstance(found, Patch):
        return _writes(tuple(posixpath.join(found.where, p) for p in found.paths), cwd)
    if found is not None:
        return [("bash", f"{name or kind}: {found}", cwd)]
    return [("bash", {"command": line}, cwd)]

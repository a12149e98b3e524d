"""Whether Codex will run bastion's hook: found in Codex's config, enabled, and trusted.

Codex (checked against codex-cli 0.171.0) runs a hook from the user's `$CODEX_HOME/config.toml`
(default `~/.codex/config.toml`) or `$CODEX_HOME/hooks.json` only once the user has trusted it:
`/hooks` in Codex's interface writes

    [hooks.state."<FILE>:pre_tool_use:<GROUP>:<HANDLER>"]
    trusted_hash = "sha256:<HEX>"

into config.toml, where FILE is the real path of the file that declares the hook, GROUP the index
of its matcher group among the event's groups and HANDLER its index in the group. The hash is
sha256 over compact JSON with sorted keys of {"event_name": "pre_tool_use", "matcher": M,
"hooks": [H]}: M as written (left out when absent), H the handler as Codex normalises it ("type",
"command", "timeout" (absent: 600, at least 1), "async" (absent: false), "statusMessage" when
given, "additionalContextLimit" when given and not 2500). Codex compares it with the hash of the
hook as it is now: the same is trusted, another is modified (the command changed since it was
trusted, e.g. `--strict` added), none is untrusted; only a trusted hook runs, silently so.

A handler whose fields Codex would reject or read otherwise (a timeout that is not a whole number,
a type that is not a string...) cannot be verified: its hash is not guessed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from .._files import read_regular

__all__ = ["CODEX_TRUST", "CodexHook", "CodexHooks", "codex_hook_hash", "codex_hooks"]

# What Codex says of a hook's trust, and what bastion says when it cannot tell.
CODEX_TRUST = ("trusted", "modified", "untrusted", "cannot verify")

_EVENT = "PreToolUse"
_EVENT_KEY = "pre_tool_use"
_DEFAULT_TIMEOUT = 600
_DEFAULT_CONTEXT_LIMIT = 2500
_EXACT_MATCHER = re.compile(r"[A-Za-z0-9_|]+")


@dataclass(frozen=True, slots=True)
class CodexHook:
    """One of bastion's hook commands in Codex's config, as Codex would see it. `selects` says
    whether its matcher selects Bash and apply_patch calls (None: a regular expression, which
    bastion does not evaluate); `trust` is one of CODEX_TRUST, `why` says why it cannot be verified."""

    key: str
    command: str
    matcher: str | None
    selects_bash: bool | None
    selects_patch: bool | None
    enabled: bool
    trust: str
    current_hash: str | None
    trusted_hash: str | None
    why: str = ""


@dataclass(frozen=True, slots=True)
class CodexHooks:
    """What Codex's config says of bastion's hook: the config file, whether Codex's hooks are on
    (`[features] hooks`), each of bastion's PreToolUse hooks found, and the files that could not
    be read (each "FILE: why")."""

    config: str
    config_exists: bool
    hooks_feature: bool
    hooks: tuple[CodexHook, ...]
    problems: tuple[str, ...]


def _is_bastion_codex(command: str) -> bool:
    """Whether a hook command runs `bastion hook codex` (a path to bastion, or `-m bastion`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for i in range(len(words) - 2):
        program = os.path.basename(words[i]) == "bastion" or (
            i > 0 and words[i - 1] == "-m" and words[i] == "bastion"
        )
        if program and words[i + 1 : i + 3] == ["hook", "codex"]:
            return True
    return False


def _selects(matcher: str | None, tool: str, *aliases: str) -> bool | None:
    """Whether Codex's matcher selects a tool (by its name or an alias): all for none, "" or "*";
    names joined by "|" compared exactly; None for a regular expression."""
    if matcher is None or matcher in ("", "*"):
        return True
    if _EXACT_MATCHER.fullmatch(matcher):
        return any(name in matcher.split("|") for name in (tool, *aliases))
    return None


def codex_hook_hash(matcher: object, handler: Mapping[str, object]) -> str | None:
    """The hash Codex trusts a PreToolUse command handler by, or None when Codex would not read it
    as bastion does (a field of the wrong type)."""
    command, timeout = handler.get("command"), handler.get("timeout", _DEFAULT_TIMEOUT)
    run_async, status = handler.get("async", False), handler.get("statusMessage")
    limit = handler.get("additionalContextLimit")
    if not isinstance(command, str) or (matcher is not None and not isinstance(matcher, str)):
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0:
        return None
    if not isinstance(run_async, bool) or not (status is None or isinstance(status, str)):
        return None
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        return None
    normal: dict[str, object] = {"type": "command", "command": command, "timeout": max(timeout, 1)}
    normal["async"] = run_async
    if status is not None:
        normal["statusMessage"] = status
    if limit is not None and limit != _DEFAULT_CONTEXT_LIMIT:
        normal["additionalContextLimit"] = limit
    identity: dict[str, object] = {"event_name": _EVENT_KEY, "hooks": [normal]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _groups(events: object) -> list[object] | str:
    if not isinstance(events, Mapping):
        return "`hooks` is not a table"
    groups = events.get(_EVENT, [])
    return groups if isinstance(groups, list) else f"`hooks.{_EVENT}` is not a list"


def _hooks_in(
    path: str, events: object, states: Mapping[str, object] | None, problems: list[str]
) -> list[CodexHook]:
    groups = _groups(events)
    if isinstance(groups, str):
        problems.append(f"{path}: {groups}")
        return []
    found: list[CodexHook] = []
    for g, group in enumerate(groups):
        handlers = group.get("hooks", []) if isinstance(group, Mapping) else None
        if not isinstance(group, Mapping) or not isinstance(handlers, list):
            problems.append(f"{path}: `hooks.{_EVENT}[{g}]` is not a matcher group")
            continue
        matcher = group.get("matcher")
        for h, handler in enumerate(handlers):
            command = handler.get("command") if isinstance(handler, Mapping) else None
            if (
                not isinstance(handler, Mapping)
                or handler.get("type") != "command"
                or not isinstance(command, str)
            ):
                continue
            if _is_bastion_codex(command):
                found.append(_entry(f"{path}:{_EVENT_KEY}:{g}:{h}", matcher, handler, command, states))
    return found


def _entry(
    key: str,
    matcher: object,
    handler: Mapping[str, object],
    command: str,
    states: Mapping[str, object] | None,
) -> CodexHook:
    """One hook; states None: config.toml, which holds them, could not be read."""
    state = states.get(key) if states is not None else None
    state = state if isinstance(state, Mapping) else {}
    trusted = state.get("trusted_hash")
    trusted = trusted if isinstance(trusted, str) else None
    enabled = state.get("enabled") is not False
    current = codex_hook_hash(matcher, handler)
    shown = matcher if isinstance(matcher, str) else None
    bash, patch = _selects(shown, "Bash"), _selects(shown, "apply_patch", "Write", "Edit")
    if current is None or states is None:
        why = (
            "a field of the hook is not of the type Codex reads (its hash is not guessed)"
            if current is None
            else "config.toml, which holds the trust entries, could not be read"
        )
        return CodexHook(key, command, shown, bash, patch, enabled, "cannot verify", current, trusted, why)
    trust = "untrusted" if trusted is None else "trusted" if trusted == current else "modified"
    return CodexHook(key, command, shown, bash, patch, enabled, trust, current, trusted)


def _load(path: str, problems: list[str]) -> dict[str, object] | None:
    """A config file's table (None when absent or unreadable, with the problem noted)."""
    try:
        data = read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        problems.append(f"{path}: {err.strerror or err}")
        return None
    try:
        if path.endswith(".json"):
            loaded = json.loads(data.decode("utf-8"))
        else:
            import tomllib

            loaded = tomllib.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as err:  # TOMLDecodeError, JSONDecodeError and bad UTF-8
        problems.append(f"{path}: {str(err).splitlines()[0] if str(err) else type(err).__name__}")
        return None
    if not isinstance(loaded, dict):
        problems.append(f"{path}: not an object")
        return None
    return loaded


def codex_hooks(codex_home: str | None = None) -> CodexHooks:
    """What `$CODEX_HOME` (default ~/.codex) says of bastion's Codex hook."""
    home = codex_home or os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    home = os.path.realpath(home)  # Codex keys a hook by the real path of its file
    config, listed = os.path.join(home, "config.toml"), os.path.join(home, "hooks.json")
    problems: list[str] = []
    table = _load(config, problems)
    hooks = table.get("hooks", {}) if table is not None else {}
    hooks = hooks if isinstance(hooks, Mapping) else {}
    found_states = hooks.get("state", {})
    states = found_states if isinstance(found_states, Mapping) else {}
    readable = table is not None or not os.path.exists(config)
    if not isinstance(found_states, Mapping):
        problems.append(f"{config}: `hooks.state` is not a table")
    features = table.get("features", {}) if table is not None else {}
    feature = not (isinstance(features, Mapping) and features.get("hooks") is False)
    found: list[CodexHook] = []
    from_json = _load(listed, problems)
    if from_json is not None:
        found += _hooks_in(listed, from_json.get("hooks", {}), states if readable else None, problems)
    if table is not None and "hooks" in table:
        found += _hooks_in(config, table["hooks"], states, problems)
    return CodexHooks(config, os.path.isfile(config), feature, tuple(found), tuple(problems))

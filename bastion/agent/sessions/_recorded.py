"""What a session's record says of it, read again on resume and by `bastion sessions`: where it
last ran, where its tools last acted, the calls allowed for the rest of it, its harness profile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["recorded_cwd", "recorded_workspace", "session_profile", "session_rules"]


def recorded_cwd(events: Sequence[Mapping[str, Any]]) -> str | None:
    """The directory a session last ran in: its last resume's, else its header's."""
    found = None
    for e in events:
        if e.get("type") in ("session", "resumed") and isinstance(e.get("cwd"), str):
            found = str(e["cwd"])
    return found


def recorded_workspace(events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Where the session's tools last acted: the `workspace` event (an executor's kind, ref, root,
    version and Landlock ABI) after its last start or resume; None: on this machine, in its cwd."""
    found: dict[str, Any] | None = None
    for e in events:
        if e.get("type") in ("session", "resumed"):
            found = None
        elif e.get("type") == "workspace":
            found = {k: v for k, v in e.items() if k not in ("type", "chain")}
    return found


def session_rules(events: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The calls allowed for the rest of the session with `a` (tool, canonical arguments), in the
    order they were added, those dropped with /permissions left out."""
    rules: list[tuple[str, str]] = []
    for e in events:
        key = (e.get("tool"), e.get("arguments"))
        if not isinstance(key[0], str) or not isinstance(key[1], str):
            continue
        pair = (key[0], key[1])
        if e.get("type") == "session_rule" and pair not in rules:
            rules.append(pair)
        elif e.get("type") == "session_rule_dropped" and pair in rules:
            rules.remove(pair)
    return rules


def session_profile(events: Sequence[Mapping[str, Any]]) -> str | None:
    """The harness profile last switched to with `/harness profile NAME` (None: never)."""
    found = None
    for e in events:
        if e.get("type") == "profile" and isinstance(e.get("name"), str):
            found = str(e["name"])
    return found

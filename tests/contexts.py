"""A gate, and a tool context, for tests that run a tool without a session: the gate built on the
shipped rules (or `policy`), with the read bound given, in `ws`, its stamps made and checked by
`stamper` (None: a stamped call is refused)."""

from __future__ import annotations

from typing import Any

from bastion.agent.tools import ToolContext
from bastion.analyzer import DEFAULT_MAX_READ_BYTES, Stamper
from bastion.policy import Gate, Policy, Settings
from bastion.workspace import Workspace


def gate(
    ws: Workspace,
    stamper: Stamper | None = None,
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    *,
    policy: Policy | None = None,
) -> Gate:
    settings = Settings(policy if policy is not None else Policy(), max_read_bytes=max_read_bytes)
    return Gate(settings, ws, stamper)


def tool_context(
    ws: Workspace,
    stamper: Stamper | None = None,
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    *,
    policy: Policy | None = None,
    **fields: Any,
) -> ToolContext:
    return ToolContext(gate(ws, stamper, max_read_bytes, policy=policy), **fields)

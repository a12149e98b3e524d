"""The policy dry-run: what `bastion check` answers for a call, as one JSON-ready object.

It decides exactly as a session would (the same settings, the same gate) and never runs or writes
anything: no stamp is made, since nothing will run.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping
from typing import Any

from ..analyzer import LocalWorkspace
from ..grammar import prepare
from ._config import Settings, load_settings
from ._gate import FILE_TOOLS, Decided, Gate
from ._rules import ConfigError
from ._types import Decision

__all__ = ["DryRun", "RequestError", "verdict_json"]


class RequestError(ValueError):
    """A request the dry-run cannot read; the message names the part that is wrong."""


def verdict_json(decided: Decided, elapsed_us: int) -> dict[str, Any]:
    """The `--json` object: decision, reason, rule, source, plan, reads, elapsed_us."""
    v = decided.verdict
    plan: str | None = None
    if v.decision is Decision.ALLOW:
        a = decided.analysis
        if a is not None:
            plan = a.rendered if a.auto else a.line
    return {
        "decision": str(v.decision),
        "reason": v.reason,
        "rule": v.rule,
        "source": v.source,
        "plan": plan,
        "reads": list(decided.reads),
        "elapsed_us": elapsed_us,
    }


class DryRun:
    """Decides requests for any working directory; settings are loaded once per directory."""

    def __init__(self, user_config: str | None = None) -> None:
        self.user_config = user_config
        self._settings: dict[str, tuple[LocalWorkspace, Settings]] = {}

    def gate(self, cwd: str) -> Gate:
        root = os.path.abspath(cwd)
        if root not in self._settings:
            if not os.path.isdir(root):
                raise RequestError(f"cwd {cwd!r} is not a directory")
            ws = LocalWorkspace(root)
            self._settings[root] = (ws, load_settings(ws, self.user_config))
        ws, settings = self._settings[root]
        return Gate(settings, ws)

    def check(self, cwd: str, tool: str, args: Mapping[str, object]) -> dict[str, Any]:
        gate = self.gate(cwd)
        # The parser is loaded once per process, before the clock starts: elapsed_us is the decision's.
        # Should loading fail, the decision's own parse fails again, and the gate asks.
        with contextlib.suppress(Exception):
            prepare()
        start = time.perf_counter_ns()
        decided = gate.decide(tool, dict(args))
        return verdict_json(decided, (time.perf_counter_ns() - start) // 1000)

    def request(self, request: object) -> dict[str, Any]:
        """One `check --jsonl` request: {"cwd": "/abs", "tool": "bash", "args": {...}}."""
        if not isinstance(request, Mapping):
            raise RequestError("a request must be a JSON object")
        cwd = request.get("cwd")
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            raise RequestError("`cwd` must be an absolute directory path")
        tool = request.get("tool", "bash")
        if not isinstance(tool, str) or not tool:
            raise RequestError("`tool` must be a tool name")
        args = request.get("args", {})
        if not isinstance(args, Mapping):
            raise RequestError("`args` must be a JSON object")
        if tool == "bash" and not isinstance(args.get("command"), str):
            raise RequestError("`args.command` must be a string for the bash tool")
        if tool in FILE_TOOLS and "path" in args and not isinstance(args["path"], str):
            raise RequestError(f"`args.path` must be a string for the {tool} tool")
        try:
            return self.check(cwd, tool, args)
        except ConfigError as err:
            # A session here would refuse to start, so nothing would run: the call is denied, and
            # the reason is the config's error (naming the file and the field).
            return {"decision": "deny", "reason": f"nothing runs here: {err}", "rule": None,
                    "source": "config", "plan": None, "reads": [], "elapsed_us": 0, "config_error": str(err)}

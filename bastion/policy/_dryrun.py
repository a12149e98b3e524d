"""The policy dry-run: what `bastion check` answers for a call, as one JSON-ready object.

It decides exactly as a session would (the same settings, the same gate) and never runs or writes
anything: no stamp is made, since nothing will run.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from .._errors import BastionError, ConfigError
from ..grammar import prepare
from ..workspace import LocalWorkspace
from ._config import Settings, load_settings
from ._gate import Decided, Gate
from ._tools import argument_problem
from ._types import Decision

__all__ = ["KEPT_DIRECTORIES", "MAX_JSON_DEPTH", "DryRun", "RequestError", "load_json", "verdict_json"]

# How many directories' workspaces (an open descriptor each) and settings a dry-run keeps.
KEPT_DIRECTORIES = 64
# The deepest JSON read from a request, a hook's input, a transcript or a session file. Real ones
# nest a dozen levels; Python's parser and everything that walks a value recurse once per level.
MAX_JSON_DEPTH = 256


class RequestError(ValueError, BastionError):
    """A request the dry-run cannot read; the message names the part that is wrong."""


def load_json(text: str) -> object:
    """json.loads, with a ValueError saying so for a value that nests deeper than MAX_JSON_DEPTH
    levels (Python's parser would raise RecursionError, or leave it to whatever walks the value)."""
    too_deep = f"the JSON nests deeper than {MAX_JSON_DEPTH} levels"
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError(too_deep) from None
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _depth_over(value, MAX_JSON_DEPTH):
        raise ValueError(too_deep)
    return value


def _depth_over(value: object, limit: int) -> bool:
    """Whether a parsed JSON value has arrays or objects nested more than `limit` levels (walked
    without recursion)."""
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def verdict_json(decided: Decided, elapsed_us: int) -> dict[str, Any]:
    """The `--json` object: decision, reason, rule, source, plan, reads, submodules_hidden (why an
    allowed git status or diff does not show submodules, "" when it does or there are none),
    elapsed_us."""
    v = decided.verdict
    plan: str | None = None
    hidden = ""
    if v.decision is Decision.ALLOW:
        a = decided.analysis
        if a is not None:
            plan = a.rendered if a.auto else a.line
            hidden = a.submodules_hidden
    return {
        "decision": str(v.decision),
        "reason": v.reason,
        "rule": v.rule.text if v.rule is not None else None,
        "source": v.source.tag if v.source is not None else None,
        "plan": plan,
        "reads": list(decided.reads),
        "submodules_hidden": hidden,
        "elapsed_us": elapsed_us,
    }


class DryRun:
    """Decides requests for any working directory. The workspaces of the directories used last are
    kept (KEPT_DIRECTORIES of them); a workspace dropped from them is closed, so a stream of
    requests in ever new directories holds a bounded number of descriptors. A gate is for deciding
    at once: its workspace is closed once KEPT_DIRECTORIES others were used since. The settings are
    loaded for every request (both config files read again, so a changed one counts at once);
    what their bytes mean and the policy they make are remembered per process (`load_settings`)."""

    def __init__(self, user_config: str | None = None, *, project_config: bool = True) -> None:
        """`project_config` False: no project's `.bastion/config.toml` is read (`check
        --no-project-config`; a hook never sets it)."""
        self.user_config = user_config
        self.project_config = project_config
        self._workspaces: OrderedDict[str, LocalWorkspace] = OrderedDict()

    def _settings(self, ws: LocalWorkspace) -> Settings:
        return load_settings(ws, self.user_config, project_config=self.project_config)

    def gate(self, cwd: str) -> Gate:
        root = os.path.abspath(cwd)
        ws = self._workspaces.get(root)
        if ws is not None:
            self._workspaces.move_to_end(root)
            return Gate(self._settings(ws), ws)
        if not os.path.isdir(root):
            raise RequestError(f"cwd {cwd!r} is not a directory")
        ws = LocalWorkspace(root)
        try:
            settings = self._settings(ws)
        except BaseException:
            ws.close()
            raise
        self._workspaces[root] = ws
        while len(self._workspaces) > KEPT_DIRECTORIES:
            _, dropped = self._workspaces.popitem(last=False)
            dropped.close()
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
        wrong = argument_problem(tool, args)
        if wrong is not None:
            raise RequestError(f"the {tool} tool: {wrong}")
        try:
            return self.check(cwd, tool, args)
        except ConfigError as err:
            # A session here would refuse to start, so nothing would run: the call is denied, and
            # the reason is the config's error (naming the file and the field).
            return {
                "decision": "deny",
                "reason": f"nothing runs here: {err}",
                "rule": None,
                "source": "config",
                "plan": None,
                "reads": [],
                "submodules_hidden": "",
                "elapsed_us": 0,
                "config_error": str(err),
            }

"""The root of every error bastion raises: `except BastionError` catches any of them.

    BastionError
    ├── Unexpected        grammar: where a line left the subset (caught inside the grammar)
    ├── NotRegularFile    a file bastion would open that is not a regular file (also an OSError)
    ├── WorkspaceError    analyzer: a name the workspace refuses (also an OSError)
    ├── FactError         analyzer: a fact a stamp binds cannot be read (also an OSError)
    ├── StampError        analyzer: what a call would touch cannot be stamped (also a ValueError)
    ├── PolicyError       policy: a policy that cannot be built
    │   ├── RuleError     a rule that does not parse or build
    │   └── ConfigError   a config file that cannot be used
    ├── RequestError      policy: a dry-run request that cannot be read (also a ValueError)
    ├── AgentError        agent: what ends a run or stops the agent from starting
    │   ├── ConfigError   a bad flag, config file or missing key
    │   │   └── StoreError  the session store cannot be made or written
    │   ├── UsageError    a command line that cannot run (exit 2)
    │   ├── ModelError    the provider refused or failed
    │   └── Cancelled     Ctrl-C aborted the run
    ├── UndoRefused       agent: an /undo-turn refused whole (a file changed since, or cannot be undone)
    ├── NotShrunk         agent: a compaction whose summary would not shrink the conversation
    ├── HarnessError      agent: a harness component refused at load (its slot, id or interface version)
    ├── StepError         agent: an agent_loop component used the step API out of order
    └── ToolError         agent: a tool call refused or failed

Each keeps its older base too (OSError, ValueError), so what catches those still does. This module is
at the bottom of the layering: every package may import it, and it imports nothing. Exempt, and
only these: private control-flow exceptions (a name starting with "_") that never leave the module
that raises them (tests/test_errors.py checks the rest).
"""

from __future__ import annotations

__all__ = ["BastionError", "ConfigError"]


class BastionError(Exception):
    """Anything bastion refuses or fails at; the message names the part for a person."""


class ConfigError(BastionError):
    """A config file, flag or setting that cannot be used: the message names the file and the
    field (or the flag); `hint`, how a person goes on (said on a line of its own), when there is one."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

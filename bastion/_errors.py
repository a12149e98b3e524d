"""The root of every error bastion raises: `except BastionError` catches any of them.

    BastionError
    ├── Unexpected        grammar: where a line left the subset (caught inside the grammar)
    ├── NotRegularFile    a file bastion would open that is not a regular file (also an OSError)
    ├── WorkspaceError    analyzer: a name the workspace refuses (also an OSError)
    ├── FactError         analyzer: a fact a stamp binds cannot be read (also an OSError)
    ├── StampError        analyzer: what a call would touch cannot be stamped (also a ValueError)
    ├── PolicyError       policy: a policy that cannot be built
    │   └── RuleError     a rule that does not parse or build
    ├── RequestError      policy: a dry-run request that cannot be read (also a ValueError)
    ├── AgentError        what ends a run or stops the agent from starting (its kind: Failure)
    │   ├── ConfigError   the one config error: a file, field, flag or key that cannot be used
    │   │                 (bastion.config, the policy's settings and the agent all raise it)
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
at the bottom of the layering: every package may import it, and it imports nothing of bastion (and of
the standard library only enum: `Failure`, the kinds a run ends with and their exit statuses, is
here so that ConfigError, which the config reader below the policy raises, is an AgentError). Exempt, and
only these: private control-flow exceptions (a name starting with "_") that never leave the module
that raises them (tests/test_errors.py checks the rest).
"""

from __future__ import annotations

import enum

__all__ = ["AgentError", "BastionError", "ConfigError", "Failure"]


class BastionError(Exception):
    """Anything bastion refuses or fails at; the message names the part for a person."""


class Failure(enum.StrEnum):
    """Why a run did not complete; each kind has its exit status."""

    CONTEXT_EXCEEDED = "context_exceeded"
    OUTPUT_LIMIT_EXCEEDED = "output_limit_exceeded"
    # The model's calls could not be used (not JSON, not an object, no such tool) several replies in a row.
    MALFORMED_TOOL_ARGUMENTS = "malformed_tool_arguments"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    AUTHENTICATION = "authentication"
    MODEL_NOT_FOUND = "model_not_found"
    POLICY_REJECTION = "policy_rejection"
    PROTOCOL_ERROR = "protocol_error"
    NETWORK = "network"
    CANCELLED = "cancelled"
    # The run made as many requests as --max-turns (max_turns) allows and the model still called tools.
    MAX_TURNS = "max_turns"
    # The workspace the tools act in is gone (an executor whose connection dropped or stalled).
    WORKSPACE_LOST = "workspace_lost"
    OTHER = "other"

    @property
    def exit_code(self) -> int:
        return _EXIT[self]


_EXIT = {
    Failure.OTHER: 1,
    Failure.CANCELLED: 10,
    Failure.RATE_LIMITED: 11,
    Failure.UNAVAILABLE: 11,
    Failure.AUTHENTICATION: 12,
    Failure.CONTEXT_EXCEEDED: 13,
    Failure.POLICY_REJECTION: 14,
    Failure.PROTOCOL_ERROR: 15,
    Failure.MALFORMED_TOOL_ARGUMENTS: 15,
    Failure.MODEL_NOT_FOUND: 16,
    Failure.NETWORK: 17,
    Failure.OUTPUT_LIMIT_EXCEEDED: 18,
    Failure.MAX_TURNS: 19,
    Failure.WORKSPACE_LOST: 20,
}


class AgentError(BastionError):
    """Anything that ends a run or stops the agent from starting, classified by kind."""

    kind: Failure = Failure.OTHER
    retryable: bool = False
    http_status: int | None = None
    retry_after: float | None = None
    attempts: int | None = None
    # The server answered with a web page (HTML): the URL is not the API's.
    web_page: bool = False
    # The server had begun to answer when the stream broke off or went silent (so its URL is right).
    answered: bool = False


class ConfigError(AgentError):
    """A config file, flag, setting or key that cannot be used: the message names the file and the
    field (or the flag); `hint`, how a person goes on (said on a line of its own), when there is one.
    The one class for the config wherever it is read: the policy's dry-run and the agent alike (an
    AgentError, so what ends a run catches it; its kind OTHER, exit status 1)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

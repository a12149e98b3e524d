"""The values the agent passes around: the conversation, a model's reply, and the errors a run ends with.

The conversation is provider-neutral; each provider renders it in its own wire format. A message is a
plain dataclass so a session can record it as JSON and rebuild it on --resume.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

from ..._errors import BastionError

__all__ = [
    "AgentError",
    "Assistant",
    "Cancelled",
    "ConfigError",
    "Failure",
    "Message",
    "ModelError",
    "OutputClosed",
    "Reply",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Usage",
    "UsageError",
    "User",
    "WorkspaceLost",
    "message_from_dict",
    "message_to_dict",
]


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
    """A bad flag, config file or missing key: reported before any request is made; `hint`, how a
    person goes on (said on a line of its own)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class UsageError(AgentError):
    """A command line that cannot run: flags that do not go together, an empty prompt (exit 2)."""


class ModelError(AgentError):
    """The provider refused, failed, or answered something that is not its protocol."""

    def __init__(
        self,
        message: str,
        kind: Failure,
        *,
        retryable: bool = False,
        http_status: int | None = None,
        retry_after: float | None = None,
        attempts: int | None = None,
        web_page: bool = False,
        answered: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.http_status = http_status
        self.retry_after = retry_after
        # How many requests were made before the run gave up (retries included), when it was a request.
        self.attempts = attempts
        self.web_page = web_page
        self.answered = answered


class WorkspaceLost(AgentError):
    """The workspace the tools act in is lost (an executor's connection dropped, or it stalled past
    its bound): the call that met it fails with these words and the run ends; nothing falls back
    to this machine, and every later call fails the same way."""

    kind = Failure.WORKSPACE_LOST


class Cancelled(AgentError):
    """Ctrl-C (or a cancel event) aborted the run in flight."""

    kind = Failure.CANCELLED


class OutputClosed(Cancelled):
    """The reader of the answer went away (`bastion -p ... | head`): the run ends as Ctrl-C ends it
    (calls stopped, results paired), quietly, and is never the provider's failure."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call as the model made it: `arguments` is the raw JSON text, which may not parse."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class User:
    text: str


@dataclass(frozen=True, slots=True)
class Assistant:
    """A model turn. `opaque` holds provider items that must be sent back as they came (Anthropic's
    signed thinking blocks); another provider ignores them."""

    text: str
    calls: tuple[ToolCall, ...] = ()
    opaque: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    name: str
    content: str
    is_error: bool = False


Message = User | Assistant | ToolResult


@dataclass(slots=True)
class Usage:
    """Tokens as every provider is reported alike: `input_tokens` are those neither read from nor
    written to the prompt cache (OpenAI's prompt_tokens less the cached ones), so the four counts add
    up to what was sent and received. `cost_usd` is None when it is not known for some round."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    cost_usd: float | None = 0.0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_creation_tokens += other.cache_creation_tokens
        self.cost_usd = (
            None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        )


@dataclass(slots=True)
class Reply:
    """One streamed model turn, complete."""

    message: Assistant
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = ""


_KINDS: dict[str, type[User] | type[Assistant] | type[ToolResult]] = {
    "user": User,
    "assistant": Assistant,
    "tool_result": ToolResult,
}


def message_to_dict(message: Message) -> dict[str, Any]:
    kind = {User: "user", Assistant: "assistant", ToolResult: "tool_result"}[type(message)]
    return {"role": kind, **asdict(message)}


def message_from_dict(data: dict[str, Any]) -> Message:
    """Rebuild a recorded message; raises ValueError naming what is wrong."""
    role = data.get("role")
    if role not in _KINDS:
        raise ValueError(f"unknown message role {role!r}")
    fields = {k: v for k, v in data.items() if k != "role"}
    try:
        if role == "assistant":
            calls = tuple(ToolCall(**c) for c in fields.get("calls", ()))
            opaque = tuple(fields.get("opaque", ()))
            return Assistant(str(fields.get("text", "")), calls, opaque)
        return _KINDS[role](**fields)
    except TypeError as err:
        raise ValueError(f"{role} message: {err}") from err

"""The values the agent passes around: the conversation, a model's reply, and the errors a run ends with.

The conversation is provider-neutral; each provider renders it in its own wire format. A message is a
plain dataclass so a session can record it as JSON and rebuild it on --resume.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..._errors import AgentError, ConfigError, Failure

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

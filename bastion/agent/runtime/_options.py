"""What a request to a model is made of: the options it is made with (the REPL's /model and /think
replace them between runs), and the request itself, one value from whoever asks to the provider."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ._types import Message, ToolSpec

__all__ = ["EFFORTS", "ModelOptions", "ModelRequest"]

EFFORTS = ("minimal", "low", "medium", "high", "xhigh")


@dataclass(frozen=True, slots=True)
class ModelOptions:
    """How a model is asked: the provider's name, the model at that provider, and whether it reasons
    first and how hard (one of EFFORTS)."""

    provider: str
    model: str
    think: bool = True
    effort: str = "low"


def _dropped(_piece: str) -> None:
    """Where a piece nobody listens for goes."""


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One request to a model, one value from whoever asks (the turn loop, compaction's summariser)
    to the provider that writes it in its wire format, as a command to run is one `ExecRequest` from
    a tool to the launcher. The first four fields are what is sent, fixed when the request is made;
    the sinks are the caller's, never sent, and left out of its equality and repr."""

    # The model's own options, or the turn's model_selector's choice over them (which leaves the
    # model's untouched).
    options: ModelOptions
    # The system prompt, as the turn's catalog made it.
    system: str
    # The conversation, oldest first.
    messages: tuple[Message, ...]
    # The tools offered this request (none for a summariser).
    tools: tuple[ToolSpec, ...] = ()
    # Each piece of the reply's text as it streams.
    on_text: Callable[[str], None] = field(default=_dropped, compare=False, repr=False)
    # Each piece of its reasoning, where the provider streams it.
    on_thought: Callable[[str], None] = field(default=_dropped, compare=False, repr=False)

"""vertex: Claude and Gemini behind one Google Cloud project and login. Each request goes through the
adapter of its model's family, chosen when it is made: Anthropic Messages through the anthropic
SDK's Vertex client (rawPredict/streamRawPredict) for a claude- model, Gemini's
streamGenerateContent for a gemini- one. So /model and a sub-agent's model may move between the
families in one session; a name of neither family is refused."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..runtime import Failure, Message, ModelError, ModelOptions, Reply, ToolSpec
from ._anthropic import AnthropicModel
from ._clients import Connection
from ._gemini import GeminiModel
from ._google import family_of, refused_model

__all__ = ["VertexModel"]


class VertexModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection

    def adapter(self) -> AnthropicModel | GeminiModel:
        """The adapter for the model as it is now (a copy made for a sub-agent has options of its own)."""
        refused = refused_model("vertex", self.options.model)
        if refused is not None:
            raise ModelError(refused, Failure.MODEL_NOT_FOUND)
        if family_of(self.options.model) == "claude":
            return AnthropicModel(self.options, self.connection)
        return GeminiModel(self.options, self.connection)

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        on_text: Callable[[str], None],
        *,
        on_thought: Callable[[str], None] | None = None,
    ) -> Reply:
        return self.adapter().stream(system, messages, tools, on_text, on_thought=on_thought)

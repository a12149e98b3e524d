"""vertex: Claude and Gemini behind one Google Cloud project and login. Each request goes through the
adapter of its model's family, chosen when it is made: Anthropic Messages through the anthropic
SDK's Vertex client (rawPredict/streamRawPredict) for a claude- model, Gemini's
streamGenerateContent for a gemini- one. So /model and a sub-agent's model may move between the
families in one session; a name of neither family is refused."""

from __future__ import annotations

from ..runtime import Failure, ModelError, ModelOptions, ModelRequest, Reply
from ._anthropic import AnthropicModel
from ._clients import Connection
from ._gemini import GeminiModel
from ._google import family_of, refused_model

__all__ = ["VertexModel"]


class VertexModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection

    def adapter(self, options: ModelOptions) -> AnthropicModel | GeminiModel:
        """The adapter for the model a request asks for."""
        refused = refused_model("vertex", options.model)
        if refused is not None:
            raise ModelError(refused, Failure.MODEL_NOT_FOUND)
        if family_of(options.model) == "claude":
            return AnthropicModel(options, self.connection)
        return GeminiModel(options, self.connection)

    def stream(self, request: ModelRequest) -> Reply:
        return self.adapter(request.options).stream(request)

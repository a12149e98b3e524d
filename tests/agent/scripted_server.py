"""A real HTTP server on 127.0.0.1 that replays scripted model rounds in the streaming (SSE) formats of
OpenAI Chat Completions, OpenAI Responses, Anthropic Messages and Gemini's streamGenerateContent,
whichever path a request names: Vertex AI's too (Claude's streamRawPredict speaks Messages, Gemini's
streamGenerateContent Gemini's), with an OAuth token endpoint (POST /token) for its credentials.

A round is one of:
  {"status": 429, "retry_after": "0"}              an error answer (any status), Retry-After if given
  {"text": "...", "calls": [{"name": ..., "arguments": {...} or "raw text"}], "usage": [in, out]}
with, in a reply, any of:
  "usage": [in, out, cache_read, cache_write]     in: the tokens neither read from nor written to cache
  "cost": 0.0012                                  the cost the provider reports (Chat and Responses)
  "refusal": "I can't help with that."            the provider refuses, in its format's way (Gemini:
                                                  finishReason SAFETY; "blocked": true, the prompt's
                                                  promptFeedback blockReason instead)
  "limit": true                                   the reply stops at the output token limit
  "pieces": N                                     text and arguments sent in deltas of N characters
  "thinking": "..."                               reasoning before the text, in the same pieces
                                                  (Chat: `reasoning_content` deltas; Anthropic: a
                                                  signed thinking block; the other formats: none)
and the faults a server can make (fault injection):
  "cut": N            only the reply's first N SSE frames are sent, then the connection is closed
                      (the body ends there, as a close-delimited HTTP/1.0 body does)
  "chunked": true     with "cut": the body is chunked and the connection closes without its last chunk
  "stall": N          the first N frames are sent, then nothing more until the server stops
  "ping": seconds     with "stall": an SSE comment is sent every `seconds` while stalled (bytes, no event)
  "silent": true      the request is read and never answered (not even a status line)
  "nested": depth     a first event whose JSON is nested `depth` arrays deep
  "stream_error": {"type": ..., "message": ...}   after the first frame, an error event in the format's
                      way (Chat: a chunk with "error"; Responses and Anthropic: an `error` event), and no more
  "repeat": true      the round answers this request and every later one (a model that echoes itself)
  "body": {...}       with "status": the error body, as given (else {"error": {"message": ...}}); a
                      string is sent as it is
A call whose "arguments" are raw text is, in Gemini's format, a reply that ends MALFORMED_FUNCTION_CALL
(Gemini sends arguments as an object or not at all); the first call of a Gemini reply carries a
thoughtSignature, `sig-<request index>`.
Every request is kept (path, headers, JSON body, and the model it names, in the path or the body) for
the test to look at; the token endpoint's requests (their form fields) are kept in `tokens`.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _pieces(text: str, size: int | None = None) -> list[str]:
    """`text` in deltas of `size` characters; in two halves when no size is given."""
    if size is None:
        mid = len(text) // 2
        return [p for p in (text[:mid], text[mid:]) if p]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(round_: dict[str, Any]) -> tuple[int, int, int, int]:
    fresh, out, read, write = [*round_.get("usage", [10, 5]), 0, 0][:4]
    return fresh, out, read, write


def _arguments(call: dict[str, Any]) -> str:
    raw = call.get("arguments", {})
    return raw if isinstance(raw, str) else json.dumps(raw)


def _chat(round_: dict[str, Any], index: int) -> Iterator[tuple[str, dict[str, Any] | str]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": f"c{index}",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    yield "", chunk({"role": "assistant"})
    for part in _pieces(round_.get("thinking", ""), round_.get("pieces")):
        yield "", chunk({"reasoning_content": part})
    for part in _pieces(round_.get("text", ""), round_.get("pieces")):
        yield "", chunk({"content": part})
    if "refusal" in round_:
        yield "", chunk({"refusal": round_["refusal"]})
    calls = round_.get("calls", [])
    for i, call in enumerate(calls):
        args = _arguments(call)
        yield (
            "",
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": call.get("id", f"call_{index}_{i}"),
                            "type": "function",
                            "function": {"name": call["name"], "arguments": ""},
                        }
                    ]
                }
            ),
        )
        for part in _pieces(args, round_.get("pieces")):
            yield "", chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]})
    yield "", chunk({}, "length" if round_.get("limit") else "tool_calls" if calls else "stop")
    fresh, out, read, write = _usage(round_)
    usage: dict[str, Any] = {
        "prompt_tokens": fresh + read + write,
        "completion_tokens": out,
        "total_tokens": fresh + read + write + out,
        "prompt_tokens_details": {"cached_tokens": read, "cache_write_tokens": write},
    }
    if "cost" in round_:
        usage["cost"] = round_["cost"]
    yield "", {"id": f"c{index}", "choices": [], "usage": usage}
    yield "", "[DONE]"


def _responses(round_: dict[str, Any], index: int) -> Iterator[tuple[str, dict[str, Any] | str]]:
    yield (
        "response.created",
        {"type": "response.created", "response": {"id": f"r{index}", "status": "in_progress"}},
    )
    for part in _pieces(round_.get("text", ""), round_.get("pieces")):
        yield "response.output_text.delta", {"type": "response.output_text.delta", "delta": part}
    if "refusal" in round_:
        yield "response.refusal.delta", {"type": "response.refusal.delta", "delta": round_["refusal"]}
    for i, call in enumerate(round_.get("calls", [])):
        item = {
            "type": "function_call",
            "id": f"fc{index}_{i}",
            "call_id": call.get("id", f"call_{index}_{i}"),
            "name": call["name"],
            "arguments": _arguments(call),
        }
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "item": {**item, "arguments": ""}},
        )
        yield "response.output_item.done", {"type": "response.output_item.done", "item": item}
    fresh, out, read, write = _usage(round_)
    usage: dict[str, Any] = {
        "input_tokens": fresh + read + write,
        "input_tokens_details": {"cached_tokens": read, "cache_write_tokens": write},
        "output_tokens": out,
        "total_tokens": fresh + read + write + out,
    }
    if "cost" in round_:
        usage["cost"] = round_["cost"]
    response: dict[str, Any] = {"id": f"r{index}", "status": "completed", "usage": usage}
    kind = "response.completed"
    if round_.get("limit"):
        kind = "response.incomplete"
        response.update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    yield kind, {"type": kind, "response": response}


def _anthropic(round_: dict[str, Any], index: int) -> Iterator[tuple[str, dict[str, Any] | str]]:
    fresh, out, read, write = _usage(round_)
    start_usage = {
        "input_tokens": fresh,
        "output_tokens": 0,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
    }
    yield (
        "message_start",
        {"type": "message_start", "message": {"id": f"m{index}", "usage": start_usage}},
    )
    block = 0
    if round_.get("thinking"):
        start = {"type": "thinking", "thinking": ""}
        yield "content_block_start", {"type": "content_block_start", "index": block, "content_block": start}
        deltas = [
            {"type": "thinking_delta", "thinking": p}
            for p in _pieces(round_["thinking"], round_.get("pieces"))
        ]
        for delta in [*deltas, {"type": "signature_delta", "signature": f"sig-{index}"}]:
            yield "content_block_delta", {"type": "content_block_delta", "index": block, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": block}
        block += 1
    if round_.get("text"):
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": block, "content_block": {"type": "text", "text": ""}},
        )
        for part in _pieces(round_["text"], round_.get("pieces")):
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": block,
                    "delta": {"type": "text_delta", "text": part},
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": block}
        block += 1
    calls = round_.get("calls", [])
    for i, call in enumerate(calls):
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": block,
                "content_block": {
                    "type": "tool_use",
                    "id": call.get("id", f"toolu_{index}_{i}"),
                    "name": call["name"],
                    "input": {},
                },
            },
        )
        for part in _pieces(_arguments(call), round_.get("pieces")):
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": block,
                    "delta": {"type": "input_json_delta", "partial_json": part},
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": block}
        block += 1
    stop = "tool_use" if calls else "end_turn"
    if "refusal" in round_:
        stop = "refusal"
    elif round_.get("limit"):
        stop = "max_tokens"
    yield (
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": out}},
    )
    yield "message_stop", {"type": "message_stop"}


def _gemini(round_: dict[str, Any], index: int) -> Iterator[tuple[str, dict[str, Any] | str]]:
    fresh, out, read, write = _usage(round_)
    usage = {
        "promptTokenCount": fresh + read + write,
        "candidatesTokenCount": out,
        "totalTokenCount": fresh + read + write + out,
        "cachedContentTokenCount": read,
    }

    def chunk(parts: list[dict[str, Any]] | None, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"index": 0}
        if parts is not None:
            candidate["content"] = {"role": "model", "parts": parts}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "usageMetadata": usage, "responseId": f"g{index}"}

    if round_.get("blocked"):
        yield "", {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": usage}
        return
    yield "", chunk([{"text": ""}])
    for part in _pieces(round_.get("text", ""), round_.get("pieces")):
        yield "", chunk([{"text": part}])
    calls = round_.get("calls", [])
    if any(isinstance(call.get("arguments"), str) for call in calls):
        yield "", chunk(None, "MALFORMED_FUNCTION_CALL")
        return
    parts = []
    for i, call in enumerate(calls):
        function: dict[str, Any] = {"name": call["name"], "args": call.get("arguments", {})}
        if "id" in call:
            function["id"] = call["id"]
        parts.append({"functionCall": function, **({"thoughtSignature": f"sig-{index}"} if i == 0 else {})})
    if parts:
        yield "", chunk(parts)
    finish = "STOP"
    if "refusal" in round_:
        finish = "SAFETY"
    elif round_.get("limit"):
        finish = "MAX_TOKENS"
    yield "", chunk([{"text": ""}] if finish == "STOP" else None, finish)


# Google's error status for an HTTP status, and for a stream error's Anthropic-style type.
_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                  429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}  # fmt: skip
_GOOGLE_TYPE = {
    "overloaded_error": (503, "UNAVAILABLE"),
    "rate_limit_error": (429, "RESOURCE_EXHAUSTED"),
    "invalid_request_error": (400, "INVALID_ARGUMENT"),
    "api_error": (500, "INTERNAL"),
}


Render = Callable[[dict[str, Any], int], Iterator[tuple[str, dict[str, Any] | str]]]


def _render(path: str) -> Render:
    """The wire format `path` names."""
    route = path.partition("?")[0]
    if route.endswith(("/messages", ":streamRawPredict", ":rawPredict")):
        return _anthropic
    if route.endswith((":streamGenerateContent", ":generateContent")):
        return _gemini
    if route.endswith("/responses"):
        return _responses
    return _chat


def model_of(path: str, body: object) -> object:
    """The model a request names: in its path (Gemini, Vertex), else in its body."""
    route = path.partition("?")[0]
    if "/models/" in route and ":" in route.rpartition("/models/")[2]:
        return route.rpartition("/models/")[2].partition(":")[0]
    return body.get("model") if isinstance(body, dict) else None


# The event a nested frame is sent as, by wire format: one each SDK parses as JSON.
_NESTED_EVENT: dict[Render, str] = {
    _chat: "",
    _responses: "response.output_text.delta",
    _anthropic: "content_block_delta",
    _gemini: "",
}


def sse_frames(path: str, round_: dict[str, Any], index: int = 0) -> list[bytes]:
    """A reply round as the SSE frames of the wire format `path` names (…/messages and
    …:streamRawPredict, …:streamGenerateContent, …/responses, else Chat), a nested first frame
    included when the round asks for one."""
    render = _render(path)
    events = list(render(round_, index))
    if "nested" in round_:
        depth = int(round_["nested"])
        event = _NESTED_EVENT[render]
        nested = "[" * depth + "]" * depth
        events.insert(1, (event, f'{{"type": "{event}", "x": {nested}}}'))
    if "stream_error" in round_:
        error = dict(round_["stream_error"])
        if render is _chat:
            events[1:] = [("", {"error": error})]
        elif render is _gemini:
            code, status = _GOOGLE_TYPE.get(str(error.get("type")), (500, "INTERNAL"))
            events[1:] = [("", {"error": {"code": code, "message": error.get("message"), "status": status}})]
        elif render is _responses:
            events[1:] = [
                ("error", {"type": "error", "code": error.get("type"), "message": error.get("message")})
            ]
        else:
            events[1:] = [("error", {"type": "error", "error": error})]
    frames = []
    for event, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        frames.append(((f"event: {event}\n" if event else "") + f"data: {text}\n\n").encode())
    return frames


def sse_body(path: str, round_: dict[str, Any], index: int = 0) -> bytes:
    """A reply round as the SSE body of the wire format `path` names."""
    return b"".join(sse_frames(path, round_, index))


def _chunk(data: bytes) -> bytes:
    """`data` as one chunk of a chunked body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def _round(value: object) -> dict[str, Any]:
    """A round as the server reads it: a JSON object."""
    assert isinstance(value, dict), f"a round is a dict, not {value!r}"
    return value


class ScriptedServer:
    """Serve `rounds` in order, one per request; run it with `with ScriptedServer(rounds) as server:`."""

    def __init__(
        self,
        rounds: Sequence[object],
        on_request: Callable[[int], None] | None = None,
        models: dict[str, dict[str, int]] | None = None,
        tokens: Sequence[str] = ("scripted-access-token",),
        token_answer: dict[str, Any] | None = None,
    ) -> None:
        """`on_request(n)` runs when request n (from 0) arrives, before it is answered. `models` are
        what the vendors' model APIs say (Anthropic's GET /v1/models/ID, OpenRouter's GET /v1/models,
        Gemini's GET /v1beta/models and /v1beta/models/ID, Ollama's POST /api/show and GET
        /api/tags): {"ID": {"context_window": N, "max_output_tokens": N}}; those asks go to
        `lookups`, not `requests`. POST /token answers an OAuth token request with the next of
        `tokens` (the last again once they run out), valid an hour, or with `token_answer`
        ({"status": N, "body": {...}}) when given."""
        self.rounds: list[dict[str, Any]] = [_round(r) for r in rounds]
        self.on_request = on_request
        self.models = models or {}
        self.issued = list(tokens)
        self.token_answer = token_answer
        self.tokens: list[dict[str, str]] = []
        self.lookups: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        # Set when the server stops: a stalled or silent answer ends then.
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.lookups.append(self.path)
                server._model_info(self, None)

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                if self.path == "/token":
                    server._token(self, raw)
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    body = None
                if self.path == "/api/show":
                    server.lookups.append(self.path)
                    server._model_info(self, body)
                    return
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "body": body,
                            "model": model_of(self.path, body),
                        }
                    )
                    round_ = (
                        server.rounds[0] if server.rounds else {"status": 500, "error": "script exhausted"}
                    )
                    if server.rounds and not round_.get("repeat"):
                        server.rounds.pop(0)
                if server.on_request is not None:
                    server.on_request(index)
                server._answer(self, round_, index)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def _token(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        """An OAuth token endpoint (a service account's JWT grant, a login's refresh token grant)."""
        with self._lock:
            self.tokens.append(dict(urllib.parse.parse_qsl(raw.decode())))
            token = self.issued.pop(0) if len(self.issued) > 1 else self.issued[0]
        given = self.token_answer or {}
        answer = given.get("body", {"access_token": token, "expires_in": 3600, "token_type": "Bearer"})
        data = json.dumps(answer).encode()
        handler.send_response(int(given.get("status", 200)))
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    @staticmethod
    def _gemini_model(name: str, limits: dict[str, int]) -> dict[str, Any]:
        return {
            "name": f"models/{name}",
            "inputTokenLimit": limits["context_window"],
            "outputTokenLimit": limits["max_output_tokens"],
            "supportedGenerationMethods": ["generateContent", "countTokens"],
        }

    def _model_info(self, handler: BaseHTTPRequestHandler, body: Any) -> None:
        path = handler.path.partition("?")[0]
        answer: dict[str, Any] | None = None
        if path == "/api/show" and isinstance(body, dict) and body.get("model") in self.models:
            limits = self.models[body["model"]]
            answer = {"model_info": {"qwen3.context_length": limits["context_window"]}}
        elif path == "/api/tags":
            answer = {"models": [{"name": name, "model": name} for name in self.models]}
        elif path == "/v1/models":
            answer = {
                "object": "list",
                "data": [
                    {
                        "id": name,
                        "object": "model",
                        "context_length": limits["context_window"],
                        "top_provider": {"max_completion_tokens": limits["max_output_tokens"]},
                    }
                    for name, limits in self.models.items()
                ],
            }
        elif path == "/v1beta/models":
            answer = {"models": [self._gemini_model(name, limits) for name, limits in self.models.items()]}
        elif path.startswith("/v1beta/models/") and path.removeprefix("/v1beta/models/") in self.models:
            name = path.removeprefix("/v1beta/models/")
            answer = self._gemini_model(name, self.models[name])
        elif path.startswith("/v1/models/") and path.removeprefix("/v1/models/") in self.models:
            name = path.removeprefix("/v1/models/")
            limits = self.models[name]
            answer = {
                "type": "model",
                "id": name,
                "display_name": name,
                "created_at": "2026-01-01T00:00:00Z",
                "max_input_tokens": limits["context_window"],
                "max_tokens": limits["max_output_tokens"],
            }
        data = json.dumps(answer if answer is not None else {"error": {"message": "no such model"}}).encode()
        handler.send_response(200 if answer is not None else 404)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _answer(self, handler: BaseHTTPRequestHandler, round_: dict[str, Any], index: int) -> None:
        if round_.get("silent"):
            self._stopping.wait()
            return
        if "status" in round_:
            message = round_.get("error", "scripted failure")
            error = round_.get("body", {"error": {"message": message}})
            if "body" not in round_ and _render(handler.path) is _gemini:  # Google's shape
                status = int(round_["status"])
                google: dict[str, Any] = {"code": status, "message": message}
                google["status"] = _GOOGLE_STATUS.get(status, "INTERNAL" if status >= 500 else "UNKNOWN")
                if "retry_after" in round_:
                    retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo"}
                    google["details"] = [{**retry, "retryDelay": f"{round_['retry_after']}s"}]
                error = {"error": google}
            body = (error if isinstance(error, str) else json.dumps(error)).encode()
            handler.send_response(int(round_["status"]))
            handler.send_header("content-type", "application/json")
            if "retry_after" in round_:
                handler.send_header("retry-after", str(round_["retry_after"]))
            handler.send_header("content-length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            return
        frames = sse_frames(handler.path, round_, index)
        chunked = bool(round_.get("chunked"))
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        if chunked:
            handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        send = _chunk if chunked else (lambda data: data)
        try:
            if "cut" in round_:
                handler.wfile.write(b"".join(send(f) for f in frames[: int(round_["cut"])]))
                handler.wfile.flush()
                handler.close_connection = True
                return
            if "stall" in round_:
                handler.wfile.write(b"".join(send(f) for f in frames[: int(round_["stall"])]))
                handler.wfile.flush()
                every = round_.get("ping")
                while not self._stopping.wait(float(every) if every else None):
                    handler.wfile.write(send(b": ping\n\n"))
                    handler.wfile.flush()
                return
            handler.wfile.write(b"".join(send(f) for f in frames) + (b"0\r\n\r\n" if chunked else b""))
            handler.wfile.flush()
        except OSError:  # the client went away (it gave up waiting): nothing more to send
            return

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


if __name__ == "__main__":  # python -m tests.agent.scripted_server ROUNDS.json: serve them until killed
    import sys

    with open(sys.argv[1], encoding="utf-8") as given, ScriptedServer(json.load(given)) as running:
        print(running.url, flush=True)
        threading.Event().wait()

"""What a long conversation costs each request before it leaves: the time a provider's stream() takes
for a conversation of N messages, against a transport that answers at once with a short reply, per
request and per message.

    .venv/bin/python benchmarks/conversation.py [--sizes 100,1000,4000] [--runs 3]

The conversation is rounds of a prompt, a reply with one call, and its result (500 characters). The
SDKs' own argument conversion (`maybe_transform`, which walks every message against the typed
parameters) took about 0.13-0.4 ms a message, so a 2,000-turn session spent seconds a request in
it; the conversation now reaches the SDK as `extra_body`, sent as it is, and the SDK converts only
the few fields it is given by name. The per-message figure should be flat and small (JSON encoding).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx2  # noqa: E402

from bastion.agent.providers import ProviderConfig, RetryPolicy, make_model  # noqa: E402
from bastion.agent.runtime import Assistant, Message, ModelRequest, ToolCall, ToolResult, User  # noqa: E402
from tests.agent.scripted_server import sse_body  # noqa: E402

_ENV = {"OPENAI_API_KEY": "sk-bench", "ANTHROPIC_API_KEY": "sk-bench", "BENCH_KEY": "sk-bench"}


def _conversation(messages: int) -> list[Message]:
    out: list[Message] = []
    for i in range(messages // 3):
        out.append(User("please look at the file " * 10))
        out.append(Assistant("", (ToolCall(f"c{i}", "bash", '{"command": "ls -la src"}'),)))
        out.append(ToolResult(f"c{i}", "bash", "x" * 500))
    return [*out, User("go on")]


def _answer(request: httpx2.Request) -> httpx2.Response:
    body = sse_body(request.url.path, {"text": "ok"})
    return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--sizes", default="100,1000,4000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    print(f"{'provider':14} {'messages':>8} {'ms/request':>11} {'us/message':>11}")
    for provider in ("openai", "openresponses", "anthropic"):
        cfg = ProviderConfig(
            provider=provider,
            model="m",
            base_url="http://bench.test/v1",
            api_key_env="BENCH_KEY" if provider == "openresponses" else None,
        )
        model = make_model(cfg, _ENV, RetryPolicy(attempts=0), transport=httpx2.MockTransport(_answer))
        model.stream(ModelRequest(model.options, "system", (User("warm up"),)))
        for size in sizes:
            conversation = _conversation(size)
            request = ModelRequest(model.options, "system", tuple(conversation))
            best = float("inf")
            for _ in range(args.runs):
                began = time.perf_counter()
                model.stream(request)
                best = min(best, time.perf_counter() - began)
            per = best / len(conversation) * 1e6
            print(f"{provider:14} {len(conversation):8} {best * 1000:11.1f} {per:11.1f}")


if __name__ == "__main__":
    main()

"""Large tool arguments streamed: how long each provider takes to read a reply whose one call carries
a command of N KB, sent in 8-character deltas (as models send them), against how long the bare body
takes to read.

    .venv/bin/python benchmarks/streaming.py [--sizes 100,200,400] [--piece 8] [--runs 3]

The bodies are rendered first (the scripted server's SSE for Chat Completions, Responses, Anthropic
Messages and Gemini's streamGenerateContent) and served by a process of their own, so the server's
work is not measured. Gemini sends a call's arguments whole, in one event, and bastion speaks it
without an SDK: its `sdk` column is empty.
For each wire format and size it prints, in seconds (the fastest of --runs): `read`, the body read
with httpx2 and nothing parsed (the server's pace); `sdk`, the SDK's own typed stream iterated,
building a model per delta (what bastion read before issue 25); `bastion`, the provider's stream()
to its Reply; then bastion's time over read, and its time per MB at each size: flat when the
accumulation is linear.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agent.scripted_server import sse_body  # noqa: E402

PATHS = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/m:streamGenerateContent",
}


def _serve(directory: str) -> None:
    """Serve DIRECTORY/<format> for a POST to that format's path, until killed; print the port."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("content-length", "0")))
            path = self.path.partition("?")[0]
            name = next(f for f, p in PATHS.items() if path.endswith(p.removeprefix("/v1")))
            body = Path(directory, name).read_bytes()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


def _best(runs: int, work: Callable[[str, str], None], base: str, fmt: str) -> float:
    work(base, fmt)  # the first run imports and connects: not measured
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work(base, fmt)
        times.append(time.perf_counter() - start)
    return min(times)


def _read(base: str, fmt: str) -> None:
    import httpx2

    with httpx2.Client(timeout=60) as client, client.stream("POST", base + PATHS[fmt], json={}) as response:
        for _ in response.iter_bytes():
            pass


def _sdk(base: str, fmt: str) -> None:
    import anthropic
    import openai

    assert fmt != "gemini", "bastion reads Gemini with no SDK"
    if fmt == "anthropic":
        claude = anthropic.Anthropic(api_key="k", base_url=base, max_retries=0)
        with claude.messages.create(model="m", max_tokens=1, messages=[], stream=True) as events:
            for _ in events:
                pass
        return
    client = openai.OpenAI(api_key="k", base_url=base + "/v1", max_retries=0)
    if fmt == "chat":
        with client.chat.completions.create(model="m", messages=[], stream=True) as chunks:
            for _ in chunks:
                pass
    else:
        with client.responses.create(model="m", input=[], stream=True) as stream:
            for _ in stream:
                pass


def _bastion(base: str, fmt: str) -> None:
    from bastion.agent.providers import ProviderConfig, make_model
    from bastion.agent.runtime import ModelRequest

    provider = {"chat": "openai", "responses": "openresponses", "anthropic": "anthropic", "gemini": "gemini"}[
        fmt
    ]
    url = base if fmt in ("anthropic", "gemini") else base + "/v1"
    extra = (
        {"model": "m", "api_key_env": "K"}
        if fmt == "responses"
        else {"model": "m"}
        if fmt == "gemini"
        else {}
    )
    model = make_model(
        ProviderConfig(provider=provider, base_url=url, think=False, **extra),  # type: ignore[arg-type]
        {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "GEMINI_API_KEY": "k", "K": "k"},
    )
    if fmt == "anthropic":  # its output limit, asked of the models API, is not what is measured
        model._max_tokens["m"] = 1024  # type: ignore[union-attr]
    reply = model.stream(ModelRequest(model.options, "system", ()))
    assert len(reply.message.calls[0].arguments) > 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,200,400", help="command sizes in KB, comma-separated")
    parser.add_argument("--piece", type=int, default=8, help="characters per delta")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve)
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"a bash call whose command is N KB, in {args.piece}-character deltas; fastest of {args.runs}")
    heads = ("KB", 5), ("body MB", 8), ("read", 7), ("sdk", 7), ("bastion", 8), ("/read", 6), ("s/MB", 6)
    print(f"{'format':10} " + " ".join(f"{name:>{width}}" for name, width in heads))
    with tempfile.TemporaryDirectory() as directory:
        for size in sizes:
            call = {"name": "bash", "arguments": {"command": "echo " + "x" * (size * 1000)}}
            round_ = {"calls": [call], "pieces": args.piece}
            for fmt, path in PATHS.items():
                Path(directory, fmt).write_bytes(sse_body(path, round_))
            server = subprocess.Popen(
                [sys.executable, __file__, "--serve", directory], stdout=subprocess.PIPE, text=True
            )
            try:
                assert server.stdout is not None
                base = f"http://127.0.0.1:{server.stdout.readline().strip()}"
                for fmt in PATHS:
                    body = os.path.getsize(Path(directory, fmt)) / 1e6
                    read, ours = (_best(args.runs, way, base, fmt) for way in (_read, _bastion))
                    sdk = f"{_best(args.runs, _sdk, base, fmt):7.3f}" if fmt != "gemini" else f"{'-':>7}"
                    print(
                        f"{fmt:10} {size:5} {body:8.2f} {read:7.3f} {sdk} {ours:8.3f} "
                        f"{ours / read:6.1f} {ours / (size / 1000):6.2f}"
                    )
            finally:
                server.kill()
                server.wait()


if __name__ == "__main__":
    main()

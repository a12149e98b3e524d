"""Providers through the CLI: keys from the environment or a command, failures classified into kinds and
exit statuses, and a light import."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from bastion.agent.runtime import ModelRequest, User
from tests.loaded import modules_loaded
from tests.waits import PATIENCE

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer, sse_body
from .test_scenarios import _env, _workspace


def _json_run(
    tmp: Path, argv: list[str], env: dict[str, str] | None = None
) -> tuple[int, dict[str, object], str]:
    work = tmp / "work"
    if not work.exists():
        _workspace(tmp, {})
    code, out, err = run_main(
        ["-p", "hi", "--output-format", "json", *argv], cwd=str(work), env={**_env(tmp), **(env or {})}
    )
    return code, json.loads(out), err


def test_a_missing_key_is_an_error_before_any_request(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "never"}]) as server:
        code, doc, err = _json_run(
            tmp_path, ["--provider", "openai", "--base-url", server.url + "/v1"], {"OPENAI_API_KEY": ""}
        )
    assert code == 1
    assert "bastion: openai: no API key: set OPENAI_API_KEY in the environment" in err
    assert server.requests == [] and doc["result"] is None


def _helper(tmp: Path, body: str) -> str:
    script = tmp / "helper.py"
    script.write_text(body)
    return f"{sys.executable} {script}"


def test_a_key_command_is_run_without_a_shell_and_again_when_the_key_is_refused(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    command = _helper(
        tmp_path,
        f"""import pathlib
p = pathlib.Path({str(counter)!r})
n = int(p.read_text()) + 1 if p.exists() else 1
p.write_text(str(n))
print(f"token-{{n}}")
""",
    )
    with ScriptedServer([{"status": 401}, {"text": "ok"}]) as server:
        code, doc, err = _json_run(
            tmp_path,
            ["--provider", "openrouter", "--base-url", server.url + "/v1", "--api-key-command", command],
            {"OPENROUTER_API_KEY": ""},
        )
    assert code == 0, err
    assert [r["headers"]["authorization"] for r in server.requests] == ["Bearer token-1", "Bearer token-2"]
    assert "token-" not in err and "token-" not in json.dumps(doc)


def test_a_key_command_that_prints_no_token_is_an_authentication_failure(tmp_path: Path) -> None:
    command = _helper(tmp_path, "print('two words')\n")
    with ScriptedServer([{"text": "never"}]) as server:
        code, doc, _ = _json_run(
            tmp_path, ["--provider", "anthropic", "--base-url", server.url, "--api-key-command", command]
        )
    assert code == 12 and doc["outcome"]["failure"]["kind"] == "authentication"  # type: ignore[index]
    assert server.requests == []


@pytest.mark.parametrize(
    ("round_", "kind", "exit_code"),
    [
        ({"status": 404, "error": "model not found"}, "model_not_found", 16),
        ({"status": 400, "error": "maximum context length exceeded"}, "context_exceeded", 13),
        ({"status": 403, "error": "forbidden"}, "authentication", 12),
        ({"status": 418, "error": "teapot"}, "other", 1),
    ],
)
def test_a_provider_refusal_is_classified_with_its_exit_status(
    tmp_path: Path, round_: dict[str, object], kind: str, exit_code: int
) -> None:
    with ScriptedServer([round_]) as server:
        code, doc, _ = _json_run(tmp_path, ["--provider", "openai", "--base-url", server.url + "/v1"])
    assert code == exit_code
    failure = doc["outcome"]["failure"]  # type: ignore[index]
    assert failure["kind"] == kind and failure["http_status"] == round_["status"]


def test_an_unreachable_server_is_a_network_failure_after_retries(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, doc, _ = _json_run(tmp_path, ["--provider", "ollama", "--base-url", f"http://127.0.0.1:{port}"])
    assert code == 17 and doc["outcome"]["failure"]["kind"] == "network"  # type: ignore[index]


def test_a_bad_provider_in_the_config_names_the_file_and_the_field(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('provider = "nosuch"\n')
    code, _, err = _json_run(tmp_path, ["--config", str(config)])
    assert code == 1 and str(config) in err and "provider" in err


def test_openresponses_requires_a_model_and_a_base_url(tmp_path: Path) -> None:
    code, _, err = _json_run(tmp_path, ["--provider", "openresponses", "--base-url", "http://127.0.0.1:9"])
    assert code == 1 and "openresponses: --model is required" in err


def test_a_flag_that_switches_the_provider_leaves_the_configs_model_behind(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('provider = "ollama"\nmodel = "qwen3-coder:30b"\n')
    with ScriptedServer([{"text": "ok"}]) as server:
        code, doc, err = _json_run(
            tmp_path, ["--config", str(config), "--provider", "openai", "--base-url", server.url + "/v1"]
        )
    assert code == 0, err
    assert doc["model"] == "gpt-5" and server.requests[0]["body"]["model"] == "gpt-5"


def test_importing_the_agent_loads_no_sdk_or_http_client() -> None:
    heavy = ("anthropic", "openai", "httpx2", "prompt_toolkit", "mcp", "httpx", "google")
    assert modules_loaded("import bastion.agent", heavy) == []


def _usage_of(tmp: Path, argv: list[str], rounds: list[dict[str, object]]) -> dict[str, object]:
    with ScriptedServer(rounds) as server:
        base = server.url if "anthropic" in argv else server.url + "/v1"
        code, doc, err = _json_run(tmp, [*argv, "--base-url", base], {"OPENROUTER_API_KEY": "k"})
    assert code == 0, err
    return doc["usage"]  # type: ignore[return-value]


def test_the_cost_is_the_providers_own_figure_when_it_reports_one(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "ls", "arguments": {}}], "cost": 0.25},
        {"text": "done", "cost": 0.5},
    ]
    usage = _usage_of(tmp_path, ["--provider", "openrouter"], rounds)
    assert usage["cost_usd"] == 0.75


def test_the_cost_of_a_default_model_comes_from_the_built_in_prices(tmp_path: Path) -> None:
    # gpt-5: $1.25 in, $10 out, $0.125 cache read, $1.25 cache write per million tokens.
    rounds: list[dict[str, object]] = [{"text": "done", "usage": [1_000_000, 100_000, 2_000_000, 0]}]
    usage = _usage_of(tmp_path, ["--provider", "openai"], rounds)
    assert usage["cost_usd"] == 1.25 + 1.0 + 0.25
    assert (usage["input_tokens"], usage["cache_read_tokens"]) == (1_000_000, 2_000_000)


def test_the_cost_of_a_model_priced_in_the_users_config_comes_from_that_price(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[pricing."someone/priced"]\ninput = 2.0\noutput = 8\ncache_write = 4.0\n')
    argv = ["--config", str(config), "--provider", "openrouter", "--model", "someone/priced"]
    rounds: list[dict[str, object]] = [{"text": "done", "usage": [1_000_000, 250_000, 1_000_000, 500_000]}]
    usage = _usage_of(tmp_path, argv, rounds)
    # cache reads default to the input's price: 2.0 + 2.0 (8 x 0.25) + 2.0 + 2.0 (4 x 0.5)
    assert usage["cost_usd"] == 2.0 + 2.0 + 2.0 + 2.0


def test_a_price_that_is_not_a_number_is_a_config_error_naming_the_field(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[pricing."m"]\ninput = "cheap"\noutput = 1\n')
    with ScriptedServer([{"text": "done"}]) as server:
        code, _doc, err = _json_run(
            tmp_path, ["--config", str(config), "--provider", "openai", "--base-url", server.url + "/v1"]
        )
    assert code != 0 and "pricing" in err and "Traceback" not in err


def test_the_cost_of_a_model_without_a_price_is_null_not_zero(tmp_path: Path) -> None:
    argv = ["--provider", "openrouter", "--model", "someone/unpriced"]
    assert _usage_of(tmp_path, argv, [{"text": "done"}])["cost_usd"] is None


def test_anthropic_requests_mark_the_system_the_tools_and_the_last_two_user_turns_for_caching(
    tmp_path: Path,
) -> None:
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "ls", "arguments": {}}]},
        {"calls": [{"name": "ls", "arguments": {}}]},
        {"text": "done"},
    ]
    with ScriptedServer(rounds) as server:
        code, _, err = _json_run(tmp_path, ["--provider", "anthropic", "--base-url", server.url])
    assert code == 0, err
    body = server.requests[-1]["body"]
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert [("cache_control" in t) for t in body["tools"]] == [False] * (len(body["tools"]) - 1) + [True]
    marked = [
        i for i, m in enumerate(body["messages"]) if any("cache_control" in block for block in m["content"])
    ]
    users = [i for i, m in enumerate(body["messages"]) if m["role"] == "user"]
    assert marked == users[-2:] and len(users) == 3


@pytest.mark.parametrize("provider", ["openai", "openresponses", "anthropic"])
def test_an_injected_transport_carries_the_wire_format_with_the_key_in_a_header_only(provider: str) -> None:
    import httpx2

    from bastion.agent.providers import ProviderConfig, RetryPolicy, make_model

    seen: list[httpx2.Request] = []
    answers = [httpx2.Response(529 if provider == "anthropic" else 503, json={"error": {"message": "busy"}})]

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        if answers:
            return answers.pop(0)
        body = sse_body(request.url.path, {"text": "hello", "usage": [7, 3, 11, 0]})
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    cfg = ProviderConfig(
        provider=provider,  # type: ignore[arg-type]
        model="m",
        base_url="http://wire.test/v1",
        api_key_env="WIRE_KEY" if provider == "openresponses" else None,
    )
    environ = {"OPENAI_API_KEY": "sk-WIRE", "ANTHROPIC_API_KEY": "sk-WIRE", "WIRE_KEY": "sk-WIRE"}
    model = make_model(cfg, environ, RetryPolicy(base=0.0), transport=httpx2.MockTransport(handle))
    texts: list[str] = []
    reply = model.stream(ModelRequest(model.options, "system", (User("hi"),), on_text=texts.append))
    assert reply.message.text == "hello" and "".join(texts) == "hello"
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cache_read_tokens) == (7, 3, 11)
    assert len(seen) == 2  # ours retried once; the SDK itself never does
    for request in seen:
        header = request.headers.get("x-api-key") or request.headers.get("authorization")
        assert header is not None and header.endswith("sk-WIRE")
        assert b"sk-WIRE" not in request.content and "sk-WIRE" not in str(request.url)


@pytest.mark.parametrize(
    ("provider", "module", "field"),
    [
        ("openai", "openai.resources.chat.completions.completions", "messages"),
        ("openresponses", "openai.resources.responses.responses", "input"),
    ],
)
def test_the_conversation_reaches_the_openai_sdk_unconverted_and_the_wire_whole(
    monkeypatch: pytest.MonkeyPatch, provider: str, module: str, field: str
) -> None:
    # The SDK's conversion walks every message against its typed parameters (about 0.4 ms each:
    # benchmarks/conversation.py); the conversation must go as it is, in extra_body.
    import importlib

    import httpx2

    from bastion.agent.providers import ProviderConfig, RetryPolicy, make_model
    from bastion.agent.runtime import Assistant, Message, ToolCall, ToolResult

    resources = importlib.import_module(module)
    converted: list[object] = []
    real = resources.maybe_transform

    def watched(data: object, expected: object) -> object:
        converted.append(data.get(field) if isinstance(data, dict) else None)
        return real(data, expected)

    monkeypatch.setattr(resources, "maybe_transform", watched)
    sent: list[dict[str, object]] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        body = sse_body(request.url.path, {"text": "ok"})
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    cfg = ProviderConfig(provider=provider, model="m", base_url="http://wire.test/v1", api_key_env="WIRE_KEY")  # type: ignore[arg-type]
    environ = {"WIRE_KEY": "sk-WIRE", "OPENAI_API_KEY": "sk-WIRE"}
    model = make_model(cfg, environ, RetryPolicy(), transport=httpx2.MockTransport(handle))
    conversation: list[Message] = [
        User("look"),
        Assistant("", (ToolCall("c1", "ls", '{"path": "."}'),)),
        ToolResult("c1", "ls", "a.txt"),
        User("go on"),
    ]
    assert model.stream(ModelRequest(model.options, "system", tuple(conversation))).message.text == "ok"
    assert converted and all(not found for found in converted)
    assert len(sent) == 1 and len(sent[0][field]) >= len(conversation)  # type: ignore[arg-type]


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("status", "body", "kind", "retryable"),
    [
        (429, "slow down", "rate_limited", True),
        (500, "oops", "unavailable", True),
        (529, "overloaded", "unavailable", True),
        (401, "bad key", "authentication", False),
        (402, "pay up", "authentication", False),
        (403, "forbidden", "authentication", False),
        (404, "no such model", "model_not_found", False),
        (400, "prompt is too long: maximum context length is 200000", "context_exceeded", False),
        (400, "the request was flagged by our content policy", "policy_rejection", False),
        (418, "teapot", "other", False),
    ],
)
def test_every_status_error_of_either_sdk_maps_to_its_failure_kind(
    sdk: str, status: int, body: str, kind: str, retryable: bool
) -> None:
    import httpx2

    from bastion.agent.providers import classify

    response = httpx2.Response(
        status,
        json={"error": {"message": body}},
        headers={"retry-after": "3"},
        request=httpx2.Request("POST", "http://wire.test/v1/x"),
    )
    if sdk == "openai":
        import openai

        client: object = openai.OpenAI(api_key="k", base_url="http://wire.test/v1")
    else:
        import anthropic

        client = anthropic.Anthropic(api_key="k", base_url="http://wire.test")
    err = client._make_status_error_from_response(response)  # type: ignore[attr-defined]
    failure = classify("p", err)
    assert (str(failure.kind), failure.retryable, failure.http_status) == (kind, retryable, status)
    assert failure.retry_after == 3.0 and "k" not in failure.args[0].split()


def test_a_dropped_stream_is_a_network_failure_and_anything_else_is_named_not_a_traceback() -> None:
    import httpx2

    from bastion.agent.providers import classify

    dropped = classify("p", httpx2.RemoteProtocolError("peer closed connection"))
    assert (str(dropped.kind), dropped.retryable) == ("network", True)
    odd = classify("p", TypeError("unexpected"))
    assert (str(odd.kind), odd.retryable) == ("other", False) and "TypeError" in str(odd)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_sdks_debug_logs_do_not_carry_the_key(tmp_path: Path, provider: str) -> None:
    import os
    import subprocess

    secret = "sk-LOGGED-0001"
    work = tmp_path / "work"
    work.mkdir()
    env = {
        **os.environ,
        **_env(tmp_path),
        "OPENAI_API_KEY": secret,
        "ANTHROPIC_API_KEY": secret,
        "OPENAI_LOG": "debug",
        "ANTHROPIC_LOG": "debug",
    }
    rounds: list[dict[str, object]] = [
        {"status": 500},
        {"calls": [{"name": "ls", "arguments": {}}]},
        {"text": "ok"},
    ]
    with ScriptedServer(rounds) as server:
        base = server.url if provider == "anthropic" else server.url + "/v1"
        done = subprocess.run(
            [sys.executable, "-m", "bastion", "-p", "hi", "--provider", provider, "--base-url", base],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=PATIENCE,
        )
    assert done.returncode == 0, done.stderr
    assert "HTTP" in done.stderr or "http" in done.stderr  # the debug log was on
    assert secret not in done.stdout + done.stderr
    assert any(secret in json.dumps(r["headers"]) for r in server.requests)


@pytest.mark.parametrize("effort", ["minimal", "low", "medium", "high", "xhigh"])
def test_every_anthropic_thinking_budget_is_below_the_output_limit_the_api_requires(
    tmp_path: Path, effort: str
) -> None:
    with ScriptedServer([{"text": "ok"}]) as server:
        code, _, err = _json_run(
            tmp_path, ["--provider", "anthropic", "--base-url", server.url, "--effort", effort]
        )
    assert code == 0, err
    body = server.requests[0]["body"]
    assert 1024 <= body["thinking"]["budget_tokens"] < body["max_tokens"]


def test_anthropic_asks_for_the_models_own_output_limit_once_a_day_and_keeps_the_budget_below_it(
    tmp_path: Path,
) -> None:
    models = {"claude-sonnet-5-5": {"context_window": 1_000_000, "max_output_tokens": 64000}}
    with ScriptedServer([{"text": "one"}, {"text": "two"}], models=models) as server:
        for _ in range(2):  # the second run reads the cache
            code, _, err = _json_run(
                tmp_path, ["--provider", "anthropic", "--base-url", server.url, "--effort", "xhigh"]
            )
            assert code == 0, err
    assert server.lookups == ["/v1/models/claude-sonnet-5-5"]
    assert [r["body"]["max_tokens"] for r in server.requests] == [64000, 64000]
    assert all(r["body"]["thinking"]["budget_tokens"] < 64000 for r in server.requests)
    cache = tmp_path / "home" / ".bastion" / "models.json"
    assert cache.stat().st_mode & 0o777 == 0o600 and "64000" in cache.read_text()


def test_a_model_the_vendor_does_not_describe_gets_the_default_output_limit(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "ok"}]) as server:
        code, _, err = _json_run(tmp_path, ["--provider", "anthropic", "--base-url", server.url])
    assert code == 0, err
    assert server.requests[0]["body"]["max_tokens"] == 32000


@pytest.mark.parametrize("provider", ["ollama", "openrouter"])
def test_the_transcript_says_the_models_limits_as_the_vendor_gives_them(
    tmp_path: Path, provider: str
) -> None:
    model = "qwen3.5:9b" if provider == "ollama" else "deepseek/deepseek-v4-pro-0813"
    models = {model: {"context_window": 131072, "max_output_tokens": 16384}}
    transcript = tmp_path / "t.json"
    with ScriptedServer([{"text": "ok"}], models=models) as server:
        base = server.url if provider == "ollama" else server.url + "/v1"
        code, _, err = _json_run(
            tmp_path,
            ["--provider", provider, "--base-url", base, "--transcript", str(transcript)],
            {"OPENROUTER_API_KEY": "k"},
        )
    assert code == 0, err
    limits = json.loads(transcript.read_text())["model_limits"]
    assert limits == {
        "context_window": 131072,
        "max_output_tokens": None if provider == "ollama" else 16384,
    }

"""The agent against a model server that misbehaves (issue 25), in each wire format it applies to: a
stream cut short, a server that never answers or stalls or trickles keep-alives for ever, a status
whose body says something else, JSON nested too deep, error events in the stream, and a model that
sends only calls that cannot be used or never stops calling tools. Each ends in its failure kind and
exit status (or is retried), said in words, and never as a traceback or a hang."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer, sse_frames
from .test_scenarios import FORMATS, _env, _session_events, _workspace, base_url, format_env

# Where each format's tool call is first streamed: a cut after that frame comes after the call.
_CALL_FRAME = {
    "chat": b'"tool_calls"',
    "responses": b"response.output_item.done",
    "anthropic": b'"tool_use"',
    "gemini": b'"functionCall"',
    "vertex-claude": b'"tool_use"',
    "vertex-gemini": b'"functionCall"',
}
_VERTEX = "/v1/projects/scripted-project/locations/us-east5/publishers"
_PATH = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    "vertex-claude": f"{_VERTEX}/anthropic/models/claude-sonnet-5-5:streamRawPredict",
    "vertex-gemini": f"{_VERTEX}/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
}
# Gemini sends a call's arguments as an object or not at all (test_a_gemini_call_it_could_not_form_...).
_RAW_ARGUMENTS = [f for f in FORMATS if "gemini" not in f]


def _run(
    tmp: Path, fmt: str, rounds: list[Any], *argv: str, config: str = ""
) -> tuple[int, dict[str, Any], str, ScriptedServer]:
    if config:
        path = tmp / "xdg" / "bastion" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config)
    work = tmp / "work"
    if not work.exists():
        _workspace(tmp, {})
    with ScriptedServer(rounds) as server:
        code, out, err = run_main(
            [
                "-p",
                "go",
                "--output-format",
                "json",
                *FORMATS[fmt],
                "--base-url",
                base_url(server, fmt),
                *argv,
            ],
            cwd=str(work),
            env={**_env(tmp), **format_env(tmp, fmt, server)},
        )
    return code, json.loads(out), err, server


def _failure(doc: dict[str, Any]) -> dict[str, Any]:
    failure: dict[str, Any] = doc["outcome"]["failure"]
    return failure


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_a_stream_cut_before_any_tool_call_is_retried_like_a_5xx(
    tmp_path: Path, fmt: str, chunked: bool
) -> None:
    rounds = [{"text": "the first half of an answer", "cut": 3, "chunked": chunked}, {"text": "whole"}]
    code, doc, err, server = _run(tmp_path, fmt, rounds)
    assert (code, doc["result"], len(server.requests)) == (0, "whole", 2), err
    assert "the answer broke off or stalled, retrying" in err and "is it the API endpoint" not in err


@pytest.mark.parametrize("fmt", ["chat", "anthropic"])
def test_p_text_output_holds_no_text_of_a_try_that_broke_off(tmp_path: Path, fmt: str) -> None:
    rounds = [
        {"text": "a first half that breaks off", "pieces": 4, "cut": 4},
        {"text": "the whole answer", "pieces": 4},
    ]
    _workspace(tmp_path, {})
    with ScriptedServer(rounds) as server:
        code, out, err = run_main(
            ["-p", "go", *FORMATS[fmt], "--base-url", base_url(server, fmt)],
            cwd=str(tmp_path / "work"),
            env=_env(tmp_path),
        )
    assert (code, out, len(server.requests)) == (0, "the whole answer\n", 2), err


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_stream_cut_after_a_tool_call_is_not_sent_again(tmp_path: Path, fmt: str) -> None:
    round_: dict[str, Any] = {"calls": [{"name": "bash", "arguments": {"command": "touch made"}}]}
    frames = sse_frames(_PATH[fmt], round_)
    round_["cut"] = next(i for i, f in enumerate(frames) if _CALL_FRAME[fmt] in f) + 1
    code, doc, err, server = _run(tmp_path, fmt, [round_, {"text": "never"}])
    assert (code, _failure(doc)["kind"], _failure(doc)["attempts"]) == (17, "network", 1)
    assert len(server.requests) == 1 and not (tmp_path / "work" / "made").exists()
    assert "the connection closed before the" in doc["outcome"]["message"]
    assert "could not connect" not in err and "was reached, but its answer broke off" in err


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_server_that_never_answers_is_given_up_after_the_idle_timeout_each_try(
    tmp_path: Path, fmt: str
) -> None:
    code, doc, err, server = _run(
        tmp_path, fmt, [{"silent": True, "repeat": True}], config="stream_idle_timeout = 0.3\n"
    )
    assert (code, _failure(doc)["kind"], _failure(doc)["attempts"]) == (17, "network", 4)
    assert "no byte from the server in 0.3 s (stream_idle_timeout)" in doc["outcome"]["message"]
    assert len(server.requests) == 4 and "stream_idle_timeout" in err


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_stream_that_goes_silent_midway_is_tried_again(tmp_path: Path, fmt: str) -> None:
    rounds = [{"text": "a beginning", "stall": 2}, {"text": "whole"}]
    code, doc, err, server = _run(tmp_path, fmt, rounds, config="stream_idle_timeout = 0.3\n")
    assert (code, doc["result"], len(server.requests)) == (0, "whole", 2), err


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_stream_that_only_trickles_keepalives_is_given_up_at_the_total_bound(
    tmp_path: Path, fmt: str
) -> None:
    # A comment every 50 ms: bytes keep coming, so only the total bound can end the wait.
    rounds = [{"text": "never ends", "stall": 1, "ping": 0.05, "repeat": True}]
    code, doc, _, server = _run(tmp_path, fmt, rounds, config="request_timeout = 2\n")
    assert (code, _failure(doc)["kind"]) == (17, "network")
    assert "no complete answer within 2 s (request_timeout)" in doc["outcome"]["message"]
    # The bound covers the retries too: none is started past it. (On a loaded machine vertex's token
    # and the connection can take the whole bound, so the first request may not be sent at all.)
    assert len(server.requests) <= 1


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_401_is_an_authentication_failure_whatever_its_body_says(tmp_path: Path, fmt: str) -> None:
    body = {"type": "error", "error": {"type": "api_error", "message": "invalid x-api-key"}}
    # vertex's token is fetched again once and the request sent again (as a key command's key is).
    refused = 2 if fmt.startswith("vertex") else 1
    code, doc, err, server = _run(
        tmp_path, fmt, [{"status": 401, "body": body}] * refused + [{"text": "never"}]
    )
    assert (code, _failure(doc)["kind"], _failure(doc)["retryable"]) == (12, "authentication", False)
    assert len(server.requests) == refused and "unavailable" not in err
    assert len(server.tokens) == (refused if fmt.startswith("vertex") else 0)


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("status", "body_type", "kind"),
    [
        (401, "api_error", "authentication"),
        (400, "rate_limit_error", "other"),
        (503, "invalid_request", "unavailable"),
    ],
)
def test_an_http_status_decides_the_kind_over_the_bodys_error_type(
    sdk: str, status: int, body_type: str, kind: str
) -> None:
    import httpx2

    from bastion.agent.providers import classify

    response = httpx2.Response(
        status,
        json={"type": "error", "error": {"type": body_type, "message": "said"}},
        request=httpx2.Request("POST", "http://wire.test/v1/x"),
    )
    if sdk == "openai":
        import openai

        client: object = openai.OpenAI(api_key="k", base_url="http://wire.test/v1")
    else:
        import anthropic

        client = anthropic.Anthropic(api_key="k", base_url="http://wire.test")
    err = client._make_status_error_from_response(response)  # type: ignore[attr-defined]
    assert str(classify("p", err).kind) == kind


@pytest.mark.parametrize("fmt", FORMATS)
def test_json_nested_too_deep_in_a_stream_is_a_protocol_error(tmp_path: Path, fmt: str) -> None:
    code, doc, err, _ = _run(tmp_path, fmt, [{"text": "hi", "nested": 100_000}])
    assert (code, _failure(doc)["kind"]) == (15, "protocol_error")
    assert "nested too deep" in doc["outcome"]["message"] and "RecursionError" not in err


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_error_body_nested_too_deep_is_named_by_its_status_not_a_traceback(
    tmp_path: Path, fmt: str
) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    code, doc, err, _ = _run(tmp_path, fmt, [{"status": 400, "body": nested}])
    assert (code, _failure(doc)["kind"], _failure(doc)["http_status"]) == (1, "other", 400)
    assert "RecursionError" not in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("error", "kind", "tried"),
    [
        ({"type": "overloaded_error", "message": "busy"}, "unavailable", 4),
        ({"type": "rate_limit_error", "message": "slow down"}, "rate_limited", 4),
        (
            {"type": "invalid_request_error", "message": "prompt is too long: context window"},
            "context_exceeded",
            1,
        ),
    ],
)
def test_an_error_event_in_the_stream_is_classified_and_retried_when_it_may_help(
    tmp_path: Path, fmt: str, error: dict[str, str], kind: str, tried: int
) -> None:
    code, doc, _, server = _run(tmp_path, fmt, [{"text": "x", "stream_error": error, "repeat": True}])
    assert (_failure(doc)["kind"], _failure(doc)["attempts"], len(server.requests)) == (kind, tried, tried)
    assert error["message"] in doc["outcome"]["message"] and code != 0


@pytest.mark.parametrize("fmt", _RAW_ARGUMENTS)
def test_a_model_that_sends_only_malformed_calls_ends_the_turn(tmp_path: Path, fmt: str) -> None:
    rounds = [{"calls": [{"name": "bash", "arguments": "{not json"}], "repeat": True}]
    code, doc, _, server = _run(tmp_path, fmt, rounds)
    assert (code, _failure(doc)["kind"], len(server.requests)) == (15, "malformed_tool_arguments", 3)
    assert "could not be used 3 replies in a row" in doc["outcome"]["message"]
    messages = [e["message"] for e in _session_events(tmp_path) if e["type"] == "message"]
    assert messages[-1]["role"] == "tool_result"  # every call answered: the conversation stays valid


@pytest.mark.parametrize("fmt", ["gemini", "vertex-gemini"])
def test_a_gemini_call_it_could_not_form_is_asked_again_then_fails_as_malformed(
    tmp_path: Path, fmt: str
) -> None:
    rounds = [{"calls": [{"name": "bash", "arguments": "{not json"}], "repeat": True}]
    code, doc, _, server = _run(tmp_path, fmt, rounds)
    assert (code, _failure(doc)["kind"], len(server.requests)) == (15, "malformed_tool_arguments", 4)
    assert "finishReason: MALFORMED_FUNCTION_CALL" in doc["outcome"]["message"]


def test_a_usable_call_between_malformed_ones_starts_the_count_again(tmp_path: Path) -> None:
    bad: dict[str, Any] = {"calls": [{"name": "nosuch", "arguments": {}}]}
    good = {"calls": [{"name": "ls", "arguments": {}}]}
    code, doc, _, server = _run(tmp_path, "chat", [bad, bad, good, bad, bad, {"text": "done"}])
    assert (code, doc["result"], len(server.requests)) == (0, "done", 6)


@pytest.mark.parametrize("fmt", FORMATS)
def test_max_turns_ends_a_run_whose_model_still_calls_tools(tmp_path: Path, fmt: str) -> None:
    ls = {"calls": [{"name": "ls", "arguments": {}}]}
    code, doc, err, server = _run(tmp_path, fmt, [ls, ls, ls, {"text": "never"}], "--max-turns", "2")
    assert (code, _failure(doc)["kind"], len(server.requests)) == (19, "max_turns", 2)
    assert doc["result"] is None and "limit of 2 model requests" in doc["outcome"]["message"]
    results = [
        e["message"]
        for e in _session_events(tmp_path)
        if e["type"] == "message" and e["message"]["role"] == "tool_result"
    ]
    assert len(results) == 2 and results[-1]["content"].startswith("not run: the run reached its limit")
    assert "✗ ls: not run" in err  # drawn, though it was never decided


def test_max_turns_from_the_config_and_a_run_within_it_completes(tmp_path: Path) -> None:
    ls = {"calls": [{"name": "ls", "arguments": {}}]}
    code, doc, _, _ = _run(tmp_path, "chat", [ls, {"text": "done"}], config="max_turns = 2\n")
    assert (code, doc["result"]) == (0, "done")
    code, doc, _, server = _run(tmp_path, "chat", [ls, ls, {"text": "never"}], config="max_turns = 2\n")
    assert (code, _failure(doc)["kind"], len(server.requests)) == (19, "max_turns", 2)


@pytest.mark.parametrize(
    ("argv", "said"),
    [(["--max-turns", "0"], "not a whole number above 0"), (["--max-turns", "3"], "--max-turns needs -p")],
)
def test_max_turns_is_a_positive_number_for_p_only(tmp_path: Path, argv: list[str], said: str) -> None:
    _workspace(tmp_path, {})
    prompt = ["-p", "x"] if argv[1] == "0" else []
    code, _, err = run_main([*prompt, *argv], cwd=str(tmp_path / "work"), env=_env(tmp_path))
    assert code == 2 and said in err

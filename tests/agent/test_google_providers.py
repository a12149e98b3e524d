"""gemini and vertex (issue 27) against the scripted server, through the CLI: what each request carries
(the key or token in a header only, Gemini's thought signatures and function responses, thinking by
the model's generation, Claude's Vertex body), how each refusal and failure is said, and vertex's
sign-in (a service account's key file, gcloud's login, the token fetched again, the project and
location, a model of neither family) checked before any request."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bastion.agent.runtime import Assistant, ModelRequest, ToolCall, User

from .agent_fixtures import run_main
from .google_adc import LOCATION, PROJECT, authorized_user, service_account, vertex_env
from .scripted_server import ScriptedServer, sse_body
from .test_scenarios import SECRET, _env, _workspace

_VERTEX = f"/v1/projects/{PROJECT}/locations/{LOCATION}/publishers"


def _run(
    tmp: Path,
    server: ScriptedServer,
    argv: list[str],
    env: dict[str, str] | None = None,
    *,
    vertex: bool = False,
) -> tuple[int, dict[str, Any], str]:
    work = tmp / "work"
    if not work.exists():
        _workspace(tmp, {})
    environ = {**_env(tmp), **(vertex_env(tmp, server.url) if vertex else {}), **(env or {})}
    code, out, err = run_main(
        ["-p", "hi", "--output-format", "json", "--base-url", server.url, *argv], cwd=str(work), env=environ
    )
    return code, json.loads(out), err


def _failure(doc: dict[str, Any]) -> dict[str, Any]:
    failure: dict[str, Any] = doc["outcome"]["failure"]
    return failure


# --- gemini ---------------------------------------------------------------------------------------


def test_gemini_without_its_key_stops_before_any_request(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "never"}]) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "gemini"], {"GEMINI_API_KEY": ""})
    assert code == 1 and "gemini: no API key: set GEMINI_API_KEY in the environment" in err
    assert server.requests == []


def test_a_gemini_request_carries_the_key_in_its_header_and_the_tools_as_json_schema(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "hello"}]) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "gemini"])
    assert code == 0 and doc["result"] == "hello", err
    (request,) = server.requests
    assert request["path"] == "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert request["headers"]["x-goog-api-key"] == SECRET and "authorization" not in request["headers"]
    body = request["body"]
    assert SECRET not in json.dumps(body)
    assert body["systemInstruction"]["parts"][0]["text"] and body["contents"][0]["role"] == "user"
    declared = body["tools"][0]["functionDeclarations"]
    read = next(d for d in declared if d["name"] == "read")
    assert read["parametersJsonSchema"]["type"] == "object" and "parameters" not in read
    assert body["generationConfig"]["thinkingConfig"] == {"thinkingBudget": 2048}  # 2.5 at effort low


@pytest.mark.parametrize(
    ("argv", "thinking"),
    [
        (["--model", "gemini-3-pro-preview", "--effort", "xhigh"], {"thinkingLevel": "high"}),
        (["--model", "gemini-3.5-flash", "--no-think"], {"thinkingLevel": "low"}),  # it always thinks
        (["--model", "gemini-2.5-flash", "--no-think"], {"thinkingBudget": 0}),
        (["--model", "gemini-2.5-pro", "--no-think"], {"thinkingBudget": 128}),  # its least
        (["--model", "gemini-2.0-flash"], None),  # no thinking to configure
        (["--model", "gemini-exp-1206"], None),  # a generation not known: its default
    ],
)
def test_gemini_thinking_is_asked_for_as_the_models_generation_takes_it(
    tmp_path: Path, argv: list[str], thinking: dict[str, Any] | None
) -> None:
    with ScriptedServer([{"text": "ok"}]) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "gemini", *argv])
    assert code == 0, err
    body = server.requests[0]["body"]
    assert body.get("generationConfig", {}).get("thinkingConfig") == thinking


def test_a_gemini_call_goes_back_with_its_thought_signature_and_its_result_as_a_function_response(
    tmp_path: Path,
) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "notes.txt").write_text("the answer is 42\n")
    rounds = [{"calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}, {"text": "42"}]
    with ScriptedServer(rounds) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "gemini"])
    assert code == 0 and doc["result"] == "42", err
    model_turn, answer = server.requests[1]["body"]["contents"][1:]
    assert model_turn == {
        "role": "model",
        "parts": [
            {"functionCall": {"name": "read", "args": {"path": "notes.txt"}}, "thoughtSignature": "sig-0"}
        ],
    }
    (part,) = answer["parts"]
    assert answer["role"] == "user" and part["functionResponse"]["name"] == "read"
    assert "id" not in part["functionResponse"]  # the model gave the call none
    assert "the answer is 42" in part["functionResponse"]["response"]["output"]


def test_a_gemini_call_with_an_id_is_answered_with_it(tmp_path: Path) -> None:
    rounds = [{"calls": [{"name": "ls", "arguments": {}, "id": "fc-7"}]}, {"text": "done"}]
    with ScriptedServer(rounds) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "gemini"])
    assert code == 0, err
    contents = server.requests[1]["body"]["contents"]
    assert contents[1]["parts"][0]["functionCall"]["id"] == "fc-7"
    assert contents[2]["parts"][0]["functionResponse"]["id"] == "fc-7"


def test_a_key_gemini_refuses_is_an_authentication_failure_though_its_status_is_400(tmp_path: Path) -> None:
    body = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}],
        }
    }
    with ScriptedServer([{"status": 400, "body": body}]) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "gemini"])
    assert (code, _failure(doc)["kind"], _failure(doc)["http_status"]) == (12, "authentication", 400)
    assert "API key not valid" in doc["outcome"]["message"] and "check $GEMINI_API_KEY" in err


def test_geminis_retry_delay_in_its_error_body_is_honoured_like_a_retry_after(tmp_path: Path) -> None:
    retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}
    body = {
        "error": {
            "code": 429,
            "message": "Quota exceeded",
            "status": "RESOURCE_EXHAUSTED",
            "details": [retry],
        }
    }
    with ScriptedServer([{"status": 429, "body": body, "repeat": True}]) as server:
        code, doc, _ = _run(tmp_path, server, ["--provider", "gemini"])
    failure = _failure(doc)
    assert (code, failure["kind"], failure["retry_after_ms"], failure["attempts"]) == (
        11,
        "rate_limited",
        2000,
        4,
    )
    assert len(server.requests) == 4


def test_a_prompt_gemini_blocks_is_a_policy_rejection(tmp_path: Path) -> None:
    with ScriptedServer([{"blocked": True}]) as server:
        code, doc, _ = _run(tmp_path, server, ["--provider", "gemini"])
    assert (code, _failure(doc)["kind"], len(server.requests)) == (14, "policy_rejection", 1)
    assert "blockReason: PROHIBITED_CONTENT" in doc["outcome"]["message"]


def test_a_context_too_long_for_gemini_is_context_exceeded(tmp_path: Path) -> None:
    said = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    with ScriptedServer([{"status": 400, "error": said}]) as server:
        code, doc, _ = _run(tmp_path, server, ["--provider", "gemini"])
    assert (code, _failure(doc)["kind"]) == (13, "context_exceeded")


def test_geminis_limits_come_from_its_models_api_and_its_list_from_the_same(tmp_path: Path) -> None:
    models = {"gemini-2.5-pro": {"context_window": 1048576, "max_output_tokens": 65536}}
    transcript = tmp_path / "t.json"
    with ScriptedServer([{"text": "ok"}], models=models) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "gemini", "--transcript", str(transcript)])
        from bastion.agent.providers import Connection, KeySource, listed_models

        key = KeySource("gemini", env_name="K", environ={"K": SECRET})
        listed = listed_models(Connection("gemini", server.url, key))
    assert code == 0, err
    limits = json.loads(transcript.read_text())["model_limits"]
    assert limits == {"context_window": 1048576, "max_output_tokens": 65536}
    assert listed == ["gemini-2.5-pro"] and server.lookups == [
        "/v1beta/models/gemini-2.5-pro",
        "/v1beta/models?pageSize=1000",
    ]


# --- vertex: requests -----------------------------------------------------------------------------


def test_claude_on_vertex_is_streamed_from_streamrawpredict_with_the_token(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "hello"}], tokens=("vertex-access-token-0001",)) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "vertex"], vertex=True)
    assert code == 0 and doc["result"] == "hello" and doc["model"] == "claude-sonnet-5-5", err
    (request,) = server.requests
    assert request["path"] == f"{_VERTEX}/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    assert request["headers"]["authorization"] == "Bearer vertex-access-token-0001"
    assert "x-api-key" not in request["headers"] and "x-goog-user-project" not in request["headers"]
    body = request["body"]
    assert body["anthropic_version"] and "model" not in body and body["stream"] is True  # the SDK's version
    # The token was made from the service account's key: a JWT grant, signed, at the file's token_uri.
    (grant,) = server.tokens
    assert (
        grant["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
        and grant["assertion"].count(".") == 2
    )


def test_gemini_on_vertex_is_streamed_from_its_publishers_url_with_the_token(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "hello"}], tokens=("vertex-access-token-0002",)) as server:
        code, doc, err = _run(
            tmp_path, server, ["--provider", "vertex", "--model", "gemini-2.5-flash"], vertex=True
        )
    assert code == 0 and doc["result"] == "hello", err
    (request,) = server.requests
    assert request["path"] == f"{_VERTEX}/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert request["headers"]["authorization"] == "Bearer vertex-access-token-0002"
    assert "x-goog-api-key" not in request["headers"]


def test_vertexs_token_is_fetched_again_once_it_has_expired(tmp_path: Path) -> None:
    # An hour's token is good for every request; one of 60 s is within google-auth's margin at once.
    rounds = [{"calls": [{"name": "ls", "arguments": {}}]}, {"text": "done"}]
    answer = {"body": {"access_token": "short-lived-token-0001", "expires_in": 60, "token_type": "Bearer"}}
    with ScriptedServer(rounds, token_answer=answer) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "vertex"], vertex=True)
    assert code == 0, err
    assert len(server.tokens) == 2 and len(server.requests) == 2
    with ScriptedServer(rounds) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "vertex"], vertex=True)
    assert code == 0 and len(server.tokens) == 1, err


def test_a_token_vertex_refuses_is_fetched_again_and_the_request_sent_again(tmp_path: Path) -> None:
    rounds = [{"status": 401, "error": "Request had invalid authentication credentials."}, {"text": "ok"}]
    with ScriptedServer(rounds, tokens=("token-one-0000001", "token-two-0000002")) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "vertex"], vertex=True)
    assert code == 0 and doc["result"] == "ok", err
    assert [r["headers"]["authorization"] for r in server.requests] == [
        "Bearer token-one-0000001",
        "Bearer token-two-0000002",
    ]


def test_credentials_the_token_endpoint_refuses_are_an_authentication_failure_naming_the_file(
    tmp_path: Path,
) -> None:
    answer = {
        "status": 400,
        "body": {"error": "invalid_grant", "error_description": "Invalid JWT Signature."},
    }
    with ScriptedServer([{"text": "never"}], token_answer=answer) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "vertex"], vertex=True)
    assert (code, _failure(doc)["kind"]) == (12, "authentication")
    message = doc["outcome"]["message"]
    assert message.startswith("authentication failed: vertex: ") and "service-account.json" in message
    assert "invalid_grant" in message and "gcloud auth application-default login" in message
    assert server.requests == [] and "Traceback" not in err


@pytest.mark.parametrize("where", ["CLOUDSDK_CONFIG", "HOME"])
def test_gclouds_login_is_found_where_gcloud_writes_it_and_bills_its_quota_project(
    tmp_path: Path, where: str
) -> None:
    # google-auth sends a login's refresh token to Google's own token endpoint whatever the file says:
    # the network is replaced here (make_model's transport), so nothing leaves the machine.
    import httpx2

    from bastion.agent.providers import ProviderConfig, make_model

    seen: list[httpx2.Request] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        if request.url.host == "oauth2.googleapis.com":
            return httpx2.Response(200, json={"access_token": "login-token-00000001", "expires_in": 3600})
        body = sse_body(request.url.path, {"text": "hi"})
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    config = tmp_path / "gcloud" if where == "CLOUDSDK_CONFIG" else tmp_path / ".config" / "gcloud"
    authorized_user(config / "application_default_credentials.json", "https://ignored.test/token", "billed")
    environ = {
        "HOME": str(tmp_path),
        **({"CLOUDSDK_CONFIG": str(config)} if where == "CLOUDSDK_CONFIG" else {}),
    }
    model = make_model(ProviderConfig(provider="vertex"), environ, transport=httpx2.MockTransport(handle))
    for name in ("claude-sonnet-5-5", "gemini-2.5-pro"):  # as /model moves between the families
        asked = ModelRequest(replace(model.options, model=name), "s", (User("hi"),))
        assert model.stream(asked).message.text == "hi"
    token, claude, gemini = seen  # one token, good for both families' requests
    assert token.url == "https://oauth2.googleapis.com/token" and b"grant_type=refresh_token" in token.content
    claude_path = "/v1/projects/billed/locations/global/publishers/anthropic/models/claude-sonnet-5-5"
    assert claude.url.path == f"{claude_path}:streamRawPredict"
    assert str(gemini.url).startswith(
        "https://aiplatform.googleapis.com/v1/projects/billed/locations/global/"
    )
    for request in (claude, gemini):  # the login's own project serves, and is billed
        assert request.headers["authorization"] == "Bearer login-token-00000001"
        assert request.headers["x-goog-user-project"] == "billed"


@pytest.mark.parametrize(
    ("env", "place"),
    [
        ({"GOOGLE_CLOUD_PROJECT": "named"}, f"projects/named/locations/{LOCATION}"),
        (
            {"GOOGLE_CLOUD_LOCATION": "", "GOOGLE_CLOUD_REGION": "europe-west1"},
            f"projects/{PROJECT}/locations/europe-west1",
        ),
    ],
)
def test_the_project_and_location_come_from_googles_usual_variables(
    tmp_path: Path, env: dict[str, str], place: str
) -> None:
    with ScriptedServer([{"text": "ok"}]) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "vertex"], env, vertex=True)
    assert code == 0, err
    assert server.requests[0]["path"].startswith(f"/v1/{place}/publishers/anthropic/")


def test_a_sub_agent_on_vertex_may_be_of_the_other_family(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "task", "id": "t1", "arguments": {"kind": "explore", "prompt": "look"}}]},
        {"text": "looked"},
        {"text": "done"},
    ]
    with ScriptedServer(rounds) as server:
        argv = ["--provider", "vertex", "--subagent-model", "gemini-2.5-flash"]
        code, doc, err = _run(tmp_path, server, argv, vertex=True)
    assert code == 0 and doc["result"] == "done", err
    assert [r["model"] for r in server.requests] == [
        "claude-sonnet-5-5",
        "gemini-2.5-flash",
        "claude-sonnet-5-5",
    ]
    assert [r["path"].rpartition(":")[2] for r in server.requests] == [
        "streamRawPredict",
        "streamGenerateContent?alt=sse",
        "streamRawPredict",
    ]


# --- vertex: refused before any request ------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ["--model", "gpt-5"],
            'vertex serves Claude (claude-...) and Gemini (gemini-...) models only, not "gpt-5"',
        ),
        (["--subagent-model", "llama-4"], "--subagent-model: vertex serves Claude (claude-...) and Gemini"),
        (["--api-key-command", "gcloud auth print-access-token"], "vertex takes no key (api_key_command)"),
    ],
)
def test_what_vertex_cannot_run_is_refused_before_any_request(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    with ScriptedServer([{"text": "never"}]) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "vertex", *argv], vertex=True)
    assert code == 1 and said in err, err
    assert server.requests == [] and server.tokens == []
    assert not (tmp_path / "home" / ".bastion" / "sessions").exists()


def _credentials(tmp: Path, info: dict[str, Any] | str) -> dict[str, str]:
    path = tmp / "adc.json"
    path.write_text(info if isinstance(info, str) else json.dumps(info))
    return {"GOOGLE_APPLICATION_CREDENTIALS": str(path), "GOOGLE_CLOUD_PROJECT": ""}


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (
            lambda tmp: {"GOOGLE_APPLICATION_CREDENTIALS": str(tmp / "missing.json")},
            "missing.json ($GOOGLE_APPLICATION_CREDENTIALS) does not exist",
        ),
        (lambda tmp: _credentials(tmp, "not json"), "adc.json: not a credential file"),
        (
            lambda tmp: _credentials(tmp, {"type": "external_account", "audience": "x"}),
            'credentials of type "external_account" are not taken (service_account or authorized_user',
        ),
        (
            lambda tmp: {
                **_credentials(tmp, {}),
                **{
                    "GOOGLE_APPLICATION_CREDENTIALS": str(
                        service_account(tmp / "sa.json", "http://127.0.0.1:9/token", project=None)
                    )
                },
            },
            "vertex: no project: set GOOGLE_CLOUD_PROJECT",
        ),
        (
            lambda tmp: {"GOOGLE_CLOUD_LOCATION": "evil.example/x#"},
            'vertex: $GOOGLE_CLOUD_LOCATION: "evil.example/x#" is not a location',
        ),
        (
            lambda tmp: {"GOOGLE_CLOUD_PROJECT": "my project"},
            'vertex: $GOOGLE_CLOUD_PROJECT: "my project" is not a project ID',
        ),
    ],
)
def test_vertexs_credentials_project_and_location_are_checked_before_any_request(
    tmp_path: Path, make: Any, said: str
) -> None:
    with ScriptedServer([{"text": "never"}]) as server:
        code, _, err = _run(tmp_path, server, ["--provider", "vertex"], make(tmp_path), vertex=True)
    assert code == 1 and said in err, err
    assert server.requests == [] and server.tokens == [] and "Traceback" not in err


# --- the families in one conversation --------------------------------------------------------------


def test_each_family_sends_back_only_what_it_made_itself() -> None:
    # private: each family's wire rendering of a conversation is the thing tested
    from bastion.agent.providers._anthropic import _messages as claude_messages
    from bastion.agent.providers._gemini import _contents as gemini_contents

    thinking = {"type": "thinking", "thinking": "hm", "signature": "c2ln"}
    signed = {"type": "gemini_signatures", "by": {"c1": "Z3NpZw=="}}
    turn = Assistant("", (ToolCall("c1", "ls", "{}"),), (thinking, signed))
    claude = claude_messages([User("hi"), turn])
    assert claude[1]["content"][0] == thinking and signed not in claude[1]["content"]
    gemini = gemini_contents([User("hi"), turn])
    assert gemini[1]["parts"] == [
        {"functionCall": {"name": "ls", "args": {}, "id": "c1"}, "thoughtSignature": "Z3NpZw=="}
    ]


def test_model_refuses_a_name_vertex_cannot_serve_and_takes_either_family(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # private: /model's check of a name is the thing tested, without a REPL
    from bastion.agent.front._slash import _checked_model
    from bastion.agent.providers import Connection

    connection = Connection("vertex", "http://127.0.0.1:9", None)
    assert _checked_model("gpt-5", connection) is None
    said = " ".join(capsys.readouterr().out.split())  # wrapped between words to the terminal
    assert 'vertex serves Claude (claude-...) and Gemini (gemini-...) models only, not "gpt-5"' in said
    assert _checked_model("gemini-3.5-flash", connection) == "gemini-3.5-flash"
    assert _checked_model("claude-opus-5-5", connection) == "claude-opus-5-5"


def test_a_token_refused_twice_says_where_vertex_signs_in_from(tmp_path: Path) -> None:
    rounds = [{"status": 403, "error": "Permission denied on resource project"}] * 2
    with ScriptedServer(rounds, tokens=("token-one-0000001", "token-two-0000002")) as server:
        code, doc, err = _run(tmp_path, server, ["--provider", "vertex"], vertex=True)
    assert (code, _failure(doc)["kind"], len(server.requests), len(server.tokens)) == (
        12,
        "authentication",
        2,
        2,
    )
    assert "check your Application Default Credentials (gcloud auth application-default login)" in err

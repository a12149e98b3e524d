"""The REPL's conversation: /clear starts anew, a prompt that failed before any answer is not sent
again, /model is checked against the provider's list, --resume shows where the conversation was,
and a mistyped command gets a suggestion. The model list is asked as each provider lists it."""

from __future__ import annotations

import socket
from pathlib import Path

import pexpect
import pytest

from bastion.agent.front import COMMANDS, help_text

# private: /model's check and listing are the things tested, without a REPL
from bastion.agent.front._slash import _checked_model, _list_models
from bastion.agent.providers import Connection, KeySource, listed_models
from bastion.agent.runtime import Failure, ModelError

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_repl import _spawn
from .test_scenarios import _env

MODELS = {"gpt-5": {"context_window": 400000, "max_output_tokens": 128000},
          "gpt-5-mini": {"context_window": 400000, "max_output_tokens": 128000}}  # fmt: skip


def _leave(child: pexpect.spawn) -> None:
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()


def _user_turns(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [str(m["content"]) for m in messages if m["role"] == "user"]


def test_clear_starts_a_new_conversation(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "first answer"}, {"text": "second answer"}]) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("remember the number 7")
        child.expect("first answer")
        child.sendline("/clear")
        child.expect(r"cleared: a new conversation \(2 messages left behind")
        child.sendline("what number?")
        child.expect("second answer")
        _leave(child)
    assert _user_turns(server.requests[1]["body"]) == ["what number?"]


def test_a_prompt_that_hit_context_exceeded_is_not_left_dangling(tmp_path: Path) -> None:
    rounds = [
        {"status": 400, "error": "This model's maximum context length is 8192 tokens"},
        {"text": "fits"},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("a prompt far too long")
        child.expect("the prompt was not answered and is not kept")
        child.expect("/compact summarises the conversation to make room; /clear starts anew")
        child.sendline("a short one")
        child.expect("fits")
        _leave(child)
    assert _user_turns(server.requests[1]["body"]) == ["a short one"]


def test_model_is_checked_against_the_providers_list(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "from the mini"}], models=MODELS) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("/model")
        child.expect("model: gpt-5")
        child.expect(r"openai lists 2 \(/model NAME to switch\):")
        child.expect(r"\* gpt-5\s+gpt-5-mini")
        child.sendline("/model gpt-5-mnii")
        child.expect(r"openai lists no model 'gpt-5-mnii' \(2 listed\); did you mean gpt-5-mini")
        child.expect(r"model: gpt-5 \(unchanged\)")
        child.sendline("/model gpt-5-mini")
        child.expect("model: gpt-5-mini")
        child.sendline("hello")
        child.expect("from the mini")
        _leave(child)
    assert server.requests[0]["body"]["model"] == "gpt-5-mini"
    # Three lists for /model (none, the typo, the name), then one for gpt-5-mini's window.
    assert server.lookups == ["/v1/models"] * 4


def test_resume_shows_the_last_exchanges(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ScriptedServer([{"text": "the bug is in parse()"}]) as server:
        argv = ["-p", "where is the bug?", "--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(argv, cwd=str(work), env=_env(tmp_path))[0] == 0
        session_id = run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1].split()[0]
        child = _spawn(tmp_path, server.url, "--resume", session_id)
        child.expect("/help for commands")
        child.expect(r"\(the conversation so far ends with\)")
        child.expect("> where is the bug\\?")
        child.expect(r"the bug is in parse\(\)")
        _leave(child)


def test_a_mistyped_command_suggests_the_right_one(tmp_path: Path) -> None:
    with ScriptedServer([]) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("/clr")
        child.expect(r"unknown command /clr \(did you mean /clear\?")
        _leave(child)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_ollama_lists_its_models_by_api_tags() -> None:
    with ScriptedServer([], models={"qwen3.5:9b": MODELS["gpt-5"]}) as server:
        connection = Connection("ollama", server.url + "/v1", None)
        assert listed_models(connection) == ["qwen3.5:9b"]
        assert _checked_model("qwen3.5:9b", connection) == "qwen3.5:9b"
    assert server.lookups == ["/api/tags", "/api/tags"]


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_a_list_that_cannot_be_fetched_is_said_and_the_name_taken_unchecked(
    provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    key = KeySource(provider, env_name="K", environ={"K": "sk-x"}) if provider == "openai" else None
    connection = Connection(provider, url, key)
    with pytest.raises(ModelError) as raised:
        listed_models(connection)
    assert raised.value.kind is Failure.NETWORK
    assert _checked_model("some-model", connection) == "some-model"
    said = " ".join(capsys.readouterr().out.split())  # wrapped between words to the terminal
    assert f"{provider}'s model list could not be fetched from {url}" in said and "unchecked" in said


def test_the_help_lists_every_command_of_the_table() -> None:
    shown = help_text(columns=200).splitlines()
    assert [line.split()[0] for line in shown[: len(COMMANDS)]] == list(COMMANDS)


@pytest.mark.parametrize(
    ("provider", "suffix", "asked"),
    [
        ("openai", "/v1", "/v1/models"),
        ("openrouter", "/v1", "/v1/models"),
        ("openresponses", "/v1", "/v1/models"),
        ("anthropic", "", "/v1/models"),
        ("ollama", "/v1", "/api/tags"),
    ],
)
def test_each_provider_lists_its_models_where_it_keeps_them(provider: str, suffix: str, asked: str) -> None:
    with ScriptedServer([], models=MODELS) as server:
        key = None if provider == "ollama" else KeySource(provider, env_name="K", environ={"K": "sk-x"})
        assert listed_models(Connection(provider, server.url + suffix, key)) == list(MODELS)
    assert server.lookups == [asked]


def test_model_without_a_name_says_why_where_there_is_no_list(capsys: pytest.CaptureFixture[str]) -> None:
    _list_models("claude-sonnet-5-5", Connection("vertex", "https://aiplatform.googleapis.com", None))
    assert "vertex publishes no list of models: any claude-... or gemini-... name" in capsys.readouterr().out
    with ScriptedServer([], models={}) as server:
        _list_models("qwen3.5:9b", Connection("ollama", server.url + "/v1", None))
    assert f"ollama lists no models at {server.url}/v1" in capsys.readouterr().out
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    _list_models("qwen3.5:9b", Connection("ollama", url, None))
    said = " ".join(capsys.readouterr().out.split())  # wrapped between words to the terminal
    assert f"ollama's model list could not be fetched from {url}" in said

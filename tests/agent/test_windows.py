"""A window for every model: the config's figure, else the server's, else the dated table of known
models, else the stated default; so compaction always has a threshold, and /context says where the
window came from and flags a conversation over it."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from bastion.agent.front import LONG_COMMANDS, config_text
from bastion.agent.providers import (
    DEFAULT_WINDOW,
    DEFAULTS,
    KNOWN_AS_OF,
    Connection,
    KeySource,
    Window,
    known_window,
    model_limits,
    window_of,
)
from bastion.agent.runtime import Agent, Answer, Assistant, Compactor, Message, User
from bastion.policy import ConfigError, load_settings
from bastion.workspace import LocalWorkspace

from .agent_fixtures import FakeGate, FakeTools, ScriptedModel
from .scripted_server import ScriptedServer


def _not_asked() -> int | None:
    raise AssertionError("the server was asked")


@pytest.mark.parametrize(
    ("model", "tokens"),
    [
        ("gpt-5", 272_000),  # the default openai model: its input limit, not the 400k in all
        ("gpt-5-mini", 272_000),
        ("openai/gpt-5", 272_000),  # OpenRouter's name, its vendor's prefix taken off
        ("gpt-4o-mini", 128_000),
        ("gemini-1.5-pro-002", 2_097_152),  # the longest family that matches wins
        ("gemini-2.5-pro", 1_048_576),
        ("claude-sonnet-5-5", 200_000),
    ],
)
def test_the_table_knows_the_families_people_run(model: str, tokens: int) -> None:
    assert known_window(model) == tokens


def test_every_providers_default_model_has_a_window_and_the_table_is_dated() -> None:
    for provider, (model, _, _) in DEFAULTS.items():
        if model is not None:
            window = window_of(model, {}, lambda: None)
            assert window.tokens > 0 and window.source in ("table", "default"), provider
    assert len(KNOWN_AS_OF) == 10 and KNOWN_AS_OF[4] == "-"


def test_the_config_wins_then_the_server_then_the_table_then_the_default() -> None:
    assert window_of("gpt-5", {"gpt-5": 50_000}, _not_asked) == Window(50_000, "config")
    assert window_of("qwen-local-7b", {"qwen-*": 65_536}, _not_asked) == Window(65_536, "config")
    assert window_of("gpt-5", {}, lambda: 128_000) == Window(128_000, "server")
    assert window_of("gpt-5", {}, lambda: None) == Window(272_000, "table")
    assert window_of("my-own-model", {}, lambda: None) == Window(DEFAULT_WINDOW, "default")
    assert "[context_windows]" in Window(DEFAULT_WINDOW, "default").said()


def test_an_openai_style_server_that_states_a_window_is_asked_openai_itself_is_not() -> None:
    key = KeySource("openresponses", env_name="K", environ={"K": "sk-x"})
    stated = {"served-model": {"context_window": 40_960, "max_output_tokens": 8192}}
    with ScriptedServer([], models=stated) as server:
        limits = model_limits(Connection("openresponses", server.url + "/v1", key), "served-model", None)
        unknown = model_limits(Connection("openai", server.url + "/v1", key), "other", None)
    assert limits.context_window == 40_960 and unknown.context_window is None
    assert server.lookups == ["/v1/models", "/v1/models"]
    official = Connection("openai", "https://api.openai.com/v1", key)
    assert model_limits(official, "gpt-5", None).context_window is None  # no request made


def _context(agent: Agent) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        LONG_COMMANDS["/context"]("", agent, None)
    return out.getvalue()


def _agent(window: Window, compact_at: int | None, history: int) -> Agent:
    def never(call: object, args: object, verdict: object) -> Answer:
        return Answer(False)

    compactor = Compactor(lambda model: window, compact_at, lambda *r: None, lambda text: None)
    messages: list[Message] = [User("x" * history), Assistant("ok")]
    return Agent(
        ScriptedModel([]), FakeGate(), FakeTools(), never, "sys", messages=messages, compaction=compactor
    )


def test_context_says_where_the_window_came_from_and_when_it_compacts() -> None:
    shown = _context(_agent(Window(272_000, "table"), None, 400))
    assert f"window: 272000 (bastion's table of known models, {KNOWN_AS_OF})" in shown
    assert "compacts at: 204000 (three quarters of the window)" in shown
    assert "never" not in shown and "over the window" not in shown
    shown = _context(_agent(Window(DEFAULT_WINDOW, "default"), 9000, 400))
    assert "bastion's default; set [context_windows] in your config" in shown
    assert "compacts at: 9000 (compact_at in your config)" in shown


def test_context_flags_a_conversation_over_the_window() -> None:
    shown = _context(_agent(Window(1000, "server"), None, 8000))
    assert "window: 1000 (the server says)" in shown
    assert "over the window by " in shown and "/compact summarises the conversation" in shown


def _config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return str(path)


def test_context_windows_in_the_config_are_read_and_a_bad_one_names_its_field(tmp_path: Path) -> None:
    ws = LocalWorkspace(str(tmp_path))
    good = _config(tmp_path, '[context_windows]\n"my-model" = 131072\n"qwen*" = 65536\n')
    assert load_settings(ws, good).agent.context_windows == {"my-model": 131072, "qwen*": 65536}
    bad = _config(tmp_path, '[context_windows]\n"my-model" = 0\n')
    with pytest.raises(ConfigError, match=r"context_windows\.my-model: Input should be greater than 0"):
        load_settings(ws, bad)


def test_the_config_template_says_what_compact_at_defaults_to() -> None:
    text = config_text("openai")
    assert "# compact_at = 100000              # tokens (default: 3/4 of the model's context window)" in text
    assert "when the model's window is not known" not in text and "# [context_windows]" in text

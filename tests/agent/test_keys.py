"""The key in use never reaches the tools: its variable (the provider's standard one, or
--api-key-env's) is removed from the commands' environment also when the key comes from
--api-key-command, when the name does not look like a credential, and when pass_env names it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace

IN_ENV = "sk-in-the-environment-0002"
ROUNDS: list[dict[str, object]] = [
    {"calls": [{"name": "bash", "arguments": {"command": "env"}}]},
    {"text": "done"},
]


@pytest.mark.parametrize(
    ("variable", "argv", "pass_env"),
    [
        pytest.param("OPENAI_API_KEY", ["--provider", "openai"], ["OPENAI_API_KEY"], id="standard-passed"),
        pytest.param(
            "LLM_CRED",
            ["--provider", "openresponses", "--model", "m", "--api-key-env", "LLM_CRED"],
            [],
            id="plain-name",
        ),
        pytest.param(
            "LLM_CRED",
            ["--provider", "openresponses", "--model", "m", "--api-key-env", "LLM_CRED"],
            ["LLM_CRED"],
            id="plain-name-passed",
        ),
    ],
)
@pytest.mark.parametrize("from_command", [False, True], ids=["key-from-variable", "key-from-command"])
def test_the_keys_variable_is_not_in_the_commands_environment(
    tmp_path: Path, variable: str, argv: list[str], pass_env: list[str], from_command: bool
) -> None:
    work = _workspace(tmp_path, {})
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"pass_env = {json.dumps(pass_env)}\n")
    env = {**_env(tmp_path), variable: IN_ENV}
    command = ["--api-key-command", "echo sk-from-a-command-0003"] if from_command else []
    with ScriptedServer(ROUNDS) as server:
        code, out, err = run_main(
            ["-p", "print env", "--yes-to", "stdin", "--base-url", server.url + "/v1", *argv, *command],
            cwd=str(work),
            env=env,
            stdin="y\n",
        )
    assert code == 0, err
    shown = json.dumps(server.requests[-1]["body"])
    assert "PATH=" in shown  # the command's environment did reach the model
    assert IN_ENV not in shown and f"{variable}=" not in shown
    assert "sk-from-a-command-0003" not in shown


def test_a_slow_key_command_says_what_it_waits_for_by_name_never_its_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # private: the module's wait before a slow key command is named is shortened
    from bastion.agent.providers import _keys

    monkeypatch.setattr(_keys, "SLOW_COMMAND", 0.05)
    ready = tmp_path / "said"
    helper = tmp_path / "slow_helper.py"
    # Prints its key once bastion has said that it waits (readiness, not a clock).
    helper.write_text(
        f"import os, time\nwhile not os.path.exists({str(ready)!r}):\n    time.sleep(0.01)\n"
        "print('sk-slow-key-0123456789')\n"
    )
    said: list[str] = []

    def on_wait(text: str) -> None:
        said.append(text)
        ready.touch()

    source = _keys.KeySource("openai", command=[sys.executable, str(helper)], environ={"PATH": "/usr/bin"})
    source.on_wait = on_wait
    assert source.get() == "sk-slow-key-0123456789"
    assert said == [f"waiting for the key from api_key_command {sys.executable} (at most 300 s)"]


def test_a_key_command_runs_without_the_key_variables_but_with_its_own_credentials(tmp_path: Path) -> None:
    from bastion.agent.providers import KeySource

    dump = tmp_path / "env.json"
    helper = tmp_path / "env_helper.py"
    helper.write_text(
        f"import json, os\njson.dump(dict(os.environ), open({str(dump)!r}, 'w'))\nprint('sk-k-0123456789')\n"
    )
    environ = {
        "PATH": "/usr/bin",
        "OPENAI_API_KEY": IN_ENV,
        "LLM_CRED": IN_ENV,
        "OP_SERVICE_ACCOUNT_TOKEN": "op",
    }
    source = KeySource(
        "openai", command=[sys.executable, str(helper)], environ=environ, scrub=("openai_api_key", "LLM_CRED")
    )
    assert source.get() == "sk-k-0123456789"
    got = json.loads(dump.read_text())
    assert "OPENAI_API_KEY" not in got and "LLM_CRED" not in got and got["OP_SERVICE_ACCOUNT_TOKEN"] == "op"


def test_a_key_command_that_fails_is_said_once_and_never_as_a_key_the_server_refused(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    with ScriptedServer([{"text": "never"}]) as server:
        code, _, err = run_main(
            [
                "-p",
                "go",
                "--provider",
                "openai",
                "--base-url",
                server.url + "/v1",
                "--api-key-command",
                "false",
            ],
            cwd=str(work),
            env=_env(tmp_path),
        )
    assert code == 12 and server.requests == [], err
    assert "api_key_command false exited 1" in err and "refused" not in err

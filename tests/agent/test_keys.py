"""The key in use never reaches the tools: its variable (the provider's standard one, or
--api-key-env's) is removed from the commands' environment also when the key comes from
--api-key-command, when the name does not look like a credential, and when pass_env names it."""

from __future__ import annotations

import json
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

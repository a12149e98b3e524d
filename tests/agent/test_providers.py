"""Providers through the CLI: keys from the environment or a command, failures classified into kinds and
exit statuses, and a light import."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from tests.loaded import modules_loaded

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
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
    heavy = ("anthropic", "openai", "httpx2", "prompt_toolkit", "mcp", "httpx")
    assert modules_loaded("import bastion.agent", heavy) == []

"""Errors that say what to do: the URL that refused the connection (and `ollama serve` for Ollama),
the variable the refused key came from (never the key), a server that is not the API."""

from __future__ import annotations

import socket
from pathlib import Path

from bastion.agent._advice import advice
from bastion.agent._types import Failure, ModelError

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import SECRET, _env


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(tmp_path: Path, argv: list[str]) -> tuple[int, str, str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return run_main(["-p", "hi", *argv], cwd=str(work), env=_env(tmp_path))


def test_a_refused_connection_names_the_url_and_for_ollama_says_start_it(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    code, _, err = _run(tmp_path, ["--provider", "openai", "--base-url", url])
    assert code != 0 and f"could not connect to {url}" in err
    code, _, err = _run(tmp_path, ["--provider", "ollama", "--base-url", url])
    assert code != 0 and "`ollama serve`" in err


def test_a_refused_key_names_its_variable_and_never_the_key(tmp_path: Path) -> None:
    with ScriptedServer([{"status": 401, "error": "bad key"}]) as server:
        code, _, err = _run(tmp_path, ["--provider", "openai", "--base-url", server.url + "/v1"])
    assert code != 0 and "check $OPENAI_API_KEY" in err and SECRET not in err


def test_a_web_page_or_a_foreign_answer_says_the_url_is_not_the_api() -> None:
    page = ModelError("HTTP 404: <!DOCTYPE html><html>", Failure.MODEL_NOT_FOUND)
    assert "answered with a web page" in str(advice(page, "anthropic", "http://h", "$K"))
    broken = ModelError("the stream ended before the reply did", Failure.PROTOCOL_ERROR)
    assert "did not answer as the openai API does" in str(advice(broken, "openai", "http://h/v1", "$K"))
    assert advice(ModelError("slow down", Failure.RATE_LIMITED), "openai", "http://h", "$K") is None

"""Errors that say what to do: the URL that refused the connection (and `ollama serve` for Ollama),
the variable the refused key came from (never the key), a server that is not the API."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bastion.agent.front import advice
from bastion.agent.runtime import Failure, ModelError

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
    page = ModelError("HTTP 404: <!DOCTYPE html><html>", Failure.MODEL_NOT_FOUND, web_page=True)
    assert "answered with a web page" in str(advice(page, "anthropic", "http://h", "$K"))
    broken = ModelError("the stream ended before the reply did", Failure.PROTOCOL_ERROR)
    assert "did not answer as the openai API does" in str(advice(broken, "openai", "http://h/v1", "$K"))
    assert advice(ModelError("slow down", Failure.RATE_LIMITED), "openai", "http://h", "$K") is None


class _WebPage(BaseHTTPRequestHandler):
    """A web server's page, whatever is asked, with the status the server was made with."""

    status = 200

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = b"<!DOCTYPE html><html><head><title>Welcome</title></head><body>hello</body></html>"
        self.send_response(self.server.status)  # type: ignore[attr-defined]
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.parametrize("status", [200, 404, 405])
@pytest.mark.parametrize("provider", ["openai", "anthropic", "openresponses"])
def test_a_web_page_where_the_api_should_be_is_named_as_such(
    tmp_path: Path, provider: str, status: int
) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    server.status = status  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        extra = ["--model", "m", "--api-key-env", "OPENAI_API_KEY"] if provider == "openresponses" else []
        code, _, err = _run(tmp_path, ["--provider", provider, "--base-url", url, *extra])
    finally:
        server.shutdown()
        server.server_close()
    assert code != 0 and "answered with a web page: not an API endpoint" in err


def test_a_refused_key_from_a_command_names_the_command(tmp_path: Path) -> None:
    with ScriptedServer([{"status": 403, "error": "no"}, {"status": 403, "error": "no"}]) as server:
        argv = [
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
            "--api-key-command",
            "echo sk-cmd-0007",
        ]
        code, _, err = _run(tmp_path, argv)
    assert code == 12 and "check the key api_key_command prints" in err and "sk-cmd-0007" not in err

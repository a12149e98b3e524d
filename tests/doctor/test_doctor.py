"""bastion doctor: each section's facts (the config's rules, the provider's key found or not and never
shown, the server reachable or not, git, the sandbox, everyday lines), a section that breaks said in
one line while the rest still runs, and no SDK loaded on the way."""

from __future__ import annotations

import io
import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

from bastion.doctor import SECTIONS, Context, Fact, Section, Status, doctor_main, report
from tests.agent.scripted_server import ScriptedServer
from tests.loaded import modules_loaded

SECRET = "sk-doctor-SECRET-0042"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _doctor(tmp_path: Path, config: str, *argv: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    path = tmp_path / "config.toml"
    path.write_text(config)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    environ = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path), **(env or {})}
    out = io.StringIO()
    code = doctor_main(["--config", str(path), "--cwd", str(work), *argv], environ, out, io.StringIO())
    return code, out.getvalue()


def _json(tmp_path: Path, config: str, *argv: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    code, out = _doctor(tmp_path, config, "--json", *argv, env=env)
    doc: dict[str, Any] = json.loads(out)
    assert code == (1 if doc["failed"] else 0)
    return doc


def _facts(doc: dict[str, Any], section: str) -> dict[str, dict[str, Any]]:
    (found,) = [s for s in doc["sections"] if s["name"] == section]
    return {f["label"]: f for f in found["facts"]}


def test_the_config_file_is_named_with_its_rules(tmp_path: Path) -> None:
    config = '[policy]\nallow = ["bash(make test)"]\ndeny = ["bash(git push:*)"]\n'
    code, out = _doctor(tmp_path, config, "--offline")
    assert f"your config: {tmp_path / 'config.toml'} (2 rules)" in out
    assert "allow bash(make test)" in out and "deny bash(git push:*)" in out
    assert "make test: allow by bash(make test)" in out
    assert "git push: deny by bash(git push:*)" in out
    assert "rm -rf build: ask" in out


def test_a_config_error_is_one_line_and_the_rest_still_reports(tmp_path: Path) -> None:
    code, out = _doctor(tmp_path, '[policy]\nalow = ["bash(ls)"]\n', "--offline")
    assert code == 1
    assert "policy.alow: unknown field; did you mean policy.allow?" in out
    assert "Git" in out and "not checked: the config has an error" in out
    assert "Traceback" not in out


def test_the_key_is_found_or_missing_by_its_variable_and_never_shown(tmp_path: Path) -> None:
    config = 'provider = "openai"\n'
    found = _facts(_json(tmp_path, config, "--offline", env={"OPENAI_API_KEY": SECRET}), "provider")
    assert found["key"]["value"] == "$OPENAI_API_KEY is set" and found["key"]["status"] == "ok"
    missing = _facts(_json(tmp_path, config, "--offline"), "provider")
    assert missing["key"]["status"] == "fail" and "export OPENAI_API_KEY" in missing["key"]["hint"]
    code, out = _doctor(tmp_path, config, "--offline", env={"OPENAI_API_KEY": SECRET})
    assert code == 0 and SECRET not in out
    command = _facts(
        _json(tmp_path, 'provider = "anthropic"\napi_key_command = "pass show k"\n', "--offline"), "provider"
    )
    assert command["key"]["value"] == "printed by api_key_command (pass; not run here)"


def test_the_server_is_asked_at_its_base_url_without_the_key(tmp_path: Path) -> None:
    with ScriptedServer([]) as server:
        config = f'provider = "openai"\nbase_url = "{server.url}/v1"\n'
        facts = _facts(_json(tmp_path, config, env={"OPENAI_API_KEY": SECRET}), "server")
    assert facts[f"{server.url}/v1"]["status"] == "ok"
    assert "reachable (answered HTTP" in facts[f"{server.url}/v1"]["value"]
    assert all(SECRET not in json.dumps(r) for r in server.requests)


def test_an_unreachable_server_names_its_url_and_for_ollama_says_start_it(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    code, out = _doctor(tmp_path, f'provider = "ollama"\nbase_url = "{url}"\n')
    assert code == 1
    assert f"{url}: not reachable: the connection was refused" in out and "`ollama serve`" in out


def test_offline_asks_no_server(tmp_path: Path) -> None:
    with ScriptedServer([]) as server:
        _json(tmp_path, f'provider = "ollama"\nbase_url = "{server.url}"\n', "--offline")
    assert server.requests == [] and server.lookups == []


def test_git_and_the_sandbox_are_reported(tmp_path: Path) -> None:
    doc = _json(tmp_path, "", "--offline", "--section", "git", "--section", "sandbox")
    assert [s["name"] for s in doc["sections"]] == ["git", "sandbox"]
    assert _facts(doc, "git")["git"]["value"].startswith("git version ")
    assert {"sandbox", "Landlock", "auto-allowed lines", "approved lines"} <= set(_facts(doc, "sandbox"))


def test_a_section_that_breaks_is_one_line_and_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(context: Context) -> Section:
        raise RuntimeError("the probe broke")

    monkeypatch.setitem(SECTIONS, "git", broken)
    context = Context.load(str(tmp_path), os.devnull, {}, offline=True)
    sections = report(context)
    (git,) = [s for s in sections if s.name == "git"]
    assert git.facts == (Fact("could not be checked", "RuntimeError: the probe broke", Status.FAIL),)
    assert [s.name for s in sections] == list(SECTIONS)


def test_doctor_loads_no_sdk_nor_http_client(tmp_path: Path) -> None:
    code = (
        "import contextlib, io\n"
        "from bastion.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['doctor', '--config', {os.devnull!r}, '--cwd', {str(tmp_path)!r}])\n"
    )
    heavy = ("anthropic", "openai", "httpx2", "httpx", "prompt_toolkit", "rich", "mcp", "google")
    assert modules_loaded(code, heavy) == []


def test_doctor_on_vertex_reads_its_credential_file_and_place_and_loads_no_sdk(tmp_path: Path) -> None:
    from tests.agent.google_adc import private_key, service_account

    path = service_account(tmp_path / "sa.json", "http://127.0.0.1:9/token")
    environ = {"GOOGLE_APPLICATION_CREDENTIALS": str(path), "GOOGLE_CLOUD_REGION": "us-east5"}
    config = 'provider = "vertex"\n'
    facts = _facts(_json(tmp_path, config, "--offline", env=environ), "provider")
    assert facts["key"]["value"].startswith("vertex takes none") and facts["model"]["status"] == "ok"
    assert facts["credentials"] == {
        **facts["credentials"],
        "value": f"{path} (service_account, from $GOOGLE_APPLICATION_CREDENTIALS)",
        "status": "ok",
    }
    assert facts["project"]["value"] == f"scripted-project (from the credentials ({path}))"
    assert facts["location"]["value"] == "us-east5 (from $GOOGLE_CLOUD_REGION)"
    assert facts["base URL"]["value"] == "https://us-east5-aiplatform.googleapis.com"
    code, out = _doctor(tmp_path, config, "--offline", env=environ)
    assert code == 0 and not any(line in out for line in private_key().splitlines()[1:-1])
    (tmp_path / "v.toml").write_text(config)
    argv = ["doctor", "--offline", "--config", str(tmp_path / "v.toml"), "--cwd", str(tmp_path)]
    run = (
        "import contextlib, io, os\n"
        "from bastion.cli import main\n"
        f"os.environ.update({environ!r})\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({argv!r})\n"
    )
    assert modules_loaded(run, ("anthropic", "httpx2", "google")) == []


def test_doctor_on_vertex_without_credentials_says_how_to_sign_in(tmp_path: Path) -> None:
    facts = _facts(_json(tmp_path, 'provider = "vertex"\nmodel = "gpt-5"\n', "--offline"), "provider")
    assert facts["model"]["status"] == "fail" and 'not "gpt-5"' in facts["model"]["value"]
    said = facts["credentials"]
    assert said["status"] == "fail" and "application_default_credentials.json" in said["value"]
    assert "gcloud auth application-default login" in said["value"]


def test_doctor_finds_geminis_key_by_its_variable(tmp_path: Path) -> None:
    facts = _facts(
        _json(tmp_path, 'provider = "gemini"\n', "--offline", env={"GEMINI_API_KEY": SECRET}), "provider"
    )
    assert facts["key"]["value"] == "$GEMINI_API_KEY is set"
    assert facts["base URL"]["value"] == "https://generativelanguage.googleapis.com"

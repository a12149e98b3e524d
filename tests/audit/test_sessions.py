"""`bastion audit` reads the session files the agent really writes: a session recorded by running the
agent against the scripted model server is audited call by call, in the directory it ran in."""

from __future__ import annotations

import json
from pathlib import Path

from bastion.audit import audit_main, detect

from ..agent.agent_fixtures import run_main
from ..agent.scripted_server import ScriptedServer
from ..agent.test_scenarios import _env, _workspace
from .conftest import run


def _record(tmp_path: Path, work: Path, rounds: list[dict[str, object]], *argv: str) -> Path:
    """Run the agent once in `work`; the session file it wrote."""
    with ScriptedServer(rounds) as server:
        code, _, err = run_main(
            ["-p", "look around", "--provider", "openai", "--base-url", server.url + "/v1", *argv],
            cwd=str(work),
            env=_env(tmp_path),
        )
    assert code == 0, err
    (path,) = (tmp_path / "home" / ".bastion" / "sessions").glob("*.jsonl")
    return path


def test_a_recorded_session_has_its_bash_and_read_calls_decided_in_the_directory_it_ran_in(
    tmp_path: Path,
) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}, "git": True})
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "bash", "arguments": {"command": "git status"}}]},
        {"calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        {"text": "done"},
    ]
    session = _record(tmp_path, work, rounds)
    text = session.read_text()
    assert detect(text) == "bastion"
    config = tmp_path / "audit.toml"
    config.write_text("")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # --cwd is only for calls that do not say where they ran: a session's calls say.
    code, out, err = run(
        audit_main, ["--json", "--config", str(config), "--cwd", str(elsewhere), str(session)]
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["errors"] == []
    decided = [(c["tool"], c["args"], c["cwd"], c["decision"]) for c in data["calls"]]
    assert decided == [
        ("bash", {"command": "git status"}, str(work), "allow"),
        ("read", {"path": "a.txt"}, str(work), "allow"),
    ]
    # what the session recorded live agrees with what the audit decides now
    live = [json.loads(line) for line in text.splitlines() if '"type": "verdict"' in line]
    assert [(v["tool"], v["decision"]) for v in live] == [("bash", "allow"), ("read", "allow")]


def test_a_resumed_session_audits_its_later_calls_where_it_was_resumed(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"sub/b.txt": "beta\n"}})
    session = _record(tmp_path, work, [{"text": "hi"}])
    sub = work / "sub"
    with ScriptedServer(
        [{"calls": [{"name": "read", "arguments": {"path": "b.txt"}}]}, {"text": "ok"}]
    ) as server:
        code, _, err = run_main(
            [
                "-p",
                "read b",
                "--resume",
                session.stem,
                "--here",
                "--provider",
                "openai",
                "--base-url",
                server.url + "/v1",
            ],
            cwd=str(sub),
            env=_env(tmp_path),
        )
    assert code == 0, err
    config = tmp_path / "audit.toml"
    config.write_text("")
    code, out, err = run(audit_main, ["--json", "--config", str(config), str(session)])
    assert code == 0, err
    assert [(c["tool"], c["cwd"], c["decision"]) for c in json.loads(out)["calls"]] == [
        ("read", str(sub), "allow")
    ]

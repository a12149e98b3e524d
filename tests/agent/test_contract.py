"""The one-shot contract's edges: -p's JSON names the session it recorded (what --resume takes) and
the run's wall time; `bastion sessions list` and its alias `bastion --list` are one command."""

from __future__ import annotations

import json
from pathlib import Path

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _session_events


def test_the_json_names_the_session_to_resume_and_the_runs_duration(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = _env(tmp_path)
    with ScriptedServer([{"text": "first"}, {"text": "second"}, {"status": 400}]) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1", "--output-format", "json"]
        code, out, err = run_main(["-p", "one", *base], cwd=str(work), env=env)
        assert code == 0, err
        first = json.loads(out)
        assert first["session_id"] == _session_events(tmp_path)[0]["id"]
        assert isinstance(first["duration_ms"], int) and first["duration_ms"] >= 0
        code, out, err = run_main(
            ["-p", "two", "--resume", first["session_id"], *base], cwd=str(work), env=env
        )
        assert code == 0 and json.loads(out)["session_id"] == first["session_id"]
        # A run that failed was recorded too: its JSON names the session all the same.
        code, out, err = run_main(
            ["-p", "three", "--resume", first["session_id"], *base], cwd=str(work), env=env
        )
    failed = json.loads(out)
    assert code != 0 and failed["outcome"]["status"] == "error"
    assert failed["session_id"] == first["session_id"] and isinstance(failed["duration_ms"], int)
    assert list(failed)[:5] == ["schema_version", "result", "session_id", "duration_ms", "model"]


def test_sessions_list_and_its_alias_list_are_one_command(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = _env(tmp_path)
    assert run_main(["sessions", "list"], cwd=str(work), env=env) == (
        0,
        f"no sessions with a prompt in {work}\n",
        "",
    )
    with ScriptedServer([{"text": "answered"}]) as server:
        argv = ["-p", "the first prompt", "--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(argv, cwd=str(work), env=env)[0] == 0
    listed = run_main(["sessions", "list"], cwd=str(work), env=env)
    assert listed == run_main(["--list"], cwd=str(work), env=env)
    code, out, _ = listed
    assert code == 0 and out.split()[0] == _session_events(tmp_path)[0]["id"] and "'the first prompt'" in out
    help_text = run_main(["sessions", "--help"], cwd=str(work), env=env)[1]
    assert "list" in help_text and "--list" in help_text

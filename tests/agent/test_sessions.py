"""Sessions: recorded 0700 under $BASTION_HOME, listed per directory, resumed with the conversation."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from .agent_fixtures import run_main, write_record
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace


def test_a_run_is_recorded_privately_listed_here_and_resumed_with_its_conversation(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    env = _env(tmp_path)
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        {"text": "first answer"},
        {"text": "second answer"},
    ]
    with ScriptedServer(rounds) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(["-p", "read a.txt", *base], cwd=str(work), env=env)[0] == 0
        code, listing, _ = run_main(["--list"], cwd=str(work), env=env)
        assert code == 0
        session_id = listing.split()[0]
        assert "read a.txt" in listing
        code, out, err = run_main(["-p", "and again", "--resume", session_id, *base], cwd=str(work), env=env)
    assert code == 0, err
    assert out.strip() == "second answer"
    sent = server.requests[-1]["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    home = tmp_path / "home" / ".bastion"
    assert stat.S_IMODE((home / "sessions").stat().st_mode) == 0o700
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    events = [
        json.loads(line) for line in (home / "sessions" / f"{session_id}.jsonl").read_text().splitlines()
    ]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "session" and "resumed" in kinds and kinds.count("request") == 3
    verdict = next(e for e in events if e["type"] == "verdict")
    assert (verdict["rule"], verdict["source"], verdict["answered_by"]) == ("read", "builtin", "rule")


def test_another_directory_lists_none_of_them(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with ScriptedServer([{"text": "hi"}]) as server:
        run_main(
            ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=str(work),
            env=_env(tmp_path),
        )
    assert (
        run_main(["--list"], cwd=str(elsewhere), env=_env(tmp_path))[1]
        == f"no sessions with a prompt in {elsewhere}\n"
    )


def test_resuming_a_session_an_abort_cut_off_answers_its_open_call_as_interrupted(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    store = tmp_path / "home" / ".bastion" / "sessions"
    store.mkdir(parents=True)
    session_id = "20260101-000000-abcdef"
    lines: list[dict[str, Any]] = [
        {"type": "session", "id": session_id, "cwd": str(work)},
        {"type": "message", "message": {"role": "user", "text": "go"}},
        {
            "type": "message",
            "message": {
                "role": "assistant",
                "text": "",
                "opaque": [],
                "calls": [{"id": "c1", "name": "bash", "arguments": "{}"}],
            },
        },
    ]
    write_record(store / f"{session_id}.jsonl", lines)
    with ScriptedServer([{"text": "ok"}]) as server:
        code, _, err = run_main(
            ["-p", "go on", "--resume", session_id, "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=str(work),
            env=_env(tmp_path),
        )
    assert code == 0, err
    tool = [m for m in server.requests[0]["body"]["messages"] if m["role"] == "tool"]
    assert tool[0]["tool_call_id"] == "c1" and tool[0]["content"].startswith("interrupted")


def test_a_resume_id_that_is_not_a_session_is_a_clear_error(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    code, _, err = run_main(
        ["-p", "x", "--resume", "../../etc/passwd", "--provider", "openai"], cwd=str(work), env=_env(tmp_path)
    )
    assert code == 1 and "is not a session ID" in err


def test_every_directory_s_sessions_are_listed_with_their_turns_for_the_picker(tmp_path: Path) -> None:
    from bastion.agent.runtime import Assistant, User
    from bastion.agent.sessions import Session, list_sessions

    home = tmp_path / "home"
    for cwd, prompts in (("/work/a", ["one", "two"]), ("/work/b", ["three"]), ("/work/c", [])):
        session = Session.create(str(home), cwd, "openai", "gpt-5")
        for prompt in prompts:
            session.message(User(prompt))
            session.message(Assistant("ok"))
        session.close()
    listed = sorted((s.cwd, s.first_prompt, s.turns) for s in list_sessions(str(home), None))
    assert listed == [("/work/a", "one", 2), ("/work/b", "three", 1)]  # one without a prompt is not listed
    assert [s.cwd for s in list_sessions(str(home), "/work/b")] == ["/work/b"]

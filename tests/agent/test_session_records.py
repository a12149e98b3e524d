"""Session records that can be checked, moved and repaired: a hash chain verify checks (an edited
line is found), export/import across directories then resume, a torn last line cut off and
reported on open with nothing else lost, a full disk that keeps the conversation in memory, gc."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path

import pytest

from bastion.agent.sessions import Session, read_record, verify_record

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace


def _recorded(tmp_path: Path, work: Path, server: ScriptedServer) -> str:
    base = ["--provider", "openai", "--base-url", server.url + "/v1"]
    code, _, err = run_main(["-p", "read a.txt", *base], cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    return run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1].split()[0]


_ROUNDS = [{"calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "first answer"}]


def _record_path(tmp_path: Path, session_id: str) -> Path:
    return tmp_path / "home" / ".bastion" / "sessions" / f"{session_id}.jsonl"


def test_verify_passes_a_whole_record_and_names_the_line_someone_edited(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    with ScriptedServer(_ROUNDS) as server:
        session_id = _recorded(tmp_path, work, server)
    code, out, _ = run_main(["sessions", "verify", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 0 and f"{session_id}: verified" in out and "2 requests rebuilt" in out
    path = _record_path(tmp_path, session_id)
    lines = path.read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if "first answer" in line)
    lines[number - 1] = lines[number - 1].replace("first answer", "forged answer")
    path.write_text("".join(lines))
    code, out, _ = run_main(["sessions", "verify", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 3 and f"line {number}: the hash chain breaks" in out and "NOT verified" in out


def test_verify_finds_a_removed_line_by_the_requests_it_cannot_rebuild(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    with ScriptedServer(_ROUNDS) as server:
        session_id = _recorded(tmp_path, work, server)
    path = _record_path(tmp_path, session_id)
    lines = path.read_text().splitlines(keepends=True)
    tool_result = next(i for i, line in enumerate(lines) if '"tool_result"' in line)
    path.write_text("".join(lines[:tool_result] + lines[tool_result + 1 :]))
    found = verify_record(read_record(str(path)))
    assert any("the hash chain breaks" in p for p in found.problems)
    assert any("the request sent 3 messages; the record rebuilds 2" in p for p in found.problems)


def test_a_torn_last_line_is_cut_off_and_reported_on_resume_and_nothing_else_is_lost(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    with ScriptedServer([*_ROUNDS, {"text": "resumed fine"}]) as server:
        session_id = _recorded(tmp_path, work, server)
        path = _record_path(tmp_path, session_id)
        whole = path.read_bytes()
        path.write_bytes(whole + b'{"type": "message", "message": {"role": "us')
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(
            ["-p", "go on", "--resume", session_id, *base], cwd=str(work), env=_env(tmp_path)
        )
    assert code == 0, err
    assert "its last line was torn" in err and '{"type": "message", "message": {"role": "us' in err
    assert out.strip() == "resumed fine"
    sent = server.requests[-1]["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert path.read_bytes().startswith(whole)
    assert Path(str(path) + ".torn").read_text() == '{"type": "message", "message": {"role": "us\n'
    assert not verify_record(read_record(str(path))).problems


def test_export_then_import_elsewhere_then_resume_continues_the_conversation(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    moved = tmp_path / "moved"
    moved.mkdir()
    env = _env(tmp_path)
    portable = tmp_path / "portable.jsonl"
    with ScriptedServer([*_ROUNDS, {"text": "continued"}]) as server:
        session_id = _recorded(tmp_path, work, server)
        code, out, err = run_main(["sessions", "export", session_id, str(portable)], cwd=str(work), env=env)
        assert code == 0, err
        assert str(tmp_path) not in portable.read_text()  # paths made relative
        code, out, err = run_main(["sessions", "import", str(portable)], cwd=str(moved), env=env)
        assert code == 0, err
        new_id = out.split("as session ")[1].split()[0]
        assert new_id != session_id
        assert run_main(["--list"], cwd=str(moved), env=env)[1].split()[0] == new_id
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(["-p", "and now", "--resume", new_id, *base], cwd=str(moved), env=env)
    assert code == 0, err
    assert out.strip() == "continued"
    sent = server.requests[-1]["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant", "user"]
    header = json.loads(_record_path(tmp_path, new_id).read_text().splitlines()[0])
    assert header["cwd"] == str(moved) and header["id"] == new_id
    assert run_main(["sessions", "verify", new_id], cwd=str(moved), env=env)[0] == 0


def test_an_export_edited_on_the_way_is_refused_on_import_naming_the_line(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    portable = tmp_path / "portable.jsonl"
    with ScriptedServer(_ROUNDS) as server:
        session_id = _recorded(tmp_path, work, server)
    run_main(["sessions", "export", session_id, str(portable)], cwd=str(work), env=_env(tmp_path))
    portable.write_text(portable.read_text().replace("first answer", "other answer"))
    code, out, err = run_main(["sessions", "import", str(portable)], cwd=str(work), env=_env(tmp_path))
    assert code == 1 and "the hash chain breaks" in err and "nothing imported" in err
    assert out == ""


def test_a_full_disk_is_said_once_the_run_goes_on_and_the_lines_are_written_when_room_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    session = Session.create(str(tmp_path), str(tmp_path), "openai", "m")
    session._warn = said.append
    real_write = os.write
    full = True

    def write(fd: int, data: bytes | memoryview) -> int:
        if full:
            real_write(fd, bytes(data[:5]))  # part of the line lands, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr("bastion.agent.sessions._session.os.write", write)
    session.record("one")
    session.record("two")
    assert len(said) == 1 and "no space left to record it" in said[0] and "goes on in memory" in said[0]
    full = False
    session.record("three")
    session.close()
    assert session.path is not None
    record = read_record(session.path)
    assert [e["type"] for e in record.events] == ["session", "one", "two", "three"]
    assert record.torn is None and not verify_record(record).problems


def test_gc_removes_sessions_older_than_the_age_and_keeps_the_others(tmp_path: Path) -> None:
    store = tmp_path / "home" / ".bastion" / "sessions"
    store.mkdir(parents=True)
    old, new = store / "20200101-000000-aaaaaa.jsonl", store / "20260101-000000-bbbbbb.jsonl"
    for path in (old, new):
        path.write_text('{"type": "session"}\n')
    stale = time.time() - 40 * 86400
    os.utime(old, (stale, stale))
    code, out, _ = run_main(["sessions", "gc", "--older-than", "30d"], cwd=str(tmp_path), env=_env(tmp_path))
    assert code == 0 and "removed 1 sessions" in out
    assert not old.exists() and new.exists()
    code, _, err = run_main(["sessions", "gc", "--older-than", "soon"], cwd=str(tmp_path), env=_env(tmp_path))
    assert code == 1 and "not an age like 30d" in err

"""A session record stays one process's and stays whole: two resumes of one session at once (the
second refused, naming the first; free again once it ends, also by kill -9), a broken record resumed
only when told to repair it, a store that cannot be made (the run goes on unrecorded, said once, and
its JSON says so; doctor says why), and a full disk that drops events (the JSON says so)."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bastion.agent.sessions import read_record, verify_record
from bastion.doctor import doctor_main

from ..waits import PATIENCE, until
from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace


def _base(server: ScriptedServer) -> list[str]:
    return ["--provider", "openai", "--base-url", server.url + "/v1"]


def _first_session(tmp_path: Path, work: Path) -> tuple[str, Path]:
    with ScriptedServer([{"text": "first answer"}]) as server:
        code, _, err = run_main(["-p", "start", *_base(server)], cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    session_id = run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1].split()[0]
    return session_id, tmp_path / "home" / ".bastion" / "sessions" / f"{session_id}.jsonl"


def _bastion(args: list[str], tmp_path: Path, work: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bastion", *args],
        cwd=work,
        env={**os.environ, **_env(tmp_path)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class _Held:
    """A scripted server's hook that holds request `index` until released: a session that is
    running (its record locked) for as long as a test needs."""

    def __init__(self, index: int = 0) -> None:
        self.index = index
        self.arrived = threading.Event()
        self.release = threading.Event()

    def __call__(self, index: int) -> None:
        if index == self.index:
            self.arrived.set()
            self.release.wait(PATIENCE)


@pytest.mark.parametrize("ends", ["by itself", "by kill -9"])
def test_a_session_in_use_is_refused_naming_its_process_and_is_free_once_that_ends(
    tmp_path: Path, ends: str
) -> None:
    work = _workspace(tmp_path, {})
    session_id, path = _first_session(tmp_path, work)
    held = _Held()
    with ScriptedServer([{"text": "from the first"}, {"text": "from the second"}], on_request=held) as server:
        first = _bastion(["-p", "go on", "--resume", session_id, *_base(server)], tmp_path, work)
        try:
            assert held.arrived.wait(PATIENCE), "the first resume never asked the model"
            code, _, err = run_main(
                ["-p", "me too", "--resume", session_id, *_base(server)], cwd=str(work), env=_env(tmp_path)
            )
            assert code == 1 and f"session {session_id} is in use by process {first.pid} (" in err, err
            assert len(server.requests) == 1  # the second asked nothing and recorded nothing
            if ends == "by kill -9":
                first.kill()
        finally:
            held.release.set()
            _, first_err = first.communicate(timeout=PATIENCE)
        assert first.returncode == (0 if ends == "by itself" else -9), first_err
        # The kernel let the lock go with the process: the session resumes, its record whole.
        code, out, err = run_main(
            ["-p", "now me", "--resume", session_id, *_base(server)], cwd=str(work), env=_env(tmp_path)
        )
    assert code == 0 and "from the second" in out, err
    assert verify_record(read_record(str(path))).problems == []


@pytest.mark.parametrize("how", ["--repair", "sessions repair"])
def test_a_broken_record_is_refused_on_resume_saying_how_and_resumed_once_repaired(
    tmp_path: Path, how: str
) -> None:
    work = _workspace(tmp_path, {})
    session_id, path = _first_session(tmp_path, work)
    original = path.read_bytes()
    path.write_bytes(original.replace(b'"text": "start"', b'"text": "START"'))
    edited = path.read_bytes()
    with ScriptedServer([{"text": "went on"}]) as server:
        resume = ["-p", "go on", "--resume", session_id, *_base(server)]
        code, _, err = run_main(resume, cwd=str(work), env=_env(tmp_path))
        assert (
            code == 1 and f"session {session_id}: its record is broken (line 2: the hash chain breaks" in err
        )
        assert "add --repair" in err and f"bastion sessions repair {session_id}" in err
        assert server.requests == [] and path.read_bytes() == edited
        if how == "--repair":
            code, out, err = run_main([*resume, "--repair"], cwd=str(work), env=_env(tmp_path))
            assert "repaired: 1 lines kept" in err
        else:
            code, said, err = run_main(["sessions", "repair", session_id], cwd=str(work), env=_env(tmp_path))
            assert code == 0 and "repaired: 1 lines kept" in said, err
            code, out, err = run_main(resume, cwd=str(work), env=_env(tmp_path))
    assert code == 0 and "went on" in out, err
    # Nothing is lost: the record as it was is beside it; what is kept verifies.
    assert (path.parent / f"{session_id}.jsonl.broken").read_bytes() == edited
    assert verify_record(read_record(str(path))).problems == []
    sent = server.requests[0]["body"]["messages"]
    assert [m.get("content") for m in sent if m["role"] == "user"] == ["go on"]


def _read_only_home(tmp_path: Path) -> Path:
    """A home directory nothing can be made in (root writes any directory whatever its mode: /sys
    refuses it too)."""
    if os.geteuid() == 0:
        return Path("/sys")
    home = tmp_path / "readonly"
    home.mkdir()
    home.chmod(0o500)
    return home


@pytest.mark.parametrize("broken", ["BASTION_HOME a file", "sessions a file", "HOME read-only"])
def test_a_store_that_cannot_be_made_runs_unrecorded_said_once_and_in_the_json(
    tmp_path: Path, broken: str
) -> None:
    work = _workspace(tmp_path, {})
    env = _env(tmp_path)
    if broken == "BASTION_HOME a file":
        (tmp_path / "file").write_text("")
        env["BASTION_HOME"], culprit = str(tmp_path / "file"), str(tmp_path / "file")
    elif broken == "sessions a file":
        (tmp_path / "home" / ".bastion").mkdir(parents=True)
        (tmp_path / "home" / ".bastion" / "sessions").write_text("")
        culprit = str(tmp_path / "home" / ".bastion" / "sessions")
    else:
        home = _read_only_home(tmp_path)
        env["BASTION_HOME"], env["HOME"], culprit = "", str(home), str(home / ".bastion")
    with ScriptedServer([{"text": "answered anyway"}]) as server:
        argv = ["-p", "hi", "--output-format", "json", *_base(server)]
        code, out, err = run_main(argv, cwd=str(work), env=env)
    assert code == 0, err
    document = json.loads(out)
    assert document["result"] == "answered anyway" and document["outcome"]["status"] == "completed"
    assert document["session_id"] is None  # nothing to --resume
    ((warning),) = document["outcome"]["warnings"]
    assert warning["kind"] == "session_not_recorded" and culprit in warning["message"]
    said = [line for line in err.splitlines() if "unrecorded" in line]
    assert len(said) == 1 and culprit in said[0] and "BASTION_HOME" in said[0], err
    assert "Traceback" not in err
    report = io.StringIO()
    code = doctor_main(["--section", "sessions", "--json", "--cwd", str(work)], {**os.environ, **env}, report)
    (fact,) = json.loads(report.getvalue())["sections"][0]["facts"]
    assert code == 1 and fact["status"] == "fail" and culprit in fact["value"]


def test_a_full_disk_that_drops_events_is_in_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = _workspace(tmp_path, {})
    real_write = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr("bastion.agent.sessions._session.os.write", write)
    with ScriptedServer([{"text": "done"}]) as server:
        argv = ["-p", "hi", "--output-format", "json", *_base(server)]
        code, out, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    monkeypatch.undo()
    assert code == 0, err
    outcome = json.loads(out)["outcome"]
    assert outcome["status"] == "completed"
    ((warning),) = outcome["warnings"]
    assert warning["kind"] == "session_incomplete" and "could not be recorded" in warning["message"]
    assert "No space left on device" in warning["message"]


def _results(path: Path) -> dict[str, str]:
    """The tool results the record holds, by call id."""
    return {
        e["message"]["call_id"]: e["message"]["content"]
        for e in read_record(str(path)).events
        if e.get("type") == "message" and e["message"].get("role") == "tool_result"
    }


@pytest.mark.parametrize("point", ["while a later call runs", "while the model answers the results"])
def test_after_kill_9_a_call_that_had_ended_is_recorded_with_its_result(tmp_path: Path, point: str) -> None:
    work = _workspace(tmp_path, {})
    calls = [
        {"name": "write", "arguments": {"path": "a.txt", "content": "made\n"}, "id": "w1"},
        {"name": "bash", "arguments": {"command": "sh -c 'echo $$ > bash.pid; exec sleep 600'"}, "id": "b1"},
    ]
    if point == "while the model answers the results":
        calls[1]["arguments"] = {"command": "echo done"}
    hold_second = _Held(1)
    with ScriptedServer([{"calls": calls}, {"text": "never sent"}], on_request=hold_second) as server:
        argv = ["-p", "go", "--allow", "write(a.txt)", "--allow", "bash", *_base(server)]
        run = _bastion(argv, tmp_path, work)
        try:
            if point == "while a later call runs":
                until(
                    lambda: (work / "bash.pid").exists() and (work / "bash.pid").read_text().endswith("\n"),
                    "the second call's command to start",
                )
            else:
                assert hold_second.arrived.wait(PATIENCE), "bastion never sent the results to the model"
            run.kill()
            run.communicate(timeout=PATIENCE)
        finally:
            hold_second.release.set()
            if (work / "bash.pid").exists():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.killpg(int((work / "bash.pid").read_text()), 9)
    (path,) = (tmp_path / "home" / ".bastion" / "sessions").glob("*.jsonl")
    results = _results(path)
    assert results["w1"] == "wrote 5 bytes to a.txt" and (work / "a.txt").read_text() == "made\n"
    if point == "while a later call runs":
        assert "b1" not in results  # it had not ended: a resume answers it as interrupted
    else:
        assert results["b1"].startswith("done")

"""A record damaged on disk (a flipped bit, a crash's NULs, garbage, a torn last line, a line that
is JSON but no object) is listed as damaged, named by verify, exported up to the damage, and
repaired: the lines before the first bad one kept, chained anew, the whole record as it was kept
beside it, a fresh file for every repair (never glued to an earlier copy)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bastion.agent.sessions import read_record, verify_record

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace
from .test_session_records import _ROUNDS, _record_path, _recorded

DAMAGED = 5  # the line damaged: the read call's verdict, after the prompt (line 2)


def _replace_line(data: bytes, new: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[DAMAGED - 1] = new
    return b"\n".join(lines)


def _flip(bit: int) -> Callable[[bytes], bytes]:
    def flip(data: bytes) -> bytes:
        lines = data.split(b"\n")
        line = bytearray(lines[DAMAGED - 1])
        at = line.index(b'"allow"') + 1  # the a of allow
        line[at] ^= 1 << bit
        lines[DAMAGED - 1] = bytes(line)
        return b"\n".join(lines)

    return flip


def _nuls_then_a_resume(data: bytes) -> bytes:
    """What a crash can leave: the file's last blocks were never written (NULs where lines 5 on
    were, newlines too), then a resume appended its line after them."""
    start = sum(len(line) + 1 for line in data.split(b"\n")[: DAMAGED - 1])
    return data[:start] + b"\0" * (len(data) - start) + b'{"type": "resumed", "cwd": "/x"}\n'


DAMAGE: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "a flipped bit that leaves no UTF-8": (_flip(7), "not JSON: byte"),
    "a flipped bit that leaves JSON": (_flip(1), "the hash chain breaks"),
    "a block of NULs": (_nuls_then_a_resume, "NUL bytes (what a crash can leave)"),
    "a garbage line": (lambda data: _replace_line(data, b"garbage that is no event"), "not JSON (Expecting"),
    "a line that is JSON but no object": (lambda data: _replace_line(data, b"[1, 2]"), "but not an object"),
    "a torn last line": (lambda data: data + b'{"type": "message", "mess', "the last line is torn"),
}


def _damaged(tmp_path: Path, kind: str) -> tuple[str, Path, Path, bytes]:
    work = _workspace(tmp_path, {"files": {"a.txt": "alpha\n"}})
    with ScriptedServer(_ROUNDS) as server:
        session_id = _recorded(tmp_path, work, server)
    path = _record_path(tmp_path, session_id)
    damage, _ = DAMAGE[kind]
    path.write_bytes(damage(path.read_bytes()))
    return session_id, work, path, path.read_bytes()


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_record_is_listed_as_damaged_named_by_verify_and_repaired(
    tmp_path: Path, kind: str
) -> None:
    session_id, work, path, damaged = _damaged(tmp_path, kind)
    env = _env(tmp_path)
    said = DAMAGE[kind][1]
    code, out, err = run_main(["sessions", "list"], cwd=str(work), env=env)
    (listed,) = [line for line in out.splitlines() if line.startswith(session_id)]
    assert code == 0 and "'read a.txt'  damaged: " in listed and said in listed, out
    assert f"bastion sessions repair {session_id}" in out
    code, out, err = run_main(["sessions", "verify", session_id], cwd=str(work), env=env)
    assert code == 3 and said in out and "NOT verified" in out, out + err
    if kind != "a torn last line":
        assert f"line {DAMAGED}: " in out
    code, out, err = run_main(["sessions", "repair", session_id], cwd=str(work), env=env)
    kept = 9 if kind == "a torn last line" else DAMAGED - 1
    assert code == 0 and f"repaired: {kept} lines kept" in out, out + err
    record = read_record(str(path))
    assert len(record.events) == kept and not verify_record(record).problems
    broken = Path(f"{path}.broken").read_bytes()
    assert broken == (damaged if kind != "a torn last line" else damaged[: damaged.rindex(b"\n") + 1])
    code, out, err = run_main(["sessions", "list"], cwd=str(work), env=env)
    assert out.startswith(f"{session_id}  ") and "damaged" not in out, out


def test_resume_with_repair_and_export_go_past_a_line_of_nuls(tmp_path: Path) -> None:
    session_id, work, path, damaged = _damaged(tmp_path, "a block of NULs")
    env = _env(tmp_path)
    portable = tmp_path / "portable.jsonl"
    code, out, err = run_main(["sessions", "export", session_id, str(portable)], cwd=str(work), env=env)
    assert code == 0 and f"lines {DAMAGED}-{DAMAGED} (line {DAMAGED}: not JSON: it holds" in out, out + err
    assert len(portable.read_text().splitlines()) == DAMAGED - 1
    with ScriptedServer([{"text": "went on"}]) as server:
        resume = [
            "-p",
            "go on",
            "--resume",
            session_id,
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
        ]
        code, out, err = run_main(resume, cwd=str(work), env=env)
        assert code == 1 and f"its record is broken (line {DAMAGED}: not JSON: it holds" in err, err
        code, out, err = run_main([*resume, "--repair"], cwd=str(work), env=env)
    assert code == 0 and out.strip() == "went on", err
    assert f"repaired: {DAMAGED - 1} lines kept, 1 cut off" in err
    assert Path(f"{path}.broken").read_bytes() == damaged
    assert not verify_record(read_record(str(path))).problems


def test_a_record_broken_on_its_first_line_is_listed_everywhere_then_resumed_here_once_repaired(
    tmp_path: Path,
) -> None:
    session_id, work, path, _ = _damaged(tmp_path, "a garbage line")
    path.write_bytes(b"\0" * 40 + path.read_bytes())
    env = _env(tmp_path)
    code, out, _ = run_main(["sessions", "list"], cwd=str(tmp_path), env=env)
    assert out.splitlines()[0] == f"no sessions with a prompt in {tmp_path}"
    assert f"{session_id}  damaged, its directory unknown: line 1: not JSON: it holds 40 NUL bytes" in out
    code, out, err = run_main(["sessions", "repair", session_id], cwd=str(work), env=env)
    assert code == 0 and "repaired: 0 lines kept, 9 cut off" in out, out + err
    with ScriptedServer([{"text": "went on"}]) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        code, out, err = run_main(
            ["-p", "start again", "--resume", session_id, *base], cwd=str(work), env=env
        )
    assert code == 0 and out.strip() == "went on", err
    # Its header is gone, but its resume says where it runs now: listed there, and nowhere else.
    code, out, _ = run_main(["sessions", "list"], cwd=str(work), env=env)
    assert out.startswith(f"{session_id}    'start again'"), out
    assert session_id not in run_main(["sessions", "list"], cwd=str(tmp_path), env=env)[1]


def test_each_repair_keeps_the_record_as_it_was_in_a_fresh_file_of_its_own(tmp_path: Path) -> None:
    session_id, work, path, first = _damaged(tmp_path, "a garbage line")
    env = _env(tmp_path)
    partial = Path(f"{path}.broken.partial")
    partial.write_bytes(b'{"type": "message", "mess')  # what a repair killed while copying left
    assert run_main(["sessions", "repair", session_id], cwd=str(work), env=env)[0] == 0
    path.write_bytes(path.read_bytes() + b"more garbage\n")
    second = path.read_bytes()
    code, out, err = run_main(["sessions", "repair", session_id], cwd=str(work), env=env)
    assert code == 0 and f"the record as it was is in {path}.broken.2" in out, out + err
    assert Path(f"{path}.broken").read_bytes() == first
    assert Path(f"{path}.broken.2").read_bytes() == second
    assert not partial.exists()
    stale = time.time() - 40 * 86400
    for name in (path, Path(f"{path}.broken"), Path(f"{path}.broken.2")):
        os.utime(name, (stale, stale))
    partial.write_bytes(b"left by a killed repair")
    os.utime(partial, (stale, stale))
    code, out, _ = run_main(["sessions", "gc", "--older-than", "30d"], cwd=str(work), env=env)
    assert code == 0 and "removed 1 sessions" in out
    assert list(path.parent.iterdir()) == []

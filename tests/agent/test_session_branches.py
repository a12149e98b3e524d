"""Sessions as a tree: going on from an earlier entry (a branch), fork, `sessions tree`, and verify,
export, import and repair of a branched record; an old linear record is one branch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bastion.agent.sessions import read_record, verify_record

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace


def _path(tmp_path: Path, session_id: str) -> Path:
    return tmp_path / "home" / ".bastion" / "sessions" / f"{session_id}.jsonl"


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _line_of(path: Path, text: str) -> int:
    """The line (from 1) of the message event holding `text`."""
    return next(
        number
        for number, e in enumerate(_events(path), 1)
        if e["type"] == "message" and text in json.dumps(e["message"])
    )


def _said(server: ScriptedServer) -> list[str]:
    """What the last request sent the model: each message's role and text."""
    return [
        f"{m['role']}:{m.get('content') or ''}"
        for m in server.requests[-1]["body"]["messages"]
        if m["role"] != "system"
    ]


def _branched(tmp_path: Path) -> tuple[Path, str, ScriptedServer]:
    """A session of two prompts, then a third going on from the first answer (branch 2)."""
    work = _workspace(tmp_path, {})
    env = _env(tmp_path)
    rounds: list[dict[str, object]] = [
        {"text": "answer one"},
        {"text": "answer two"},
        {"text": "answer three"},
    ]
    with ScriptedServer(rounds) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        assert run_main(["-p", "prompt one", *base], cwd=str(work), env=env)[0] == 0
        session_id = run_main(["--list"], cwd=str(work), env=env)[1].split()[0]
        assert run_main(["-p", "prompt two", "--resume", session_id, *base], cwd=str(work), env=env)[0] == 0
        at = _line_of(_path(tmp_path, session_id), "answer one")
        code, out, err = run_main(
            ["-p", "prompt three", "--resume", session_id, "--at", str(at), *base], cwd=str(work), env=env
        )
    assert code == 0, err
    assert out.strip() == "answer three"
    return work, session_id, server


def test_a_branch_continued_sends_the_model_its_own_path_not_the_other_branch(tmp_path: Path) -> None:
    work, session_id, server = _branched(tmp_path)
    assert _said(server) == ["user:prompt one", "assistant:answer one", "user:prompt three"]
    # A plain resume goes on from the head: the branch just continued.
    with ScriptedServer([{"text": "answer four"}]) as again:
        base = ["--provider", "openai", "--base-url", again.url + "/v1"]
        code, _, err = run_main(
            ["-p", "prompt four", "--resume", session_id, *base], cwd=str(work), env=_env(tmp_path)
        )
    assert code == 0, err
    assert _said(again) == [
        "user:prompt one",
        "assistant:answer one",
        "user:prompt three",
        "assistant:answer three",
        "user:prompt four",
    ]
    path = _path(tmp_path, session_id)
    branch = next(e for e in _events(path) if e["type"] == "branch")
    assert (branch["branch"], branch["parent"], branch["at"]) == (2, 1, _line_of(path, "answer one"))
    code, out, _ = run_main(["sessions", "verify", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 0 and f"{session_id}: verified" in out and "4 requests rebuilt" in out


def test_the_tree_shows_each_branch_under_the_entry_it_left_and_marks_the_head(tmp_path: Path) -> None:
    work, session_id, _ = _branched(tmp_path)
    path = _path(tmp_path, session_id)
    at = _line_of(path, "answer one")
    code, out, _ = run_main(["sessions", "tree", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "branch 1"
    left = lines.index(f"  branch 2 (left branch 1 at line {at})")
    assert "answer one" in lines[left - 1] and lines[left - 1].lstrip().startswith(str(at))
    assert "answer two" in "\n".join(lines[left + 1 :]) and "answer three" in "\n".join(lines[left + 1 :])
    head = next(line for line in lines if line.endswith("<- head"))
    assert "answer three" in head and head.startswith("    ")  # on branch 2, indented under branch 1


def test_an_old_linear_record_reads_as_one_branch_and_still_verifies_and_resumes(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    with ScriptedServer([{"text": "answer one"}, {"text": "answer two"}]) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        run_main(["-p", "prompt one", *base], cwd=str(work), env=_env(tmp_path))
        session_id = run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1].split()[0]
        code, out, _ = run_main(["sessions", "tree", session_id], cwd=str(work), env=_env(tmp_path))
        assert code == 0 and [line for line in out.splitlines() if "branch" in line] == ["branch 1"]
        assert out.splitlines()[-1].endswith("answer one  <- head")
        assert verify_record(read_record(str(_path(tmp_path, session_id)))).problems == []
        assert (
            run_main(["-p", "prompt two", "--resume", session_id, *base], cwd=str(work), env=_env(tmp_path))[
                0
            ]
            == 0
        )
    assert _said(server)[:2] == ["user:prompt one", "assistant:answer one"]


def test_an_edited_line_on_a_branch_fails_verify_naming_it(tmp_path: Path) -> None:
    work, session_id, _ = _branched(tmp_path)
    path = _path(tmp_path, session_id)
    number = _line_of(path, "answer three")
    lines = path.read_text().splitlines(keepends=True)
    lines[number - 1] = lines[number - 1].replace("answer three", "forged three")
    path.write_text("".join(lines))
    code, out, _ = run_main(["sessions", "verify", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 3 and f"line {number}: the hash chain breaks" in out


def test_a_branch_event_moved_to_a_prompt_fails_verify_and_repair_keeps_the_lines_before_it(
    tmp_path: Path,
) -> None:
    """A forger who chains anew a branch event that goes on from an unanswered prompt is named."""
    from .agent_fixtures import write_record

    work, session_id, _ = _branched(tmp_path)
    path = _path(tmp_path, session_id)
    events = [{k: v for k, v in e.items() if k != "chain"} for e in _events(path)]
    number = next(i for i, e in enumerate(events, 1) if e["type"] == "branch")
    events[number - 1]["at"] = _line_of(path, "prompt two")
    write_record(path, events)
    code, out, _ = run_main(["sessions", "verify", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 3 and f"line {number}: the conversation cannot be rebuilt" in out
    assert "prompt the model has not answered" in out
    code, out, _ = run_main(["sessions", "repair", session_id], cwd=str(work), env=_env(tmp_path))
    assert code == 0 and f"{number - 1} lines kept" in out
    assert verify_record(read_record(str(path))).problems == []


def test_export_of_every_branch_imports_and_resumes_at_the_head_and_one_branch_exports_alone(
    tmp_path: Path,
) -> None:
    work, session_id, _ = _branched(tmp_path)
    env = _env(tmp_path)
    whole, one = tmp_path / "whole.jsonl", tmp_path / "one.jsonl"
    assert run_main(["sessions", "export", session_id, str(whole)], cwd=str(work), env=env)[0] == 0
    assert (
        run_main(["sessions", "export", session_id, str(one), "--branch", "1"], cwd=str(work), env=env)[0]
        == 0
    )
    kept = _events(one)
    assert [e["type"] for e in kept if e["type"] == "branch"] == []
    texts = json.dumps(kept)
    assert "answer two" in texts and "answer three" not in texts and "prompt three" not in texts
    assert verify_record(read_record(str(one))).problems == []
    code, out, err = run_main(["sessions", "import", str(whole)], cwd=str(work), env=env)
    assert code == 0, err
    imported = out.split("as session ")[1].split()[0]
    with ScriptedServer([{"text": "answer four"}]) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        code, _, err = run_main(["-p", "prompt four", "--resume", imported, *base], cwd=str(work), env=env)
    assert code == 0, err
    assert _said(server)[2:4] == ["user:prompt three", "assistant:answer three"]


def test_a_fork_at_an_entry_is_a_new_session_holding_the_path_to_it(tmp_path: Path) -> None:
    work, session_id, _ = _branched(tmp_path)
    env = _env(tmp_path)
    at = _line_of(_path(tmp_path, session_id), "answer two")
    before = _path(tmp_path, session_id).read_bytes()
    code, out, err = run_main(["sessions", "fork", session_id, "--at", str(at)], cwd=str(work), env=env)
    assert code == 0, err
    forked = out.split("as session ")[1].split()[0]
    assert _path(tmp_path, session_id).read_bytes() == before
    header = _events(_path(tmp_path, forked))[0]
    assert header["id"] == forked and header["forked_from"] == {"session": session_id, "line": at}
    with ScriptedServer([{"text": "answer five"}]) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1"]
        code, _, err = run_main(["-p", "prompt five", "--resume", forked, *base], cwd=str(work), env=env)
    assert code == 0, err
    assert _said(server) == [
        "user:prompt one",
        "assistant:answer one",
        "user:prompt two",
        "assistant:answer two",
        "user:prompt five",
    ]


def test_an_unknown_or_unready_entry_is_refused_in_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    work, session_id, _ = _branched(tmp_path)
    env = _env(tmp_path)
    path = _path(tmp_path, session_id)
    before = path.read_bytes()
    prompt = _line_of(path, "prompt two")
    request = next(i for i, e in enumerate(_events(path), 1) if e["type"] == "request")
    cases = [
        (["--resume", session_id, "--at", "999", "-p", "x"], "--at 999: session", "no entry at line 999"),
        (["--resume", session_id, "--at", str(request), "-p", "x"], f"--at {request}:", "no entry"),
        (["--resume", session_id, "--at", str(prompt), "-p", "x"], f"--at {prompt}:", "has not answered"),
        (["sessions", "fork", session_id, "--at", "0"], "fork --at 0:", "no entry at line 0"),
        (
            ["sessions", "export", session_id, str(tmp_path / "x"), "--branch", "7"],
            "--branch 7:",
            "no branch 7",
        ),
        (["sessions", "tree", str(path)], "tree:", "is not a session ID"),
        (["--at", "3", "-p", "x"], "--at goes with --resume ID", ""),
    ]
    for argv, names, says in cases:
        code, _, err = run_main(
            [*argv, "--provider", "openai"] if argv[0] != "sessions" else argv, cwd=str(work), env=env
        )
        assert code != 0 and names in err and says in err, (argv, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert path.read_bytes() == before
    assert not (tmp_path / "x").exists()


def _linear() -> list[dict[str, Any]]:
    from bastion.agent.runtime import Assistant, User, message_to_dict

    return [
        {"type": "session", "id": "x", "cwd": "/w"},
        {"type": "message", "message": message_to_dict(User("one"))},
        {"type": "message", "message": message_to_dict(Assistant("answer one"))},
        {"type": "message", "message": message_to_dict(User("two"))},
        {"type": "message", "message": message_to_dict(Assistant("answer two"))},
    ]


def test_going_on_from_a_branch_tip_takes_it_up_again_and_from_the_header_begins_anew(tmp_path: Path) -> None:
    """A branch's tip is that branch again (no new branch each time the head is chosen); the
    header begins an empty conversation on a new branch; both records verify."""
    from bastion.agent.sessions._branching import continue_from

    from .agent_fixtures import write_record

    events = _linear()
    event, messages = continue_from(events, 5, "x")
    assert (event["branch"], event["parent"], event["at"], len(messages)) == (1, 0, 5, 4)
    event, messages = continue_from(events, 1, "x")
    assert (event["branch"], event["parent"], event["at"], messages) == (2, 1, 1, [])
    for at in (5, 3, 1):
        event, _ = continue_from(events, at, "x")
        path = write_record(tmp_path / f"at{at}.jsonl", [*events, event])
        assert verify_record(read_record(str(path))).problems == [], at


def _write(path: str, text: str) -> dict[str, object]:
    return {"calls": [{"name": "write", "arguments": {"path": path, "content": text}}]}


def test_a_rewind_puts_back_what_the_agent_changed_leaves_a_persons_edit_and_tells_the_model(
    tmp_path: Path,
) -> None:
    work = _workspace(tmp_path, {"files": {"a.txt": "a0\n", "b.txt": "b0\n"}})
    env = _env(tmp_path)
    rounds = [
        _write("a.txt", "a1\n"),
        {"text": "answer one"},
        _write("a.txt", "a2\n"),
        _write("b.txt", "b2\n"),
        _write("c.txt", "c2\n"),
        {"text": "answer two"},
        {"text": "answer three"},
    ]
    with ScriptedServer(rounds) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1", "--yes-to", "stdin"]
        code, _, err = run_main(["-p", "prompt one", *base], cwd=str(work), env=env, stdin="y\n")
        assert code == 0, err
        session_id = run_main(["--list"], cwd=str(work), env=env)[1].split()[0]
        resume = ["--resume", session_id, *base]
        code, _, err = run_main(["-p", "prompt two", *resume], cwd=str(work), env=env, stdin="y\ny\ny\n")
        assert code == 0, err
        assert (work / "a.txt").read_text() == "a2\n" and (work / "c.txt").exists()
        (work / "b.txt").write_text("b by a person\n")  # edited after the session's last change
        at = _line_of(_path(tmp_path, session_id), "answer one")
        code, _, err = run_main(
            ["-p", "prompt three", *resume, "--at", str(at), "--rewind"], cwd=str(work), env=env
        )
    assert code == 0, err
    assert (work / "a.txt").read_text() == "a1\n"  # as it was at the entry, not before the session
    assert not (work / "c.txt").exists()
    assert (work / "b.txt").read_text() == "b by a person\n"
    assert f"rewound to line {at}: put back a.txt, c.txt; left alone: b.txt (it was edited" in err
    said = _said(server)
    assert said[0] == "user:prompt one" and "user:prompt two" not in said  # the entry's path
    note = next(m for m in said if "[bastion: rewind]" in m)
    assert "a.txt, c.txt" in note and "b.txt: it was edited" in note
    assert said[-1] == "user:prompt three"
    code, out, _ = run_main(["sessions", "verify", session_id], cwd=str(work), env=env)
    assert code == 0, out


def test_a_rewind_to_an_entry_off_the_heads_path_is_refused_in_one_line(tmp_path: Path) -> None:
    work, session_id, _ = _branched(tmp_path)
    path = _path(tmp_path, session_id)
    before = path.read_bytes()
    at = _line_of(path, "answer two")  # on branch 1; the head is on branch 2
    code, _, err = run_main(
        ["-p", "x", "--resume", session_id, "--at", str(at), "--rewind", "--provider", "openai"],
        cwd=str(work),
        env=_env(tmp_path),
    )
    assert code != 0 and f"--rewind: line {at} of session {session_id} is not on the path" in err
    assert len(err.strip().splitlines()) == 1 and path.read_bytes() == before


def test_gc_sweeps_the_file_checkpoints_no_record_names_and_keeps_those_named(tmp_path: Path) -> None:
    import os

    from bastion.agent.sessions import Objects

    from .agent_fixtures import write_record

    work = _workspace(tmp_path, {})
    home = tmp_path / "home" / ".bastion"
    objects = Objects(str(home))
    named, orphan = objects.put(b"named\n"), objects.put(b"orphan\n")
    record = home / "sessions" / "20260101-000000-abcdef.jsonl"
    write_record(record, [*_linear(), {"type": "files", "by": "turn", "files": [["a.txt", None, named]]}])
    for name in (named, orphan):
        os.utime(home / "sessions" / "objects" / name[:2] / name[2:], (1, 1))
    code, out, err = run_main(["sessions", "gc", "--older-than", "1h"], cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    assert "1 file checkpoints no record names" in out
    assert objects.get(named) == b"named\n" and objects.get(orphan) is None


def test_a_file_holding_the_key_is_never_kept_in_the_store_and_a_rewind_leaves_it_saying_so(
    tmp_path: Path,
) -> None:
    from .test_scenarios import SECRET

    work = _workspace(tmp_path, {"files": {"k.txt": f"token={SECRET}\n"}})
    env = _env(tmp_path)
    rounds = [
        {"text": "answer one"},
        _write("k.txt", "token=rotated\n"),
        {"text": "answer two"},
        {"text": "x"},
    ]
    with ScriptedServer(rounds) as server:
        base = ["--provider", "openai", "--base-url", server.url + "/v1", "--yes-to", "stdin"]
        assert run_main(["-p", "prompt one", *base], cwd=str(work), env=env)[0] == 0
        session_id = run_main(["--list"], cwd=str(work), env=env)[1].split()[0]
        resume = ["--resume", session_id, *base]
        code, _, err = run_main(["-p", "prompt two", *resume], cwd=str(work), env=env, stdin="y\n")
        assert code == 0, err
        at = _line_of(_path(tmp_path, session_id), "answer one")
        code, _, err = run_main(["-p", "p", *resume, "--at", str(at), "--rewind"], cwd=str(work), env=env)
    assert code == 0, err
    assert (work / "k.txt").read_text() == "token=rotated\n"
    assert "left alone: k.txt (what it held then is not kept (swept, or it held a key))" in err
    store = tmp_path / "home" / ".bastion" / "sessions" / "objects"
    kept = [p.read_bytes() for p in store.rglob("*") if p.is_file()]
    assert kept and not any(SECRET.encode() in data for data in kept)

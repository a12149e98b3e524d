"""The REPL's long-session commands in a pseudo-terminal: /diff and /undo-turn after a turn."""

from __future__ import annotations

from pathlib import Path

import pexpect

from bastion.agent.front import UNDO_ACK, UNDO_HEAD

from .scripted_server import ScriptedServer
from .test_repl import _spawn
from .test_scenarios import _session_events


def test_diff_shows_the_last_turn_and_undo_turn_puts_it_back_and_tells_the_model(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
        {"text": "Written it."},
        {"text": "Then out.txt is gone."},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("write out.txt")
        child.expect(r"\[y/n/a")
        child.sendline("y")
        child.expect("Written it.")
        child.sendline("/diff")
        child.expect(r"\+\+\+ b/out\.txt")
        child.expect(r"\+hi")
        child.sendline("/undo-turn")
        child.expect("undone: out.txt")
        child.sendline("/undo-turn")
        child.expect("refused: the last turn changed no file")
        child.sendline("is out.txt there?")
        child.expect("Then out.txt is gone.")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert not (tmp_path / "work" / "out.txt").exists()
    assert any(e["type"] == "undo_turn" and e["files"] == ["out.txt"] for e in _session_events(tmp_path))
    # The next request tells the model what was undone (once: the refused second undo says nothing).
    sent = [(m["role"], m.get("content")) for m in server.requests[2]["body"]["messages"][1:]]
    assert sent[4:] == [
        (
            "user",
            f"{UNDO_HEAD}The user ran /undo-turn: every file your last turn changed is back as it was "
            "before that turn: out.txt (removed: the turn created it). Those changes are no longer in "
            "place; read a file again before relying on what you last saw of it.",
        ),
        ("assistant", UNDO_ACK),
        ("user", "is out.txt there?"),
    ]


def test_compact_that_does_not_shrink_is_refused_and_context_shows_the_space(tmp_path: Path) -> None:
    rounds = [{"text": "hello"}, {"text": "a summary far longer than the conversation it replaces " * 20}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("hi")
        child.expect("hello")
        child.sendline("/compact the greeting")
        child.expect("/compact refused: the summary .* does not shrink the conversation")
        child.sendline("/context")
        child.expect(r"used: \d+ tokens")
        child.expect(r"window: 272000 \(bastion's table of known models, \d{4}-\d\d-\d\d\)")
        child.expect(r"compacts at: 204000 \(three quarters of the window\)")
        child.expect(r"system \d+ · tools \d+ · turns \d+ \(2 messages\)")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert "keep above all: the greeting" in server.requests[1]["body"]["messages"][1]["content"]
    assert not any(e["type"] == "compaction" for e in _session_events(tmp_path))


def test_an_approved_bash_line_is_shown_by_diff_and_undone(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "kept.txt").write_text("before\n")
    line = "echo made > made.txt; echo after > kept.txt"
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": line}}]}, {"text": "Ran it."}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("run it")
        child.expect(r"allow bash\? \[y/N\]")
        child.sendline("y")
        child.expect("Ran it.")
        child.sendline("/diff")
        child.expect(r"-before\s+\+after")
        child.sendline("/undo-turn")
        child.expect("undone: kept.txt, made.txt")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["kept.txt"]
    assert (tmp_path / "work" / "kept.txt").read_text() == "before\n"

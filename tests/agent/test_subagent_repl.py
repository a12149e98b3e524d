"""A sub-agent in the REPL: its question, asked from its own thread, is answered at the prompt;
/tools offers task; /cost counts the sub-agent's replies; /undo-turn undoes what it changed."""

from __future__ import annotations

from pathlib import Path

import pexpect

from .scripted_server import ScriptedServer
from .test_repl import _spawn
from .test_scenarios import _session_events


def test_a_sub_agents_question_is_answered_in_the_repl_and_its_replies_are_counted(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "task", "id": "t1", "arguments": {"prompt": "make the file"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]},
        {"text": "made it"},
        {"text": "the sub-agent made it"},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("/tools")
        child.expect("task: Hand a self-contained side task")
        child.sendline("go")
        child.expect(r"\? \[task 1: explore\] bash: `touch made\.txt` creates a file")
        child.expect(r"allow \[task 1: explore\] bash\? \[y/n/a")
        child.sendline("y")
        child.expect("the sub-agent made it")
        child.sendline("/cost")
        child.expect("4 replies: 40 input, 20 output")
        # The sub-agent's approved line was kept in the parent's turn: /undo-turn takes its file back.
        child.sendline("/undo-turn")
        child.expect("made.txt")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    assert not (tmp_path / "work" / "made.txt").exists()
    asked = [e for e in _session_events(tmp_path) if e["type"] == "task" and e["event"] == "verdict"]
    assert [(e["tool"], e["answered_by"], e["allowed"]) for e in asked] == [("bash", "person", True)]

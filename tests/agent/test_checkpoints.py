"""Per-turn checkpoints: /diff shows what the last turn's write, edit and approved bash line did;
/undo-turn puts it back exactly, and refuses whole when a file changed since (later work is never
overwritten), when a bash line was over the snapshot's bounds, or when a link was swapped in."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from bastion.agent.front import LONG_COMMANDS, UNDO_ACK, UNDO_HEAD
from bastion.agent.runtime import Agent, Answer, Assistant, User
from bastion.agent.sessions import Checkpoints, UndoRefused
from bastion.agent.tools import Toolbox
from bastion.analyzer import Stamper
from bastion.policy import Decision
from bastion.workspace import LocalWorkspace
from tests.contexts import gate as gate_for

from .agent_fixtures import FakeGate, ScriptedModel, call


def _yes(call: object, args: Mapping[str, object], verdict: object) -> Answer:
    return Answer(True)


def _turn(work: Path, checkpoints: Checkpoints, *calls: tuple[str, dict[str, object]]) -> Agent:
    ws = LocalWorkspace(str(work))
    replies = [Assistant("", (call(name, args, f"c{i}"),)) for i, (name, args) in enumerate(calls)]
    model = ScriptedModel([*replies, Assistant("done")])
    gate = FakeGate({"write": Decision.ASK, "edit": Decision.ASK, "bash": Decision.ASK})
    agent = Agent(model, gate, Toolbox(gate_for(ws, Stamper(), 1 << 20)), _yes, "sys", checkpoint=checkpoints)
    agent.run("go")
    return agent


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "kept.txt").write_text("one\ntwo\n")
    (work / "other.txt").write_text("untouched\n")
    return work


def test_diff_and_undo_cover_a_write_an_edit_and_an_approved_bash_line(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)))
    _turn(
        work,
        checkpoints,
        ("write", {"path": "new.txt", "content": "fresh\n"}),
        ("edit", {"path": "kept.txt", "old_string": "two", "new_string": "TWO"}),
        ("bash", {"command": "echo made > made.txt; rm other.txt"}),
    )
    diff = checkpoints.diff()
    assert "+++ b/new.txt\n" in diff and "+fresh\n" in diff
    assert "-two\n+TWO\n" in diff
    assert "+++ b/made.txt" in diff and "--- a/other.txt\n+++ /dev/null" in diff
    (work / "unrelated.txt").write_text("after the turn\n")
    assert sorted(checkpoints.undo()) == ["kept.txt", "made.txt", "new.txt", "other.txt"]
    assert sorted(os.listdir(work)) == ["kept.txt", "other.txt", "unrelated.txt"]
    assert (work / "kept.txt").read_text() == "one\ntwo\n"
    assert (work / "other.txt").read_text() == "untouched\n"


def test_an_undo_is_refused_whole_naming_the_file_changed_since_the_turn(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)))
    _turn(
        work,
        checkpoints,
        ("write", {"path": "new.txt", "content": "fresh\n"}),
        ("edit", {"path": "kept.txt", "old_string": "two", "new_string": "TWO"}),
    )
    (work / "kept.txt").write_text("the user's later work\n")
    with pytest.raises(UndoRefused, match="kept.txt changed since the turn ended"):
        checkpoints.undo()
    assert (work / "new.txt").read_text() == "fresh\n"  # nothing undone, not even the other file
    assert (work / "kept.txt").read_text() == "the user's later work\n"


def test_a_bash_line_over_the_snapshot_bounds_cannot_be_undone_and_says_so(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)), max_files=1)
    _turn(
        work,
        checkpoints,
        ("write", {"path": "new.txt", "content": "fresh\n"}),
        ("bash", {"command": "echo made > made.txt"}),
    )
    assert "cannot undo this bash line: 'echo made > made.txt'" in checkpoints.diff()
    with pytest.raises(UndoRefused, match="cannot undo this bash line"):
        checkpoints.undo()
    assert (work / "new.txt").exists()


def test_a_bash_line_the_shipped_rules_allow_is_not_snapshotted(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)), max_files=1)
    ws = LocalWorkspace(str(work))
    model = ScriptedModel(
        [Assistant("", (call("bash", {"command": "cat kept.txt"}, "c1"),)), Assistant("ok")]
    )
    Agent(
        model, FakeGate(), Toolbox(gate_for(ws, Stamper(), 1 << 20)), _yes, "s", checkpoint=checkpoints
    ).run("go")
    assert checkpoints.diff() == "the last turn changed no file"


def test_an_undo_never_follows_a_link_swapped_in_for_a_changed_file(tmp_path: Path) -> None:
    work = _work(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    checkpoints = Checkpoints(LocalWorkspace(str(work)))
    _turn(work, checkpoints, ("edit", {"path": "kept.txt", "old_string": "two", "new_string": "TWO"}))
    (work / "kept.txt").unlink()
    (work / "kept.txt").symlink_to(outside)
    with pytest.raises(UndoRefused, match="kept.txt cannot be checked"):
        checkpoints.undo()
    assert outside.read_text() == "outside\n"


def test_an_undo_done_once_is_not_done_twice(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)))
    _turn(work, checkpoints, ("write", {"path": "new.txt", "content": "x"}))
    checkpoints.undo()
    with pytest.raises(UndoRefused, match="changed no file"):
        checkpoints.undo()


def test_a_bash_line_that_leaves_the_workspace_over_the_bounds_cannot_be_undone(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)), max_files=3)
    _turn(work, checkpoints, ("bash", {"command": "touch a b c d"}))
    with pytest.raises(UndoRefused, match="over 3 files"):
        checkpoints.undo()
    assert (work / "d").exists()


class _Record:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, object]]] = []

    def record(self, event: str, **data: object) -> None:
        self.events.append((event, data))


def test_undo_turn_tells_the_model_what_became_of_each_file_before_its_next_prompt(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)))
    agent = _turn(
        work,
        checkpoints,
        ("write", {"path": "new.txt", "content": "fresh\n"}),
        ("edit", {"path": "kept.txt", "old_string": "two", "new_string": "TWO"}),
        ("bash", {"command": "rm other.txt"}),
    )
    session = _Record()
    LONG_COMMANDS["/undo-turn"]("", agent, session)
    assert session.events == [("undo_turn", {"files": ["kept.txt", "new.txt", "other.txt"]})]
    note, ack = agent.messages[-2:]
    assert isinstance(note, User) and note.text.startswith(UNDO_HEAD) and ack == Assistant(UNDO_ACK)
    assert (
        "kept.txt (restored), new.txt (removed: the turn created it), other.txt (restored: the turn "
        "deleted it)" in note.text
    )
    assert isinstance(agent.model, ScriptedModel)
    agent.model.replies.append(Assistant("noted"))
    agent.run("and now?")
    assert agent.model.seen[-1][-3:] == [note, ack, User("and now?")]


def test_a_refused_undo_tells_the_model_nothing(tmp_path: Path) -> None:
    work = _work(tmp_path)
    checkpoints = Checkpoints(LocalWorkspace(str(work)))
    agent = _turn(work, checkpoints, ("write", {"path": "new.txt", "content": "fresh\n"}))
    (work / "new.txt").write_text("changed since\n")
    before = list(agent.messages)
    LONG_COMMANDS["/undo-turn"]("", agent, _Record())
    assert agent.messages == before

"""An editor that offers its file system: the file tools read its unsaved buffers and write through
it, decided exactly as without it (a secret asks, a path outside or a link leading out is refused
before the editor is asked), a failing or silent editor fails that call with words, and commands
still see the disk."""

from __future__ import annotations

import concurrent.futures
import os
from pathlib import Path
from typing import Any

import pytest
from acp.schema import ReadTextFileResponse

from bastion.agent.acp._files import EditorFiles
from bastion.agent.front import RunControl
from bastion.agent.tools import AGENT_TOOLS
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

from .acp_editor import ERROR, NEVER, Editor, editor_session, prompt, run
from .scripted_server import ScriptedServer

DISK = "one\ntwo\n"
BUFFER = "uno\ndos\n"  # the person's unsaved change


def _work(tmp: Path) -> Path:
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    (work / "notes.txt").write_text(DISK)
    return work


def _results(server: ScriptedServer, request: int = 1) -> list[str]:
    """What the tools told the model, as the request `request` carried it."""
    messages = server.requests[request]["body"]["messages"]
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


def _talk(tmp: Path, editor: Editor, rounds: list[dict[str, Any]], *flags: str) -> ScriptedServer:
    async def body() -> str:
        async with editor_session(tmp, server.url, editor, *flags) as (conn, session, _):
            return await prompt(conn, session, "go")

    with ScriptedServer(rounds) as server:
        assert run(body) == "end_turn"
    return server


def _read(path: str) -> dict[str, Any]:
    return {"name": "read", "arguments": {"path": path}}


def test_a_read_sees_the_editor_s_unsaved_buffer_and_a_command_sees_the_disk(tmp_path: Path) -> None:
    work = _work(tmp_path)
    notes = str(work / "notes.txt")
    editor = Editor(buffers={notes: BUFFER})
    cat = {"name": "bash", "arguments": {"command": "cat notes.txt"}}
    server = _talk(tmp_path, editor, [{"calls": [_read("notes.txt"), cat]}, {"text": "read"}])
    read, ran = _results(server)
    assert "uno" in read and "one" not in read
    assert "one" in ran and "uno" not in ran  # bash reads the disk, never the buffer
    assert editor.fs_calls == [("read", notes)]
    assert editor.questions == []  # decided as without the editor: runs unasked


def test_an_edit_applies_to_the_buffer_its_diff_shown_on_it_and_its_write_is_confirmed(
    tmp_path: Path,
) -> None:
    work = _work(tmp_path)
    notes = str(work / "notes.txt")
    edit = {"name": "edit", "arguments": {"path": "notes.txt", "old_string": "dos", "new_string": "tres"}}
    editor = Editor(["allow"], buffers={notes: BUFFER})
    server = _talk(tmp_path, editor, [{"calls": [edit]}, {"text": "edited"}])
    assert editor.buffers == {notes: "uno\ntres\n"}
    assert (work / "notes.txt").read_text() == DISK  # the editor keeps it unsaved
    (result,) = _results(server)
    assert "edited notes.txt" in result and "has not saved it yet" in result
    (question,) = editor.questions
    diff, words = question["toolCall"]["content"]
    assert diff["oldText"] == BUFFER and diff["newText"] == "uno\ntres\n"
    assert "-dos" in words["content"]["text"] and "+tres" in words["content"]["text"]
    assert [kind for kind, _ in editor.fs_calls][-1] == "write"


def test_a_write_through_an_editor_that_saves_says_so(tmp_path: Path) -> None:
    work = _work(tmp_path)
    write = {"name": "write", "arguments": {"path": "notes.txt", "content": "new\n"}}
    editor = Editor(["allow"], buffers={}, save=True)
    server = _talk(tmp_path, editor, [{"calls": [write]}, {"text": "written"}])
    assert (work / "notes.txt").read_text() == "new\n"
    (result,) = _results(server)
    assert result == "wrote 4 bytes to notes.txt through the editor (saved)"


def test_a_secret_asks_and_a_path_outside_is_refused_before_the_editor_is_asked(tmp_path: Path) -> None:
    work = _work(tmp_path)
    (work / ".env").write_text("TOKEN=on-disk\n")
    (tmp_path / "outside.txt").write_text("outside\n")
    os.symlink(tmp_path / "outside.txt", work / "leads-out.txt")
    buffers = {str(work / ".env"): "TOKEN=in-buffer\n", str(tmp_path / "outside.txt"): "outside buffer\n"}
    editor = Editor(["reject"], buffers=buffers)
    calls = [_read(".env"), _read("../outside.txt"), _read("leads-out.txt")]
    server = _talk(tmp_path, editor, [{"calls": calls}, {"text": "no"}])
    env, outside, link = _results(server)
    assert len(editor.questions) == 1 and ".env" in str(editor.questions[0])  # asked, as in the REPL
    assert "refused by the user" in env
    assert "outside" in outside and "not asked" in outside
    assert "leads out" in link and "not asked" in link
    assert editor.fs_calls == []  # nothing was read: neither the secret nor anything outside
    assert all("buffer" not in text for text in (env, outside, link))


def test_a_secret_allowed_once_is_read_from_the_buffer(tmp_path: Path) -> None:
    work = _work(tmp_path)
    (work / ".env").write_text("TOKEN=on-disk\n")
    editor = Editor(["allow"], buffers={str(work / ".env"): "TOKEN=in-buffer\n"})
    server = _talk(tmp_path, editor, [{"calls": [_read(".env")]}, {"text": "ok"}])
    (result,) = _results(server)
    assert "in-buffer" in result
    assert editor.fs_calls == [("read", str(work / ".env"))]


def test_an_editor_that_refuses_fails_the_call_with_its_words_and_the_file_stays(tmp_path: Path) -> None:
    work = _work(tmp_path)
    edit = {"name": "edit", "arguments": {"path": "notes.txt", "old_string": "two", "new_string": "2"}}
    editor = Editor(["allow"], buffers={}, fs=ERROR)
    server = _talk(tmp_path, editor, [{"calls": [_read("notes.txt"), edit]}, {"text": "failed"}])
    read, edited = _results(server)
    assert read.startswith("notes.txt cannot be read through the editor: the editor answered with an error")
    assert "it is not open" in read
    assert edited.startswith("notes.txt cannot be read through the editor")
    assert (work / "notes.txt").read_text() == DISK


def test_an_editor_that_never_answers_fails_the_call_at_the_file_timeout(tmp_path: Path) -> None:
    _work(tmp_path)
    editor = Editor(buffers={}, fs=NEVER)
    # The bound is what this test is about: a short one.
    server = _talk(
        tmp_path, editor, [{"calls": [_read("notes.txt")]}, {"text": "late"}], "--file-timeout", "0.5"
    )
    (read,) = _results(server)
    said = "no answer from the editor within 0.5 s (--file-timeout)"
    assert read == f"notes.txt cannot be read through the editor: {said}"


def test_a_silent_editor_is_waited_for_once_in_a_prompt_and_asked_again_at_the_next(tmp_path: Path) -> None:
    """Closes an editor that never answers costing --file-timeout per call: an edit that asks would
    wait for its question's diff, then again for its own read, then every later call again."""
    work = _work(tmp_path)
    edit = {"name": "edit", "arguments": {"path": "notes.txt", "old_string": "two", "new_string": "2"}}
    editor = Editor(["allow"], buffers={}, fs=NEVER)
    rounds = [
        {"calls": [edit, _read("notes.txt")]},
        {"text": "failed"},
        {"calls": [_read("notes.txt")]},
        {"text": "x"},
    ]
    asked: list[int] = []

    async def body() -> str:
        async with editor_session(tmp_path, server.url, editor, *flags) as (conn, session, _):
            await prompt(conn, session, "go")
            asked.append(len(editor.fs_calls))
            return await prompt(conn, session, "again")

    flags = ("--file-timeout", "0.5")  # the bound is not what is tested: a short one
    with ScriptedServer(rounds) as server:
        assert run(body) == "end_turn"
    assert len(editor.questions) == 1
    assert asked == [1]  # the first diff shown asked the editor; the edit's read and the read did not
    assert len(editor.fs_calls) == 2  # the next prompt asked it again
    edited, read = _results(server)
    cannot = "notes.txt cannot be read through the editor"
    earlier = "the editor has not answered an earlier request (none within 0.5 s, --file-timeout)"
    assert edited == f"{cannot}: {earlier}; it is asked again at the next prompt"
    assert read == edited
    (again,) = _results(server, 3)[2:]
    assert again == f"{cannot}: no answer from the editor within 0.5 s (--file-timeout)"
    assert (work / "notes.txt").read_text() == DISK


def test_a_hard_linked_file_is_asked_about_and_written_on_the_disk_never_through_its_other_names(
    tmp_path: Path,
) -> None:
    work = _work(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("kept\n")
    os.link(outside, work / "shared.txt")
    edit = {
        "name": "edit",
        "arguments": {"path": "shared.txt", "old_string": "kept", "new_string": "changed"},
    }
    editor = Editor(["allow"], buffers={}, save=True)
    # A rule allows every edit: what asks is the hard-link rule, as without the editor.
    server = _talk(tmp_path, editor, [{"calls": [edit]}, {"text": "done"}], "--allow", "edit(**)")
    (question,) = editor.questions
    assert "2 hard links" in str(question)
    (result,) = _results(server)
    assert result == "edited shared.txt: 1 occurrence replaced"  # on the disk, its entry replaced
    assert (work / "shared.txt").read_text() == "changed\n"
    assert outside.read_text() == "kept\n"  # the editor's in-place save would have changed it
    assert ("write", str(work / "shared.txt")) not in editor.fs_calls


class _Swapping:
    """An editor's file system during whose read the file is swapped for a link to a secret."""

    def __init__(self, name: Path, secret: Path) -> None:
        self.name, self.secret = name, secret

    def text_of(self, path: str) -> str | None:
        self.name.unlink()
        os.symlink(self.secret, self.name)
        return Path(path).read_text()  # what an editor that follows the new link would give

    def put_text(self, path: str, text: str) -> bool:
        raise AssertionError("not written")


def test_a_file_swapped_while_the_editor_reads_it_is_not_shown(tmp_path: Path) -> None:
    work = _work(tmp_path)
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    ctx = tool_context(LocalWorkspace(str(work)), None, files=_Swapping(work / "notes.txt", secret))
    out = AGENT_TOOLS["read"].run({"path": "notes.txt"}, ctx)
    assert out.is_error and "changed while the editor read it" in out.text
    assert "PRIVATE" not in out.text


def test_a_late_answer_ends_the_editor_s_silence_within_the_prompt() -> None:
    late: concurrent.futures.Future[Any] = concurrent.futures.Future()
    now: concurrent.futures.Future[Any] = concurrent.futures.Future()
    now.set_result(ReadTextFileResponse(content="now"))
    answers = [late, now]
    sent: list[str] = []

    def read(path: str) -> concurrent.futures.Future[Any]:
        sent.append(path)
        return answers.pop(0)

    files = EditorFiles(read, None, RunControl(), timeout=0.0)  # the bound is not what is tested: none
    with pytest.raises(TimeoutError, match="no answer from the editor"):
        files.text_of("/w/a.txt")
    with pytest.raises(TimeoutError, match="has not answered an earlier request"):
        files.text_of("/w/a.txt")
    assert len(sent) == 1  # the second read was not sent
    late.set_result(ReadTextFileResponse(content="late"))
    assert files.text_of("/w/a.txt") == "now"
    assert len(sent) == 2

"""`bastion acp` driven by the ACP SDK's own client side, as an editor drives it, against the
scripted model: what runs unasked, what asks and how each answer is kept, cancels, and the editor
that stalls or goes away."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.waits import until

from .acp_editor import (
    CANCELLED,
    NEVER,
    Editor,
    bounded,
    editor_session,
    no_key_in_environ,
    prompt,
    run,
    session_events,
    stderr_of,
)
from .agent_fixtures import SLOW, gone, wait_for_pid
from .scripted_server import ScriptedServer
from .test_scenarios import SECRET

EDIT = {"name": "edit", "arguments": {"path": "notes.txt", "old_string": "one", "new_string": "uno"}}


def _notes(tmp: Path) -> Path:
    (tmp / "work").mkdir(exist_ok=True)
    notes = tmp / "work" / "notes.txt"
    notes.write_text("one\ntwo\n")
    return notes


def _statuses(updates: list[dict[str, object]]) -> list[object]:
    return [u.get("status") for u in updates if "status" in u]


def test_a_read_runs_unasked_and_is_shown_as_such_while_the_text_streams(tmp_path: Path) -> None:
    _notes(tmp_path)
    rounds = [
        {"text": "Let me look.", "calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "It says one, two.", "pieces": 4},
    ]
    editor = Editor()

    async def body() -> str:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, process):
            assert no_key_in_environ(process.pid, SECRET)  # the key left the process, as for the REPL
            return await prompt(conn, session, "what do the notes say?")

    with ScriptedServer(rounds) as server:
        assert run(body) == "end_turn"
    assert editor.questions == []
    ((call_id, updates),) = editor.calls().items()
    first = updates[0]
    assert first["sessionUpdate"] == "tool_call" and first["kind"] == "read"
    assert first["title"] == "read notes.txt"
    assert first["locations"] == [{"path": str(tmp_path / "work" / "notes.txt")}]
    assert "runs unasked" in str(first["content"])
    assert _statuses(updates) == ["pending", "in_progress", "completed"]
    assert "one" in str(updates[-1]["content"])
    assert editor.text() == "Let me look.It says one, two."
    chunks = [u for u in editor.updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert len(chunks) > 2  # streamed in pieces, not sent whole
    assert "Traceback" not in stderr_of(tmp_path)


def test_an_edit_asks_with_its_reason_and_diff_and_runs_once_allowed(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    editor = Editor(["allow"])

    async def body() -> str:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, _):
            return await prompt(conn, session, "fix the notes")

    with ScriptedServer([{"calls": [EDIT]}, {"text": "Fixed."}]) as server:
        assert run(body) == "end_turn"
    assert notes.read_text() == "uno\ntwo\n"
    (question,) = editor.questions
    assert [o["optionId"] for o in question["options"]] == ["allow", "always", "reject"]
    assert [o["kind"] for o in question["options"]] == ["allow_once", "allow_always", "reject_once"]
    diff, words = question["toolCall"]["content"]
    assert diff == {
        "type": "diff",
        "path": str(notes),
        "oldText": "one\ntwo\n",
        "newText": "uno\ntwo\n",
    }
    # The REPL's question in plain words: what the call does, then why bastion asks.
    assert "edit: changes notes.txt" in words["content"]["text"]
    assert "no rule of yours or bastion's allows it" in words["content"]["text"]
    assert "+uno" in words["content"]["text"]
    (updates,) = editor.calls().values()
    assert updates[0]["kind"] == "edit" and _statuses(updates)[-1] == "completed"
    verdicts = [e for e in session_events(tmp_path) if e["type"] == "verdict"]
    assert verdicts[0]["answered_by"] == "person" and verdicts[0]["allowed"] is True


def test_allowed_for_the_session_the_same_call_is_not_asked_again(tmp_path: Path) -> None:
    touch = {"name": "bash", "arguments": {"command": "touch made.txt"}}
    rounds = [{"calls": [touch]}, {"text": "once"}, {"calls": [touch]}, {"text": "twice"}]
    editor = Editor(["always"])

    async def body() -> list[str]:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, _):
            return [await prompt(conn, session, "make it"), await prompt(conn, session, "again")]

    with ScriptedServer(rounds) as server:
        assert run(body) == ["end_turn", "end_turn"]
    assert len(editor.questions) == 1
    assert (tmp_path / "work" / "made.txt").exists()
    second = list(editor.calls().values())[1]
    assert second[0]["kind"] == "execute"
    assert "allowed for this session" in str(second) and _statuses(second)[-1] == "completed"
    assert any(e["type"] == "session_rule" for e in session_events(tmp_path))


def test_a_rejected_edit_leaves_the_file_unchanged_and_the_model_is_told(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    editor = Editor(["reject"])

    async def body() -> str:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, _):
            return await prompt(conn, session, "fix the notes")

    with ScriptedServer([{"calls": [EDIT]}, {"text": "Understood."}]) as server:
        assert run(body) == "end_turn"
        told = server.requests[1]["body"]["messages"][-1]["content"]
    assert notes.read_text() == "one\ntwo\n"
    assert "refused by the user" in told
    (updates,) = editor.calls().values()
    assert _statuses(updates)[-1] == "failed"


def test_a_denied_call_is_never_a_question(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    editor = Editor(["allow"])

    async def body() -> str:
        async with editor_session(tmp_path, server.url, editor, "--deny", "Edit(notes.txt)") as (conn, s, _):
            return await prompt(conn, s, "fix the notes")

    with ScriptedServer([{"calls": [EDIT]}, {"text": "Denied, then."}]) as server:
        assert run(body) == "end_turn"
    assert editor.questions == []
    assert notes.read_text() == "one\ntwo\n"
    (updates,) = editor.calls().values()
    assert updates[0]["status"] == "failed" and "denied" in str(updates[0]["content"])
    assert not any(c.get("type") == "diff" for c in updates[0]["content"])  # nothing of the file shown


def test_a_cancel_while_a_command_runs_stops_it_pairs_the_call_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    rounds = [
        {"calls": [{"name": "bash", "arguments": {"command": SLOW}}]},
        {"text": "after the cancel"},
    ]
    editor = Editor(["allow"])

    async def body() -> tuple[str, str]:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, _):
            running = asyncio.ensure_future(prompt(conn, session, "run it"))
            pgid = await asyncio.to_thread(wait_for_pid, tmp_path / "work")
            await conn.cancel(session_id=session)
            stopped = await bounded(running, "the cancelled prompt's answer")
            await asyncio.to_thread(until, lambda: gone(pgid), "the command's process group to end")
            return stopped, await prompt(conn, session, "go on")

    with ScriptedServer(rounds) as server:
        assert run(body) == ("cancelled", "end_turn")
        sent = server.requests[1]["body"]["messages"]
    assert not (tmp_path / "work" / "never").exists()
    (updates,) = editor.calls().values()
    assert _statuses(updates)[-1] == "failed" and "interrupted" in str(updates[-1]["content"])
    # The conversation stayed valid: the cut call is answered "interrupted" before the next prompt.
    results = [m for m in sent if m["role"] == "tool"]
    assert results and results[0]["content"].startswith("interrupted")


def test_a_cancel_while_the_model_answers_ends_the_prompt(tmp_path: Path) -> None:
    rounds = [{"text": "thinking about it for a long while", "stall": 2, "ping": 0.05}, {"text": "ok"}]
    editor = Editor()

    async def body() -> tuple[str, str]:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, _):
            running = asyncio.ensure_future(prompt(conn, session, "think"))
            await bounded(editor.updated.wait(), "the first streamed text")
            await conn.cancel(session_id=session)
            return await bounded(running, "the cancelled prompt's answer"), await prompt(
                conn, session, "go on"
            )

    with ScriptedServer(rounds) as server:
        assert run(body) == ("cancelled", "end_turn")
        assert len(server.requests) == 2
    assert "Traceback" not in stderr_of(tmp_path)


def test_a_question_the_editor_never_answers_is_a_no(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    editor = Editor([NEVER])

    async def body() -> str:
        # The bound is what this test is about: a short one.
        async with editor_session(tmp_path, server.url, editor, "--question-timeout", "0.5") as (conn, s, _):
            return await prompt(conn, s, "fix the notes")

    with ScriptedServer([{"calls": [EDIT]}, {"text": "No answer, so no."}]) as server:
        assert run(body) == "end_turn"
        told = server.requests[1]["body"]["messages"][-1]["content"]
    assert notes.read_text() == "one\ntwo\n"
    assert "no answer from the editor within 0.5 s" in told


def test_a_question_the_editor_cancels_is_a_no(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    editor = Editor([CANCELLED])

    async def body() -> str:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, _):
            return await prompt(conn, session, "fix the notes")

    with ScriptedServer([{"calls": [EDIT]}, {"text": "Cancelled, so no."}]) as server:
        assert run(body) == "end_turn"
        told = server.requests[1]["body"]["messages"][-1]["content"]
    assert notes.read_text() == "one\ntwo\n"
    assert "the editor cancelled the question" in told


def test_a_recorded_session_loads_with_its_conversation_shown(tmp_path: Path) -> None:
    first = Editor()
    again = Editor()

    async def body() -> str:
        async with editor_session(tmp_path, server.url, first) as (conn, session, _):
            await prompt(conn, session, "hello there")
        async with editor_session(tmp_path, server.url, again) as (conn, _, _):
            await bounded(conn.load_session(cwd=str(tmp_path / "work"), session_id=session), "session/load")
            return await prompt(conn, session, "and again")

    with ScriptedServer([{"text": "Hi."}, {"text": "Hi again."}]) as server:
        assert run(body) == "end_turn"
        assert [m["content"] for m in server.requests[1]["body"]["messages"] if m["role"] == "user"] == [
            "hello there",
            "and again",
        ]
    kinds = [u["sessionUpdate"] for u in again.updates]
    assert kinds[:2] == ["user_message_chunk", "agent_message_chunk"]
    assert again.updates[0]["content"]["text"] == "hello there"


def test_an_editor_that_goes_away_during_a_question_is_a_no(tmp_path: Path) -> None:
    notes = _notes(tmp_path)
    editor = Editor([NEVER])

    async def body() -> int:
        async with editor_session(tmp_path, server.url, editor) as (conn, session, process):
            asyncio.ensure_future(prompt(conn, session, "fix the notes"))
            await bounded(editor.asked.wait(), "the question")
            assert process.stdin is not None
            process.stdin.close()  # the editor closes its end: bastion reads the end of its input
            return int(await bounded(process.wait(), "bastion acp to end"))

    with ScriptedServer([{"calls": [EDIT]}, {"text": "never sent"}]) as server:
        assert run(body) == 0
    assert notes.read_text() == "one\ntwo\n"
    assert "Traceback" not in stderr_of(tmp_path)
    verdicts = [e for e in session_events(tmp_path) if e["type"] == "verdict"]
    assert verdicts and verdicts[0]["allowed"] is False


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_reasoning_streams_as_it_arrives_before_the_text_before_the_calls(
    tmp_path: Path, provider: str
) -> None:
    _notes(tmp_path)
    thinking = "First the notes, then what they say about the plan."
    rounds = [
        {
            "thinking": thinking,
            "text": "Let me look.",
            "pieces": 6,
            "calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
        },
        {"text": "Done."},
    ]
    editor = Editor()

    async def body() -> str:
        base = server.url if provider == "anthropic" else server.url + "/v1"
        async with editor_session(
            tmp_path, server.url, editor, "--provider", provider, "--base-url", base
        ) as (
            conn,
            session,
            _,
        ):
            return await prompt(conn, session, "what do the notes say?")

    with ScriptedServer(rounds) as server:
        assert run(body) == "end_turn"
    kinds = [u["sessionUpdate"] for u in editor.updates]
    thoughts = [i for i, k in enumerate(kinds) if k == "agent_thought_chunk"]
    assert len(thoughts) > 2  # in pieces, as they came, not whole at the reply's end
    said = "".join(editor.updates[i]["content"]["text"] for i in thoughts)
    assert said == thinking  # once: not sent again with the reply
    first_text = kinds.index("agent_message_chunk")
    first_call = kinds.index("tool_call")
    assert max(thoughts) < first_text < first_call
    assert editor.text() == "Let me look.Done."

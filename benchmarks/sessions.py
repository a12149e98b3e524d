"""Long sessions: compaction and `bastion sessions verify` over a generated 2,000-turn session record.

    .venv/bin/python benchmarks/sessions.py [--turns N]

Writes a record as a session does (hash-chained lines: each turn a prompt, a reply with a call, its
verdict, a tool result of a few KiB and a last reply), then measures, each with its peak Python
memory (tracemalloc): reading and verifying the record (the chain and every request rebuilt);
resuming it (the conversation rebuilt); and one compaction of the whole conversation with a
scripted model (the transcript the summariser is sent is built from every message).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from typing import TypeVar

from bastion.agent.providers import DEFAULT_WINDOW, Window
from bastion.agent.runtime import (
    Agent,
    Answer,
    Assistant,
    Compacted,
    Compactor,
    Message,
    ModelOptions,
    ModelRequest,
    Reply,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    User,
)
from bastion.agent.sessions import Session, read_record, verify_record

T = TypeVar("T")
OUTPUT = "line of tool output that a command printed\n" * 60


def _write(home: str, turns: int) -> Session:
    session = Session.create(home, "/bench", "openai", "m")
    count = 0
    for n in range(turns):
        session.request(count)
        prompt = User(f"turn {n}: look at file{n}.py and fix it")
        reply = Assistant("", (ToolCall(f"c{n}", "bash", json.dumps({"command": f"cat file{n}.py"})),))
        for message in (prompt, reply):
            session.message(message, Usage(100, 20) if message is reply else None)
        session.record(
            "verdict", call_id=f"c{n}", tool="bash", decision="allow", rule="bash", source="builtin"
        )
        session.message(ToolResult(f"c{n}", "bash", OUTPUT))
        session.request(count + 3)
        session.message(Assistant(f"fixed file{n}.py"), Usage(120, 10))
        count += 4
    session.close()
    return session


class _Summariser:
    options = ModelOptions("scripted", "scripted")

    def stream(self, request: ModelRequest) -> Reply:
        return Reply(Assistant("the task: fix every file; done up to the last; nothing left"), Usage(10, 10))


class _NoTools:
    def specs(self) -> Sequence[ToolSpec]:
        return []


def _measure(what: str, run: Callable[[], T]) -> T:
    """Run twice: once timed, once under tracemalloc (which slows it) for the peak."""
    start = time.perf_counter()
    run()
    took = time.perf_counter() - start
    tracemalloc.start()
    result = run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{what:<34} {took * 1000:9.1f} ms   peak {peak / 2**20:7.1f} MiB")
    return result


def _no(call: object, args: object, verdict: object) -> Answer:
    return Answer(False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    turns = parser.parse_args().turns
    with tempfile.TemporaryDirectory() as home:
        session = _measure(f"write {turns} turns", lambda: _write(tempfile.mkdtemp(dir=home), turns))
        path = session.path
        assert path is not None
        print(f"record: {os.path.getsize(path) / 2**20:.1f} MiB")
        found = _measure("read + verify", lambda: verify_record(read_record(path)))
        print(
            f"verify: {found.chained} chained, {found.requests} requests rebuilt, problems {found.problems}"
        )
        store = os.path.dirname(os.path.dirname(path))

        def resume() -> list[Message]:
            resumed, messages = Session.resume(store, session.id, "/bench")
            resumed.close()
            return messages

        messages = _measure("resume (rebuild the conversation)", resume)
        agent = Agent(_Summariser(), None, _NoTools(), _no, "system", messages=messages)  # type: ignore[arg-type]
        window = Window(DEFAULT_WINDOW, "default")
        compactor = Compactor(lambda _: window, None, lambda *_: None, lambda _: None)
        whole = list(messages)

        def compact() -> Compacted:
            agent.messages = list(whole)
            return compactor.compact(agent, len(whole), "")

        done = _measure("compact the whole conversation", compact)
        print(f"compaction: {done.replaced} messages, {done.before_tokens} -> {done.after_tokens} tokens")


if __name__ == "__main__":
    main()

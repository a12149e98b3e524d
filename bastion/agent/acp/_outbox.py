"""What the agent's threads tell the editor, in the order they tell it.

A run goes on in a thread of its own (the turn loop is synchronous, as in the REPL); the
connection lives on the event loop. Every update a thread posts goes into one queue, which one
task on the loop sends message after message, so the editor sees the calls and the text in the
order they happened and the prompt's answer after all of them (`drained`). A question is sent in
its turn too, and its answer awaited apart, so that a question nobody answers holds up nothing
else. An editor that stopped reading holds the queue, never a run."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["Outbox"]

Send = Callable[[], Awaitable[Any]]


class Outbox:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: asyncio.Queue[tuple[Send, concurrent.futures.Future[Any] | None, bool]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def start(self) -> None:
        self._task = self._loop.create_task(self._run(), name="bastion.acp.outbox")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def post(self, send: Send) -> None:
        """Send a notification after everything posted before it (from any thread)."""
        self._put(send, None, False)

    def request(self, send: Send) -> concurrent.futures.Future[Any]:
        """Send a request after everything posted before it; its answer (or its failure: the
        editor went away, the process is ending) comes in the future."""
        answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._put(send, answer, True)
        return answer

    async def drained(self) -> None:
        """Return once everything posted so far was sent (or could not be)."""
        done = self._loop.create_future()

        async def mark() -> None:
            done.set_result(None)

        self._queue.put_nowait((mark, None, False))
        await done

    def _put(self, send: Send, answer: concurrent.futures.Future[Any] | None, apart: bool) -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (send, answer, apart))
        except RuntimeError as err:  # the loop has closed: the editor is gone
            if answer is not None:
                answer.set_exception(ConnectionError(f"the connection is closed ({err})"))

    async def _run(self) -> None:
        while True:
            send, answer, apart = await self._queue.get()
            if apart:
                self._loop.create_task(self._answer(send, answer))
                await asyncio.sleep(0)  # it is written before what was posted after it
                continue
            try:
                await send()
            except ConnectionError as err:  # the connection ended: said once (by the transport)
                if not self._closed:
                    self._closed = True
                    logging.getLogger(__name__).warning("updates are no longer sent: %s", err)
            except Exception as err:  # a notification the editor cannot take ends nothing
                logging.getLogger(__name__).warning(
                    "could not send an update: %s: %s", type(err).__name__, err
                )

    async def _answer(self, send: Send, answer: concurrent.futures.Future[Any] | None) -> None:
        assert answer is not None
        try:
            result = await send()
        except BaseException as err:  # the editor's error, a closed connection, the loop ending
            with contextlib.suppress(concurrent.futures.InvalidStateError):  # the asker gave up first
                answer.set_exception(err if isinstance(err, Exception) else ConnectionError(str(err)))
            if not isinstance(err, Exception):
                raise
            return
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            answer.set_result(result)

"""The workspace's write lock: one writer at a time, whoever writes (the agent or one of its sub-agents).

A write or edit, and a bash line that is not the analyzer's read-only plan (a line a person or a
rule approved, which may write anywhere the sandbox lets it), hold the lock of their workspace while
they run, and so does every MCP call (bastion/agent/mcp: a server is a program of its own, which
may write whatever its tool's name says); looking never takes it, so read-only sub-agents run side
by side. A writer waiting for it
stops waiting once its call is cancelled (Ctrl-C), and nothing runs.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from ._base import ToolContext, ToolError

__all__ = ["WriteLock", "write_lock", "writing"]

# How often a writer waiting for the lock looks at its cancel event.
_POLL = 0.05


class WriteLock:
    """One workspace's lock, with how many writers wait for it (for a person, and for tests)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._guard = threading.Lock()
        self.waiting = 0

    @property
    def held(self) -> bool:
        return self._lock.locked()

    @contextlib.contextmanager
    def holding(self, cancel: threading.Event | None = None) -> Iterator[None]:
        """Hold the lock for the block; a ToolError (nothing ran) if `cancel` is set while waiting."""
        with self._guard:
            self.waiting += 1
        try:
            while not self._lock.acquire(timeout=_POLL):
                if cancel is not None and cancel.is_set():
                    raise ToolError("interrupted while waiting for another writer; nothing was run")
        finally:
            with self._guard:
                self.waiting -= 1
        try:
            yield
        finally:
            self._lock.release()


_locks: dict[str, WriteLock] = {}
_locks_guard = threading.Lock()


def write_lock(ctx: ToolContext) -> WriteLock:
    """The one write lock of the context's workspace in this process."""
    with _locks_guard:
        return _locks.setdefault(ctx.ws.real_root, WriteLock())


def writing(ctx: ToolContext) -> contextlib.AbstractContextManager[None]:
    """Hold the workspace's write lock while a call that may write runs."""
    return write_lock(ctx).holding(ctx.cancel)

"""`bastion execute`'s long-lived programs: an MCP stdio server the session starts here (`spawn`),
its standard input written from the session's `input` frames, its output and standard error sent
back as they come. It starts through the sandbox's launcher, unconfined (a server is the user's own
program, as on this machine), so every process it starts is ended when it ends, when it is
cancelled, when the session's pipe closes and when `bastion execute` dies (even by kill -9).

Only `_serve` imports this module, when a program is first started.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence

from ._workspace import WorkspaceError

__all__ = ["Program"]

# How often a running program's cancel event is looked at.
_POLL = 0.1
_CHUNK = 1 << 16
# How long the launcher asked to end the program may take before its group is killed.
_END_WAIT = 5.0
# How long what it wrote may still be read once its process group is ended.
_DRAIN_WAIT = 5.0


class Program:
    """One started program: `begin` relays it, `feed` takes its input (None: its end), `run` waits
    for its end."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: str,
        env: Mapping[str, str],
        say: Callable[[str, bytes], None],
    ) -> None:
        if not os.path.isdir(cwd):
            raise WorkspaceError(errno.ENOTDIR, f"its cwd {cwd} is not a directory")
        from ..sandbox import launch

        self._say = say
        self._inputs: queue.Queue[bytes | None] = queue.Queue()
        with launch(None, list(argv), dict(env), None) as ready:
            self.proc = subprocess.Popen(
                ready.argv,
                cwd=cwd,
                env=ready.env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        self._readers = [
            threading.Thread(target=self._relay, args=(self.proc.stdout, "output"), daemon=True),
            threading.Thread(target=self._relay, args=(self.proc.stderr, "stderr"), daemon=True),
        ]

    def begin(self) -> None:
        """Relay its output and input from now on (once the session was told it started)."""
        for thread in self._readers:
            thread.start()
        threading.Thread(target=self._write, daemon=True).start()

    def feed(self, data: bytes | None) -> None:
        self._inputs.put(data)

    def _relay(self, stream: object, kind: str) -> None:
        fd = stream.fileno()  # type: ignore[attr-defined]
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, _CHUNK):
                self._say(kind, chunk)

    def _write(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        with contextlib.suppress(OSError, ValueError):
            while (data := self._inputs.get()) is not None:
                stdin.write(data)
                stdin.flush()
        with contextlib.suppress(OSError, ValueError):
            stdin.close()

    def run(self, cancel: threading.Event) -> dict[str, int | None]:
        """Wait for its end (or `cancel`), end its process group, and say how it ended."""
        try:
            while True:
                try:
                    code = self.proc.wait(_POLL)
                    break
                except subprocess.TimeoutExpired:
                    if cancel.is_set():
                        self._end()
        finally:
            self._kill()
            self._inputs.put(None)
        for thread in self._readers:  # bounded: a process that left the group may hold a pipe open
            thread.join(_DRAIN_WAIT)
        return {"exit_code": code if code >= 0 else None, "signal": -code if code < 0 else None}

    def _end(self) -> None:
        """Ask the launcher to end what it runs (and what that started), then kill its group."""
        with contextlib.suppress(OSError):
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(_END_WAIT)
        except subprocess.TimeoutExpired:
            self._kill()

    def _kill(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)

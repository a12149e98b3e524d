"""A session's run in flight, and how the editor stops it (session/cancel).

The turn loop runs in a thread of its own. A cancel sets the loop's cancel event (the calls
running stop: a command's process group is killed, and every call of the batch is paired with
"interrupted"), refuses the question waiting for an answer, and, while the model is answering,
raises KeyboardInterrupt in the run's thread: there the loop takes it as the REPL takes Ctrl-C
(`Cancelled while the model was answering`). Python delivers it when that thread next runs, so a
server that sends nothing at all is left when its first byte or the idle bound
(`stream_idle_timeout`) comes; anything that streams (text, a call's arguments, keep-alives) is
left at once."""

from __future__ import annotations

import ctypes
import threading

from ..runtime import Cancelled

__all__ = ["Control"]

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc


class Control:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.cancelled = threading.Event()
        self._thread: int | None = None
        self._in_model = False
        self._raised = False
        self._loop_cancel: threading.Event | None = None
        self.runs = 0  # how many runs have begun (a prompt is one)

    @property
    def running(self) -> bool:
        return self._thread is not None

    def begin(self, loop_cancel: threading.Event) -> None:
        """A run starts on this thread."""
        with self._lock:
            self.cancelled.clear()
            self._raised = False
            self.runs += 1
            self._thread = threading.get_ident()
            self._loop_cancel = loop_cancel

    def end(self) -> None:
        """The run ended (on its thread): an interrupt not delivered yet is taken back."""
        with self._lock:
            if self._raised and self._thread is not None:
                _set_async_exc(ctypes.c_ulong(self._thread), None)
            self._in_model = False
            self._thread = None

    def check(self) -> None:
        if self.cancelled.is_set():
            raise Cancelled("cancelled by the editor")

    def entering_model(self) -> None:
        self.check()
        with self._lock:
            self._in_model = True

    def left_model(self) -> None:
        with self._lock:
            self._in_model = False

    def cancel(self) -> bool:
        """Stop the run in flight; whether there was one."""
        with self._lock:
            if self._thread is None:
                return False
            self.cancelled.set()
            if self._loop_cancel is not None:
                self._loop_cancel.set()
            if self._in_model and not self._raised:
                self._raised = True
                _set_async_exc(ctypes.c_ulong(self._thread), ctypes.py_object(KeyboardInterrupt))
            return True

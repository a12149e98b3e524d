"""A session's run in flight on a thread of its own, for a front that keeps the screen while it
goes (the editor's, the terminal client): how it is stopped, and the text a person typed for it.

Stopping (`RunControl`, the editor's session/cancel and the client's Esc). A cancel sets the loop's
cancel event (the calls running stop: a command's process group is killed, and every call of the
batch is paired with "interrupted"), refuses the question waiting for an answer, and, while the
model is answering, raises KeyboardInterrupt in the run's thread: there the loop takes it as the
REPL takes Ctrl-C
(`Cancelled while the model was answering`). Python delivers it when that thread next runs, so a
server that sends nothing at all is left when its first byte or the idle bound
(`stream_idle_timeout`) comes; anything that streams (text, a call's arguments, keep-alives) is
left at once.

What was typed (`Typed`): text to steer the run, which the loop takes before its next model request
(the runtime's `Steering` seam), and follow-ups, each run as a prompt once the model would stop."""

from __future__ import annotations

import ctypes
import threading
from collections import deque
from collections.abc import Sequence

from ..runtime import Cancelled

__all__ = ["RunControl", "Typed"]

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc


class RunControl:
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
            raise Cancelled("cancelled by the person")

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


class Typed:
    """What a person typed while a run goes, waiting for it (any thread may add or take): text
    that steers the run (taken whole before the next model request) and follow-ups (one taken each
    time the model would stop). A run that ends before its steering was taken leaves it here: the
    front sends it next, ahead of the follow-ups."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._steering: list[str] = []
        self._follow: deque[str] = deque()

    def steer(self, text: str) -> None:
        with self._lock:
            self._steering.append(text)

    def follow(self, text: str) -> None:
        with self._lock:
            self._follow.append(text)

    def take_steering(self) -> Sequence[str]:
        """The steering typed so far, taken (the loop's `Steering`)."""
        with self._lock:
            taken, self._steering = self._steering, []
        return taken

    def next_prompt(self) -> str | None:
        """What runs next once a run has ended: steering it never took (joined), else the first
        follow-up; None when nothing waits."""
        with self._lock:
            if self._steering:
                taken, self._steering = self._steering, []
                return "\n\n".join(taken)
            return self._follow.popleft() if self._follow else None

    def take_all(self) -> list[str]:
        """Everything still waiting, steering first, taken (an interrupted run gives it back to
        the person to edit: nothing typed runs unseen after a stop)."""
        with self._lock:
            taken = [*self._steering, *self._follow]
            self._steering, self._follow = [], deque()
        return taken

    def waiting(self) -> tuple[list[str], list[str]]:
        """The steering and the follow-ups waiting, to be shown as such."""
        with self._lock:
            return list(self._steering), list(self._follow)

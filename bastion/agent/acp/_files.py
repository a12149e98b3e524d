"""The editor's file system (`fs/read_text_file`, `fs/write_text_file`), where the editor offers
it in `initialize`: the file tools read a file's text from the editor, unsaved buffers included,
and write through it, so the person's editor and the model see the same text.

Only the asking is the editor's. What is read or written, and whether, is decided before, as
without the editor, on the disk's names (`agent/tools/_held.py`: inside the workspace, no link
out, the stamp, a regular file; the gate's secret and hard-link asks). A request the editor does
not answer within `--file-timeout`, one it refuses, an editor that goes away and a run cancelled
meanwhile fail that call, said to the model, and the file is left as it was. An editor silent past
`--file-timeout` is not asked again in that prompt until it answers: the calls after fail at once
(a question's diff, then the tool's own read, or ten reads, wait once in all, not once each); the
next prompt asks it again."""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable
from typing import Any

from acp.schema import ClientCapabilities, ReadTextFileResponse

from ..front import RunControl

__all__ = ["FILE_TIMEOUT", "EditorFiles", "offered"]

# How long a read or write waits for the editor's answer (a file, not a person: short).
FILE_TIMEOUT = 30.0
# How often a wait looks whether the run was cancelled.
_POLL = 0.05

# Sends fs/read_text_file (a path) or fs/write_text_file (a path and the text); the answer comes in
# the future.
Read = Callable[[str], "concurrent.futures.Future[Any]"]
Write = Callable[[str, str], "concurrent.futures.Future[Any]"]


def offered(capabilities: ClientCapabilities | None) -> tuple[bool, bool]:
    """Whether the editor reads and whether it writes text files for the agent."""
    fs = capabilities.fs if capabilities is not None else None
    return (bool(fs and fs.read_text_file), bool(fs and fs.write_text_file))


class EditorFiles:
    """The file tools' `Files` (agent/tools/_base.py) of one session, through its editor."""

    def __init__(self, read: Read | None, write: Write | None, control: RunControl, timeout: float) -> None:
        self.read = read  # None: the editor does not offer it
        self.write = write
        self.control = control
        self.timeout = timeout
        # The request the editor left unanswered past the timeout, and in which run (RunControl.runs).
        self._unanswered: tuple[concurrent.futures.Future[Any], int] | None = None

    def text_of(self, path: str) -> str | None:
        read = self.read
        if read is None:
            return None
        answer = self._wait(self._ask(lambda: read(path)))
        if not isinstance(answer, ReadTextFileResponse):
            raise OSError("the editor's answer is not a file's text")
        return answer.content

    def put_text(self, path: str, text: str) -> bool:
        write = self.write
        if write is None:
            return False
        self._wait(self._ask(lambda: write(path, text)))
        return True

    def _ask(self, send: Callable[[], concurrent.futures.Future[Any]]) -> concurrent.futures.Future[Any]:
        """The request sent; TimeoutError at once where the editor left one of this run unanswered."""
        unanswered = self._unanswered
        if unanswered is not None and not unanswered[0].done() and unanswered[1] == self.control.runs:
            raise TimeoutError(
                f"the editor has not answered an earlier request (none within {self.timeout:g} s,"
                " --file-timeout); it is asked again at the next prompt"
            )
        self._unanswered = None
        return send()

    def _wait(self, pending: concurrent.futures.Future[Any]) -> Any:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                return pending.result(timeout=_POLL)
            except concurrent.futures.TimeoutError:
                if self.control.cancelled.is_set():
                    pending.cancel()
                    raise InterruptedError("the run was cancelled while it waited for the editor") from None
                if time.monotonic() > deadline:  # left pending: a late answer ends the silence
                    self._unanswered = (pending, self.control.runs)
                    raise TimeoutError(
                        f"no answer from the editor within {self.timeout:g} s (--file-timeout)"
                    ) from None
            except OSError:
                raise
            except Exception as err:  # the editor's error (a RequestError), or the loop ending
                raise OSError(f"the editor answered with an error: {err or type(err).__name__}") from None

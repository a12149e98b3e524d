"""The next spare child is forked once the call before it is answered (its child ended), or at once
when another call waits at the socket: its fork and warming (which may start git) take no core
from the call being answered, and no call waits for another to end."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

# Private: the server's wait before its next fork is the seam tested.
from bastion.resident import _server
from tests.waits import PATIENCE


@pytest.fixture
def child() -> Iterator[tuple[int, int]]:
    """A child that runs until a byte is written to the pipe it reads (the call being answered)."""
    stop_read, stop_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(stop_write)  # else its own copy keeps the pipe open: closing the parent's would not end it
        os.read(stop_read, 1)
        os._exit(0)
    os.close(stop_read)
    yield pid, stop_write
    os.close(stop_write)
    os.waitpid(pid, 0)


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[socket.socket]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(tmp_path / "s"))
    s.listen(4)
    yield s
    s.close()


def _waiting(listener: socket.socket, serving: int) -> threading.Thread:
    thread = threading.Thread(target=_server._after, args=(listener, serving), daemon=True)
    thread.start()
    return thread


def test_the_next_fork_waits_while_the_call_before_is_answered_and_not_after(
    child: tuple[int, int], listener: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_server, "_CALM", 3600.0)
    pid, stop = child
    thread = _waiting(listener, pid)
    # A wait that goes on shows no readiness: a short look, which a slow machine cannot fail.
    thread.join(0.05)
    assert thread.is_alive(), "forked while the call before was still being answered"
    os.write(stop, b".")
    thread.join(PATIENCE)
    assert not thread.is_alive(), f"waited {PATIENCE:g} s for the wait to end with the child's call"


def test_a_call_waiting_at_the_socket_is_not_kept_waiting_for_the_call_before(
    child: tuple[int, int], listener: socket.socket, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_server, "_CALM", 3600.0)
    pid, _ = child
    thread = _waiting(listener, pid)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as caller:
        caller.connect(str(tmp_path / "s"))
        thread.join(PATIENCE)
        assert not thread.is_alive(), f"waited {PATIENCE:g} s for a waiting call to end the wait"
    assert os.waitpid(pid, os.WNOHANG) == (0, 0)  # the call before is still being answered


def test_no_call_before_or_one_already_reaped_forks_at_once(listener: socket.socket) -> None:
    bound = _server._CALM  # the real bound: none of these may wait for it
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    for serving in (0, pid):
        thread = _waiting(listener, serving)
        thread.join(PATIENCE)
        assert not thread.is_alive(), f"waited {PATIENCE:g} s (the bound is {bound:g} s)"

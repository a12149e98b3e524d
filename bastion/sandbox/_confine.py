"""Starting one command through the launcher (_launch.py), which ends every process the command
starts once it ends (and once bastion does); under a confinement, with its ruleset (built here),
its private temporary directory, and the ruleset applied in the child before exec."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from typing import NamedTuple

from ._landlock import TRUNCATE, WRITE_FILE, Grant, abi, build, rights
from ._types import Confinement

__all__ = ["Launch", "launch"]

_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_launch.py")
# Where every command may write: the bit bucket, and the terminal (no device ioctl on it: TIOCSTI
# would type into the person's shell).
_ALWAYS = (("/dev/null", None), ("/dev/tty", WRITE_FILE | TRUNCATE))


class Launch(NamedTuple):
    """What to start instead of the command: the launcher's argv, the environment, and the ruleset
    descriptor the child must inherit (None: unconfined)."""

    argv: list[str]
    env: dict[str, str]
    ruleset: int | None


def _launcher(ruleset: int | None, argv: list[str]) -> list[str]:
    return [sys.executable, "-I", "-S", "-B", _LAUNCHER, "-" if ruleset is None else str(ruleset),
            str(os.getpid()), *argv]  # fmt: skip


@contextlib.contextmanager
def launch(
    confinement: Confinement | None, argv: list[str], env: dict[str, str], root_fd: int | None
) -> Iterator[Launch]:
    """The launch of `argv` under `confinement` (None: unconfined; `root_fd`: the workspace root,
    where an approved command may write). The ruleset is closed and the private temporary
    directory removed on exit, after the command has ended. Raises OSError when the ruleset cannot
    be built: nothing runs."""
    if confinement is None:
        yield Launch(_launcher(None, argv), env, None)
        return
    handled = rights(abi(), read_only=confinement.read_only, network=confinement.network)
    grants = [Grant(path, handled.fs if only is None else only) for path, only in _ALWAYS]
    tmp: str | None = None
    if not confinement.read_only:
        if root_fd is None:
            raise ValueError("an approved command's confinement needs the workspace root")
        tmp = tempfile.mkdtemp(prefix="bastion-tmp-")
        env = {**env, "TMPDIR": tmp}
        grants += [Grant(root_fd, handled.fs), Grant(tmp, handled.fs)]
        grants += [Grant(path, handled.fs) for path in confinement.writable]
    try:
        ruleset = build(handled, grants)
        try:
            yield Launch(_launcher(ruleset, argv), env, ruleset)
        finally:
            os.close(ruleset)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

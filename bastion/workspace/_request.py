"""What a command to run is and what it did: the one request value a launcher takes (this machine's,
an executor's, a sandbox's) and the one result it gives, with the facts a stamped call carries to
where it runs. The workspace and every launcher import these; none of them imports a launcher."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import threading

    from ..sandbox import Confinement

__all__ = ["MAX_OUTPUT", "ExecRequest", "ExecResult", "Recheck"]


class Recheck(NamedTuple):
    """The facts a stamped call was decided on, as the analyzer reads them again (`recipe`, plain
    JSON values: what to look at, no key and no stamp) and the SHA-256 of what it read (`digest`)."""

    recipe: object
    digest: str


# The output of a command kept by default (the bash tool's cap, which the model is told).
MAX_OUTPUT = 51_200


class ExecRequest(NamedTuple):
    """A command to run in a workspace (never through a shell), carried as one value to the
    launcher: `argv` in `cwd` under the root, with `env` (None: the workspace's own), ended at
    `timeout` seconds, its combined output kept up to `max_output` bytes and passed to `on_output`
    as it arrives, `stdin` fed to it, ended when `cancel` is set; under `sandbox` the kernel confines
    it; `contain` (or a sandbox) ends every process it started when it ends; `facts` are what a
    stamped call was decided on, read again where it runs (`Workspace.exec`)."""

    argv: Sequence[str]
    cwd: str = "."
    env: Mapping[str, str] | None = None
    timeout: float = 120.0
    max_output: int = MAX_OUTPUT
    on_output: Callable[[bytes], None] | None = None
    stdin: bytes | None = None
    cancel: threading.Event | None = None
    sandbox: Confinement | None = None
    contain: bool = False
    facts: Recheck | None = None


class ExecResult(NamedTuple):
    """What a process did: its exit code (None when a signal ended it), the output kept, the bytes
    dropped past the cap, whether the timeout ended it, the signal that did, and whether the cancel
    event ended it."""

    exit_code: int | None
    output: bytes
    omitted: int = 0
    timed_out: bool = False
    signal: int | None = None
    cancelled: bool = False

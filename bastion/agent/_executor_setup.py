"""Where a session's tools act: this directory, or `bastion execute` started by `--executor` (or the
user config's `executor`, never a project's). The command is split as a shell splits words with
nothing expanded (no $VAR, ~ or globs: shlex), or taken as a list exactly; "" clears it.

The command starts with this machine's environment less its credentials, except the variables
`pass_env` and `executor_pass_env` name, and never the model's key's (`scrub`); the commands that
run there get the executor's own environment, scrubbed there. Nothing else of the session crosses
(bastion/workspace/_executor.py).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping

from ..config import AgentConfig
from ..policy import child_env
from ..workspace import ExecutorWorkspace, LocalWorkspace, Workspace, WorkspaceError
from ._types import ConfigError

__all__ = ["executor_argv", "executor_line", "open_workspace"]


def executor_argv(flag: str | None, config: AgentConfig) -> list[str] | None:
    """The executor's command: `--executor`'s when given (even ""), else the config's; None for none."""
    value = flag if flag is not None else config.executor
    if isinstance(value, str):
        try:
            return shlex.split(value) or None
        except ValueError as err:
            raise ConfigError(f"--executor {value!r} cannot be split into words: {err}") from None
    return list(value) if value else None


def open_workspace(
    argv: list[str] | None,
    cwd: str,
    environ: Mapping[str, str],
    pass_env: Iterable[str],
    executor_pass_env: Iterable[str],
    scrub: Iterable[str],
) -> Workspace:
    """The session's workspace: `cwd` on this machine, or the executor `argv` starts."""
    scrub = frozenset(name.upper() for name in scrub)
    kept = [name for name in pass_env if name.upper() not in scrub]
    if argv is None:
        return LocalWorkspace(cwd, env=child_env(environ, kept, also_scrub=scrub))
    for_transport = kept + [name for name in executor_pass_env if name.upper() not in scrub]
    try:
        return ExecutorWorkspace(argv, child_env(environ, for_transport, also_scrub=scrub))
    except WorkspaceError as err:
        raise ConfigError(f"--executor: {err.strerror or err}") from None


def executor_line(ws: Workspace) -> str | None:
    """The line a session with an executor starts with (and doctor shows): its bastion's version,
    the workspace's kind, ref and root, and its kernel's Landlock ABI; None for a local workspace."""
    if not isinstance(ws, ExecutorWorkspace):
        return None
    i = ws.info
    landlock = f"Landlock ABI {i.landlock}" if i.landlock else "no Landlock"
    return f"executor: bastion {i.version}, {i.kind} {i.ref}, root {ws.root} ({landlock})"

"""Where a session's tools act: this directory, or `bastion execute` started by `--executor` (or the
user config's `executor`, never a project's). The command is split as a shell splits words with
nothing expanded (no $VAR, ~ or globs: shlex), or taken as a list exactly; "" clears it.

The command starts with this machine's environment less its credentials, except the variables
`pass_env` and `executor_pass_env` name, and never the model's key's (`scrub`); the commands that
run there get the executor's own environment, scrubbed there. Nothing else of the session crosses
(bastion/workspace/_executor.py).

A session records where its tools acted (a `workspace` event: the executor's kind, ref, root,
version and Landlock ABI); `--resume` of one recorded with an executor asks for it again and never
continues it on this machine unasked (`resume_check`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...config import AgentConfig
from ...policy import Settings, child_env
from ...workspace import ExecutorWorkspace, LocalWorkspace, Workspace, WorkspaceError
from ..runtime import ConfigError

__all__ = [
    "executor_argv",
    "executor_landlock",
    "executor_line",
    "open_workspace",
    "resume_check",
    "session_workspace",
    "workspace_record",
]


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


def session_workspace(
    settings: Settings,
    flag: str | None,
    cwd: str,
    environ: Mapping[str, str],
    scrub: Iterable[str],
    reload: Callable[[Workspace], Settings],
) -> tuple[Workspace, Settings]:
    """Where the session's tools act (`cwd`, or the executor `--executor` or the config starts) and
    the settings that hold there: with an executor, those `reload` reads there (its project's
    config is the executor's: a local one has no say there)."""
    argv = executor_argv(flag, settings.agent)
    passed = settings.agent.executor_pass_env
    ws = open_workspace(argv, cwd, environ, settings.pass_env, passed, scrub)
    return (ws, settings) if argv is None else (ws, reload(ws))


def executor_line(ws: Workspace) -> str | None:
    """The line a session with an executor starts with (and doctor shows): its bastion's version,
    the workspace's kind, ref and root, and its kernel's Landlock ABI; None for a local workspace."""
    if not isinstance(ws, ExecutorWorkspace):
        return None
    i = ws.info
    landlock = f"Landlock ABI {i.landlock}" if i.landlock else "no Landlock"
    return f"executor: bastion {i.version}, {i.kind} {i.ref}, root {ws.root} ({landlock})"


def executor_landlock(ws: Workspace) -> int | None:
    """The Landlock ABI of the kernel an executor's commands run on (its hello said it); None for
    this machine's workspace. The sandbox's mode is decided against it: the confinement is applied
    where the command runs, so `require` refuses on an executor without Landlock whatever this
    kernel has, and `auto` runs unconfined there."""
    return ws.info.landlock if isinstance(ws, ExecutorWorkspace) else None


def workspace_record(ws: Workspace) -> dict[str, Any] | None:
    """What the session records of an executor's workspace (None: this machine's)."""
    if not isinstance(ws, ExecutorWorkspace):
        return None
    return {"root": ws.root, **ws.info._asdict()}


def _named(where: Mapping[str, Any]) -> str:
    return f"{where.get('kind')} {where.get('ref')}, root {where.get('root')}"


def resume_check(
    ws: Workspace, flag: str | None, session_id: str, here: bool
) -> Callable[[dict[str, Any] | None], None]:
    """What a resume checks of where the session's tools last acted (Session.resume's `workspace`):
    a session recorded with an executor is refused without one, unless `--executor ""` (`flag`)
    says on this machine; an executor other than the recorded one (its kind, ref and root), or one
    for a session that ran here, is refused unless `here`."""
    now = workspace_record(ws)

    def check(recorded: dict[str, Any] | None) -> None:
        keys = ("kind", "ref", "root")
        if recorded is not None and now is None:
            if flag == "":
                return
            raise ConfigError(
                f"--resume: session {session_id} ran its tools through an executor ({_named(recorded)}); "
                "give it again to resume it there (--executor CMD, or executor in your config)",
                "or add --executor '' to continue it on this machine",
            )
        if here or now is None or (recorded is not None and all(recorded.get(k) == now[k] for k in keys)):
            return
        before = "on this machine" if recorded is None else f"through an executor ({_named(recorded)})"
        raise ConfigError(
            f"--resume: session {session_id} ran its tools {before}; this executor serves {_named(now)}",
            "add --here to continue it there",
        )

    return check

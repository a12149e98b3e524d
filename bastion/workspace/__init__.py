"""The workspace: where the tools act and the analyzer looks. A root directory reached only through
names relative to it (`Workspace`, `LocalWorkspace`), the walk of a name one component at a time
(`walk`), a path operand resolved through its links and held inside the root (`resolve`), and the
processes a command runs (loaded only when one runs). An executor's workspace (`ExecutorWorkspace`,
the other end being `serve`, over the frames of `_wire`) is another implementation, loaded when
first named. The analyzer and the tools stand on it; it imports nothing of bastion but the sandbox,
the root of its errors and the lazy face."""

import typing

from .._lazy import lazy_names as _lazy_names
from ._gitdir import GitDirScan
from ._paths import Resolved, join, resolve
from ._system import LocalSystem, System
from ._walk import MAX_LINK_HOPS, Walk, root_relative, walk
from ._workspace import (
    MAX_OUTPUT,
    ExecRequest,
    ExecResult,
    FactsChanged,
    LocalWorkspace,
    Recheck,
    Rechecker,
    Workspace,
    WorkspaceError,
)

if typing.TYPE_CHECKING:
    from ._executor import REPLY_TIMEOUT, ExecutorInfo, ExecutorWorkspace
    from ._serve import serve
    from ._wire import PROTOCOL, ExecutorLost, ProtocolError

# The executor's both ends: a dry-run never loads their threads, queues and processes (PEP 562).
_LAZY = {
    **dict.fromkeys(("REPLY_TIMEOUT", "ExecutorInfo", "ExecutorWorkspace"), "_executor"),
    **dict.fromkeys(("PROTOCOL", "ExecutorLost", "ProtocolError"), "_wire"),
    "serve": "_serve",
}


__getattr__ = _lazy_names(__name__, _LAZY)


__all__ = [
    "MAX_LINK_HOPS",
    "MAX_OUTPUT",
    "PROTOCOL",
    "REPLY_TIMEOUT",
    "ExecRequest",
    "ExecResult",
    "ExecutorInfo",
    "ExecutorLost",
    "ExecutorWorkspace",
    "FactsChanged",
    "GitDirScan",
    "LocalSystem",
    "LocalWorkspace",
    "Recheck",
    "Rechecker",
    "Resolved",
    "System",
    "Walk",
    "ProtocolError",
    "Workspace",
    "WorkspaceError",
    "join",
    "resolve",
    "root_relative",
    "serve",
    "walk",
]

"""The workspace: where the tools act and the analyzer looks. A root directory reached only through
names relative to it (`Workspace`, `LocalWorkspace`), the walk of a name one component at a time
(`walk`), a path operand resolved through its links and held inside the root (`resolve`), and the
processes a command runs (loaded only when one runs). The analyzer and the tools stand on it; it
imports nothing of bastion but the sandbox and the root of its errors."""

from ._gitdir import GitDirScan
from ._paths import Resolved, join, resolve
from ._system import LocalSystem, System
from ._walk import MAX_LINK_HOPS, Walk, root_relative, walk
from ._workspace import (
    ExecResult,
    FactsChanged,
    LocalWorkspace,
    Recheck,
    Rechecker,
    Workspace,
    WorkspaceError,
)

__all__ = [
    "MAX_LINK_HOPS",
    "ExecResult",
    "FactsChanged",
    "GitDirScan",
    "LocalSystem",
    "LocalWorkspace",
    "Recheck",
    "Rechecker",
    "Resolved",
    "System",
    "Walk",
    "Workspace",
    "WorkspaceError",
    "join",
    "resolve",
    "root_relative",
    "walk",
]

"""The workspace: where the tools act and the analyzer looks. A root directory reached only through
names relative to it (`Workspace`, `LocalWorkspace`), the walk of a name one component at a time
(`walk`), a path operand resolved through its links and held inside the root (`resolve`), and the
processes a command runs (loaded only when one runs). The analyzer and the tools stand on it; it
imports nothing of bastion but the sandbox and the root of its errors."""

from ._paths import Resolved, join, resolve
from ._walk import MAX_LINK_HOPS, Walk, root_relative, walk
from ._workspace import ExecResult, LocalWorkspace, Workspace, WorkspaceError

__all__ = [
    "MAX_LINK_HOPS",
    "ExecResult",
    "LocalWorkspace",
    "Resolved",
    "Walk",
    "Workspace",
    "WorkspaceError",
    "join",
    "resolve",
    "root_relative",
    "walk",
]

"""The analyzer: a line of the subset, checked stage by stage against allow-lists, as a plan."""

from ._analyze import GOVERNED, analyze
from ._facts import Fact, FactError, plan_facts
from ._gitprobe import git_fingerprint, probe_git
from ._neutral import neutral_env, redact_userinfo
from ._paths import Resolved, resolve
from ._result import DEFAULT_MAX_READ_BYTES, Analysis, Check, Context, StageResult
from ._stamp import CHANGED_COMMAND, CHANGED_PATHS, Stamper, StampError
from ._walk import Walk, root_relative, walk
from ._workspace import ExecResult, LocalWorkspace, Workspace, WorkspaceError

__all__ = [
    "CHANGED_COMMAND",
    "CHANGED_PATHS",
    "DEFAULT_MAX_READ_BYTES",
    "GOVERNED",
    "Analysis",
    "Check",
    "Context",
    "ExecResult",
    "Fact",
    "FactError",
    "LocalWorkspace",
    "Resolved",
    "StageResult",
    "StampError",
    "Walk",
    "Stamper",
    "Workspace",
    "WorkspaceError",
    "analyze",
    "git_fingerprint",
    "neutral_env",
    "plan_facts",
    "probe_git",
    "redact_userinfo",
    "resolve",
    "root_relative",
    "walk",
]

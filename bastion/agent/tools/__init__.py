"""The agent's tools: read, write, edit, glob, grep and ls confined to the workspace, and bash; and
the tools of the session's skills and memory (SESSION_TOOLS: offered only by a session that has them).

Each is a `Tool` with the JSON schema the model sees and a `run(args, ctx)` that never raises: a
refusal or bad input comes back as an error output naming the part.
"""

from . import _bash, _edit, _glob, _grep, _ls, _memory, _read, _skill, _write
from ._base import STAMP, Tool, ToolContext, ToolError, ToolOutput
from ._executor_setup import (
    executor_argv,
    executor_landlock,
    executor_line,
    open_workspace,
    resume_check,
    workspace_record,
)
from ._memory import MEMORY
from ._session_tools import SessionExtras, session_extras
from ._skill import SKILL
from ._toolbox import Toolbox
from ._writing import WriteLock, write_lock

__all__ = [
    "MEMORY",
    "SESSION_TOOLS",
    "SKILL",
    "STAMP",
    "SessionExtras",
    "TOOLS",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "Toolbox",
    "WriteLock",
    "executor_argv",
    "executor_landlock",
    "executor_line",
    "open_workspace",
    "resume_check",
    "session_extras",
    "workspace_record",
    "write_lock",
]

TOOLS: dict[str, Tool] = {
    t.name: t for t in (_read.READ, _write.WRITE, _edit.EDIT, _glob.GLOB, _grep.GREP, _ls.LS, _bash.BASH)
}

SESSION_TOOLS: dict[str, Tool] = {t.name: t for t in (_skill.SKILL, _memory.MEMORY)}

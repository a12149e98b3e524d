"""The agent's tools: read, write, edit, glob, grep and ls confined to the workspace, and bash; and
the tools of the session's skills and memory (SESSION_TOOLS: offered only by a session that has them).

Each is a `Tool` with the JSON schema the model sees and a `run(args, ctx)` that never raises: a
refusal or bad input comes back as an error output naming the part.
"""

from ...policy import TOOLS as _TABLE
from . import _bash, _edit, _glob, _grep, _ls, _memory, _read, _skill, _write
from ._base import Tool, ToolContext, ToolError, ToolOutput
from ._executor_setup import (
    executor_argv,
    executor_landlock,
    executor_line,
    open_workspace,
    resume_check,
    session_workspace,
    workspace_record,
)
from ._memory import MEMORY
from ._session_tools import SessionExtras, session_extras
from ._skill import SKILL
from ._toolbox import Toolbox
from ._writing import WriteLock, write_lock

__all__ = [
    "AGENT_TOOLS",
    "MEMORY",
    "SESSION_TOOLS",
    "SKILL",
    "SessionExtras",
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
    "session_workspace",
    "session_extras",
    "workspace_record",
    "write_lock",
]

# The tools every session offers, in the order the model is shown them, each a tool of the policy's
# table (bastion.policy.TOOLS: what it takes, reads and writes; a name not in it fails at import)
# with its schema for the model and its runner. A tool of the table that only a session has (skill,
# memory) or that the loop runs itself (task) is not among them.
_OFFERED = (_read.READ, _write.WRITE, _edit.EDIT, _glob.GLOB, _grep.GREP, _ls.LS, _bash.BASH)
AGENT_TOOLS: dict[str, Tool] = {_TABLE[t.name].name: t for t in _OFFERED}

SESSION_TOOLS: dict[str, Tool] = {_TABLE[t.name].name: t for t in (_skill.SKILL, _memory.MEMORY)}

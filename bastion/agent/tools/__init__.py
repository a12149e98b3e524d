"""The agent's tools: read, write, edit, glob, grep and ls confined to the workspace, and bash.

Each is a `Tool` with the JSON schema the model sees and a `run(args, ctx)` that never raises: a
refusal or bad input comes back as an error output naming the part.
"""

from ._base import STAMP, Tool, ToolContext, ToolError, ToolOutput
from ._bash import BASH
from ._edit import EDIT
from ._glob import GLOB
from ._grep import GREP
from ._ls import LS
from ._read import READ
from ._write import WRITE

__all__ = ["STAMP", "TOOLS", "Tool", "ToolContext", "ToolError", "ToolOutput"]

TOOLS: dict[str, Tool] = {t.name: t for t in (READ, WRITE, EDIT, GLOB, GREP, LS, BASH)}

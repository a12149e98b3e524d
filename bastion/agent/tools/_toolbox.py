"""The tools package behind the loop's Tools seam: specs for the model, runs in one ToolContext."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ...sandbox import SandboxConfig
from ..runtime import ToolSpec

if TYPE_CHECKING:
    from ...policy import Gate
    from . import WriteLock
    from ._base import Files

__all__ = ["Toolbox"]


class Toolbox:
    def __init__(
        self,
        gate: Gate,
        on_output: Callable[[str], None] | None = None,
        sandbox: SandboxConfig | None = None,
    ) -> None:
        """The tools act through `gate` (the session's: its workspace and directory, its read bound,
        the check of every stamp it made; its policy says which files below a decided path grep may
        open). `sandbox` confines every command bash starts (None: the default, "auto")."""
        from . import AGENT_TOOLS, ToolContext

        self._tools = AGENT_TOOLS
        self._ctx = ToolContext(gate, on_output=on_output, sandbox=sandbox or SandboxConfig())
        self._specs = [ToolSpec(t.name, t.description, t.parameters) for t in AGENT_TOOLS.values()]

    def specs(self) -> Sequence[ToolSpec]:
        return self._specs

    @property
    def write_lock(self) -> WriteLock:
        """The workspace's write lock, which its writers hold (MCP calls too)."""
        from ._writing import write_lock

        return write_lock(self._ctx)

    def hold_files(self, files: Files) -> None:
        """From now on read, write and edit find a file's text in `files` (an editor's buffers)."""
        self._ctx = dataclasses.replace(self._ctx, files=files)

    def file_text(self, raw: str, limit: int) -> str | None | OSError:
        """A file's text as read, write and edit would find it now (a question's diff)."""
        from ._held import file_text

        return file_text(self._ctx, raw, limit)

    def has(self, name: str) -> bool:
        return name in self._tools

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        out = self._tools[name].run(args, dataclasses.replace(self._ctx, cancel=cancel))
        return out.text, out.is_error

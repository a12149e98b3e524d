"""The tools package behind the loop's Tools seam: specs for the model, runs in one ToolContext."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence

from ..analyzer import Stamper, Workspace
from ..sandbox import SandboxConfig
from ._types import ToolSpec

__all__ = ["Toolbox"]


class Toolbox:
    def __init__(
        self,
        ws: Workspace,
        stamper: Stamper,
        max_read_bytes: int,
        on_output: Callable[[str], None] | None = None,
        sandbox: SandboxConfig | None = None,
    ) -> None:
        from ..policy import redirect_targets
        from .tools import TOOLS, ToolContext

        self._tools = TOOLS
        self._ctx = ToolContext(
            ws,
            stamper,
            max_read_bytes,
            on_output=on_output,
            redirect_targets=redirect_targets,
            sandbox=sandbox or SandboxConfig(),
        )
        self._specs = [ToolSpec(t.name, t.description, t.parameters) for t in TOOLS.values()]

    def specs(self) -> Sequence[ToolSpec]:
        return self._specs

    def has(self, name: str) -> bool:
        return name in self._tools

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        out = self._tools[name].run(args, dataclasses.replace(self._ctx, cancel=cancel))
        return out.text, out.is_error

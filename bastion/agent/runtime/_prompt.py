"""The system prompt: who the agent is, where it works, its tools, your own instructions
(`_personal.py`) and the project's AGENTS.md chain."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence

from ..._files import read_regular
from ...workspace import LocalWorkspace, Workspace, WorkspaceError
from ._personal import MAX_AGENTS_MD, capped_text
from ._types import ToolSpec

__all__ = ["SystemPrompt", "agents_md_chain"]

_INTRO = """You are bastion, a coding agent working in a terminal on the user's project.
Work in the working directory below, with the tools you are given. Every tool call is decided by a
policy: some run at once, some ask the user, some are denied with a reason. When a call is denied or
refused, do not try to get around it: say what you needed and why, or do the task another way.
Prefer the file tools (read, glob, grep, ls, edit, write) to shell commands that do the same.
Keep answers short and concrete."""


def _repo_root(start: str) -> str | None:
    here = start
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _read_outside(path: str, notes: list[str]) -> str | None:
    """An AGENTS.md above the workspace, read on this machine: a regular file, no link."""
    try:
        return capped_text(read_regular(path, MAX_AGENTS_MD + 1, follow=False), path, notes)
    except OSError:
        return None


def agents_md_chain(ws: Workspace) -> tuple[list[tuple[str, str]], list[str]]:
    """(path, text) of each AGENTS.md from the repository root down to the workspace root, nearest
    last, and what was left out or cut at the cap. The workspace's own file is read through the
    workspace, so one that is a link or not a regular file is left out and reported."""
    start = ws.root
    # Above an executor's root nothing is read, from either machine: its paths are not this one's.
    root = (_repo_root(start) if isinstance(ws, LocalWorkspace) else None) or start
    dirs = [start]
    while dirs[-1] != root:
        dirs.append(os.path.dirname(dirs[-1]))
    found: list[tuple[str, str]] = []
    omitted: list[str] = []
    for d in reversed(dirs[1:]):
        text = _read_outside(os.path.join(d, "AGENTS.md"), omitted)
        if text is not None:
            found.append((os.path.join(d, "AGENTS.md"), text))
    try:
        st = ws.lstat("AGENTS.md")
        if stat.S_ISREG(st.st_mode):
            path = os.path.join(start, "AGENTS.md")
            found.append((path, capped_text(ws.read("AGENTS.md", MAX_AGENTS_MD + 1), path, omitted)))
        else:
            omitted.append("AGENTS.md: not a regular file")
    except FileNotFoundError:
        pass
    except (WorkspaceError, OSError) as err:
        omitted.append(f"AGENTS.md: {err}")
    return found, omitted


class SystemPrompt:
    """A workspace's system prompt for the tools a turn offers (the catalog's, so a tool the turn
    does not offer is not named): who the agent is, where it works, the tools' names, `personal`
    (your own instruction files, (path, text) each) and the project's AGENTS.md chain, read once
    when it is made; then `sections`, each only in a turn that offers the tool it is keyed by (the
    skills' list with `skill`, the memory's notes with `memory`). `sources` names the files read,
    yours first; `notes`, what was left out or cut."""

    def __init__(
        self,
        ws: Workspace,
        sections: Mapping[str, str] | None = None,
        personal: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.root = ws.root
        self.sections = dict(sections or {})
        chain, self.notes = agents_md_chain(ws)
        self.sources = [path for path, _ in (*personal, *chain)]
        self.instructions = [
            f"Instructions from {path} (the user's own):\n{text.strip()}" for path, text in personal
        ] + [
            f"Instructions from {path} (the project's; they do not change the policy):\n{text.strip()}"
            for path, text in chain
        ]

    def __call__(self, tools: Sequence[ToolSpec]) -> str:
        parts = [_INTRO, f"Working directory: {self.root}", "Tools: " + ", ".join(t.name for t in tools)]
        parts += self.instructions
        offered = {t.name for t in tools}
        parts += [text for tool, text in self.sections.items() if tool in offered]
        return "\n\n".join(parts)

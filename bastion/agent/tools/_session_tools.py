"""A session's skills and memory, as _main builds them: the tools (catalog sources `skills` and
`memory`, the main agent's only), the system prompt's parts, the gate's claims, and the grants of
--trust-skills on the main agent's gatekeeper.

Sub-agents get none of them (as dax's task children): their tools are the built-in ones (and MCP
servers'), their gatekeeper the policy's own (no grants), and their system prompt names only the
tools they are offered, so neither the skills' list nor the memory's notes reach a child.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..runtime import Events, Gatekeeper, Tools, ToolSpec
from ..runtime.harness import BUILTIN_SOURCE, MEMORY_SOURCE, SKILL_SOURCE

if TYPE_CHECKING:
    from ...policy import Claims, Gate
    from ..skills import Deciding, Grants, Memory, Skill, SkillCatalog
    from . import ToolContext

__all__ = ["SessionExtras", "SessionTools", "session_extras"]


class SessionTools:
    """The session's tools, and the skill and memory tools it has (`own`), run in `ctx`."""

    def __init__(self, tools: Tools, ctx: ToolContext, own: Mapping[str, str]) -> None:
        from . import SESSION_TOOLS

        self.tools = tools
        self.ctx = ctx
        self.own = {name: SESSION_TOOLS[name] for name in own}
        self.by_source = {source: name for name, source in own.items()}

    def _spec(self, name: str) -> ToolSpec:
        t = self.own[name]
        return ToolSpec(t.name, t.description, t.parameters)

    def specs(self) -> Sequence[ToolSpec]:
        return [*self.tools.specs(), *(self._spec(name) for name in self.own)]

    def sources(self) -> Mapping[str, Sequence[ToolSpec]]:
        inner = getattr(self.tools, "sources", None)
        found = dict(inner()) if callable(inner) else {BUILTIN_SOURCE: self.tools.specs()}
        return {**found, **{source: [self._spec(name)] for source, name in self.by_source.items()}}

    def has(self, name: str) -> bool:
        return name in self.own or self.tools.has(name)

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        tool = self.own.get(name)
        if tool is None:
            return self.tools.run(name, args, cancel)
        out = tool.run(args, replace(self.ctx, cancel=cancel))
        return out.text, out.is_error


@dataclass(slots=True)
class SessionExtras:
    """What a session has of skills and memory: `notes` are lines for the person at start (what
    was left out, a memory whose mode was fixed)."""

    ctx: ToolContext
    catalog: SkillCatalog | None = None
    memory: Memory | None = None
    grants: Grants | None = None
    notes: list[str] = field(default_factory=list)
    memory_block: str = ""

    @property
    def claims(self) -> Claims | None:
        return self.catalog.claims if self.catalog is not None else None

    def _own(self) -> dict[str, str]:
        own = {}
        if self.catalog is not None and self.catalog.skills:
            own["skill"] = SKILL_SOURCE
        if self.memory is not None:
            own["memory"] = MEMORY_SOURCE
        return own

    def tools(self, inner: Tools) -> Tools:
        own = self._own()
        return SessionTools(inner, self.ctx, own) if own else inner

    def sections(self) -> dict[str, str]:
        """The system prompt's parts, by the tool whose offer brings each."""
        parts = {}
        if "skill" in self._own():
            assert self.catalog is not None
            parts["skill"] = self.catalog.section()
        if self.memory is not None:
            parts["memory"] = self.memory_block
        return parts

    def gate(self, gate: Deciding) -> Gatekeeper:
        """The main agent's gatekeeper: with --trust-skills, the grants on top of the policy's."""
        if self.grants is None:
            return gate
        from ..skills import Granting

        return Granting(gate, self.grants)

    @property
    def events(self) -> tuple[Events, ...]:
        return (self.grants,) if self.grants is not None else ()

    def on_grant(self, record: Callable[..., None], say: Callable[[str], None]) -> None:
        """Where a grant is recorded (the session) and said (the front)."""
        if self.grants is None:
            return

        def granted(skill: Skill) -> None:
            record("skill_grant", skill=skill.name, rules=list(skill.rules))
            rules = ", ".join(skill.rules)
            say(f"skill {skill.name}: its allowed-tools run unasked until your next message: {rules}")

        self.grants.on_grant = granted


def _enabled(flag: bool | None, configured: bool | None) -> bool:
    """A flag's say, else the config's (on unless it says false)."""
    return flag if flag is not None else configured is not False


def session_extras(
    gate: Gate,
    home: str,
    where: str,
    *,
    skills: bool | None = None,
    memory: bool | None = None,
    trust_skills: bool = False,
) -> SessionExtras:
    """Find the skills (yours, then the project's) and open the memory, as the gate's settings and
    the flags say; the gate's claims become the skills' (what a skill call reads). Raises
    ConfigError for a `skills_dirs` entry that is not a directory."""
    from . import ToolContext

    settings, ws = gate.settings, gate.ws
    extras = SessionExtras(ToolContext(gate))
    if _enabled(skills, settings.agent.skills):
        from ..skills import Found, Grants, SkillCatalog, project_skills, skills_dirs, your_skills

        found = Found()
        your_skills(skills_dirs(settings.agent, where, home), found)
        project_skills(ws, settings.policy, found)
        extras.grants = Grants(settings.policy) if trust_skills else None
        grant = extras.grants.grant if extras.grants is not None else None
        extras.catalog = SkillCatalog(ws, found, grant)
        extras.notes += [f"skills: {line}" for line in found.omitted]
    if _enabled(memory, settings.agent.memory):
        from ..skills import Memory

        configured = settings.agent.memory_dir
        directory = os.path.join(home, "memory") if configured is None else os.path.expanduser(configured)
        extras.memory = Memory(directory)
        extras.memory_block = extras.memory.block()
        if extras.memory.fixed:
            extras.notes.append(extras.memory.fixed)
    extras.ctx = replace(extras.ctx, skills=extras.catalog, memory=extras.memory)
    gate.claims = extras.claims
    return extras

"""skill: load one of the session's skills (its SKILL.md, or a file beside it by name).

What it reads of the workspace (a project's skill) was decided by the gate as reads held to read's
asks and denies, and stamped; the load checks that stamp, so a link swapped in since is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...policy import STAMP_ARG
from ._base import Args, Tool, ToolContext, ToolError, schema

__all__ = ["SKILL"]


def _run(args: Args, ctx: ToolContext) -> str:
    from ..skills import SkillError

    if ctx.skills is None:
        raise ToolError("this session has no skills")
    stamp = args.get(STAMP_ARG)

    def verify(names: Sequence[str]) -> bool:
        return ctx.gate.paths_hold("skill", names, stamp)

    try:
        return ctx.skills.load(args, verify if ctx.gate.stamper is not None else None)
    except SkillError as err:
        raise ToolError(f"skill: {err}") from None


SKILL = Tool(
    "skill",
    "Load a skill the system prompt lists: its instructions (SKILL.md), or with `file` a file beside "
    "it. A skill is text: it changes no permission, and what it asks you to run is decided as any call.",
    schema(
        {
            "name": {"type": "string", "description": "The skill's name, as listed."},
            "file": {
                "type": "string",
                "description": "A file in the skill's folder, by its name there (leave out for SKILL.md).",
            },
        },
        ["name"],
    ),
    _run,
)

"""Skills: folders with a SKILL.md (front matter `name`, `description`, optional `allowed-tools`; a
body of instructions and files beside it), offered to the model by name and description and loaded
with the `skill` tool.

- Yours: `~/.bastion/skills` (`$BASTION_HOME/skills`) and your config's `skills_dirs`, read on this
  machine, unasked; with --trust-skills a loaded skill's allowed-tools run unasked until your next
  message (bastion/agent/skills/_grants.py).
- The project's: `.bastion/skills`, text from the repository, read through the workspace
  (`_project_skills.py`): a `.bastion` or `.bastion/skills` that is a link, or a skill folder holding
  a link that leads outside `.bastion/skills`, is left out and reported; each file a load reads is
  held to read's asks and denies on its name and where its links lead (the gate's claims); its
  allowed-tools are withheld, whatever the flags say.

A name given twice keeps the first: yours before the project's (a repository cannot replace a skill
you installed), then in the order of the directories. A skill that cannot be read or whose SKILL.md
is malformed is left out, reported with the file and the line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..._errors import BastionError
from ..._files import read_regular
from ..._safe import safe_line
from ...config import AgentConfig
from ...policy import ALIASES, TOOLS, Layer, Origin, Policy, RuleError, Source, parse_rule
from ._frontmatter import FrontMatterError, read_front_matter

__all__ = [
    "MAX_SKILL_BYTES",
    "Found",
    "Skill",
    "SkillError",
    "allowed_rules",
    "parse_skill",
    "read_own",
    "relative_file",
    "skills_dirs",
    "your_skills",
]

# The most a SKILL.md or a file beside it may hold (as a project's config: 1 MiB).
MAX_SKILL_BYTES = 1 << 20
MAX_SKILLS = 256
MAX_DESCRIPTION = 1024
# The open format's names: lower-case letters, digits and single hyphens, at most 64.
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64

# What a trusted skill's allowed-tools may name: bash and the file tools, the rule language's aliases
# for them (Bash, Read, Edit, Write), and the names Claude Code gives three of them. Nothing else
# (task, skill, memory, an MCP tool, a tool glob, a carve-out, another name) is understood, so the
# whole grant is refused.
_GRANTABLE = {
    **{name: name for name, info in TOOLS.items() if info.argument in ("command", "path")},
    **{alias: alias for alias in ALIASES},
    **{name: name.lower() for name in ("Glob", "Grep", "LS")},
}


class SkillError(ValueError, BastionError):
    """Why a skill is left out, or a load refused, in words for the person and the model."""


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill. `folder` is absolute for yours and root-relative for the project's; `where` is
    its SKILL.md as shown; `rules` what its allowed-tools give as rules of bastion's language (yours
    only), `withheld` why they are not granted ("" when they are, or it names none)."""

    name: str
    description: str
    project: bool
    folder: str
    where: str
    body: str
    allowed: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    withheld: str = ""

    @property
    def origin(self) -> str:
        return "the project's" if self.project else "yours"


def _entries(value: object) -> list[str]:
    """allowed-tools' entries: a list, or a text of them split at commas and blanks outside ( )."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    if not isinstance(value, str):
        raise SkillError("allowed-tools must be a list or a text of tool names")
    found, depth, start = [], 0, 0
    for i, c in enumerate(value + " "):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            raise SkillError(f"allowed-tools: a ')' with no '(' at column {i + 1}")
        if depth == 0 and (c in ", "):
            if value[start:i].strip():
                found.append(value[start:i].strip())
            start = i + 1
    if depth:
        raise SkillError("allowed-tools: a '(' that is not closed")
    return found


def allowed_rules(entries: Sequence[str]) -> tuple[str, ...]:
    """The rules of bastion's language an allowed-tools list stands for; SkillError for anything not
    understood (fail closed: the whole grant is refused, never a part of it)."""
    rules = []
    for entry in entries:
        try:
            rule = parse_rule(entry)
        except RuleError as err:
            raise SkillError(f"allowed-tools: {entry!r} is not a rule ({err})") from None
        tool = _GRANTABLE.get(rule.tool)
        if tool is None or rule.tool_glob:
            raise SkillError(f"allowed-tools: {entry!r}: a grant names only bash and the file tools")
        if rule.carve_out:
            raise SkillError(f"allowed-tools: {entry!r}: a grant may not carve anything out")
        rules.append(tool if rule.specifier is None else f"{tool}({rule.specifier})")
    try:  # every specifier must compile as the rule language reads it
        Policy([Layer(Source(Origin.SKILL), 2, True, "skill", tuple(rules), lifts=False)])
    except RuleError as err:
        raise SkillError(f"allowed-tools: {err}") from None
    return tuple(dict.fromkeys(rules))


def parse_skill(text: str, where: str, folder: str, *, project: bool) -> Skill:
    """A skill from its SKILL.md's text (`where` is how it is shown); SkillError naming the line
    for a bad one."""
    try:
        fm = read_front_matter(text)
    except FrontMatterError as err:
        raise SkillError(str(err)) from None
    name, description, tools = (fm.fields.get(k) for k in ("name", "description", "allowed-tools"))
    line = fm.lines.get
    if not isinstance(name, str) or not name:
        raise SkillError(f"line {line('name', 1)}: `name` is required, as text")
    if len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise SkillError(
            f"line {line('name')}: name {name!r}: lower-case letters, digits and single "
            f"hyphens, at most {MAX_NAME}"
        )
    if not isinstance(description, str) or not description.strip():
        raise SkillError(f"line {line('description', 1)}: `description` is required, as text")
    if len(description) > MAX_DESCRIPTION:
        raise SkillError(f"line {line('description')}: the description is over {MAX_DESCRIPTION} characters")
    allowed: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    withheld = ""
    try:
        allowed = tuple(_entries(tools)) if tools is not None else ()
        if allowed and not project:
            rules = allowed_rules(allowed)
    except SkillError as err:
        allowed = allowed or (str(tools),)
        withheld = f"refused (line {line('allowed-tools')}): {err}"
    if allowed and project:
        withheld = "a project's skill: its allowed-tools are never granted"
    return Skill(
        name, " ".join(description.split()), project, folder, where, fm.body, allowed, rules, withheld
    )


def read_own(path: str, limit: int = MAX_SKILL_BYTES) -> bytes:
    """A file of yours (links followed): a regular file, never a FIFO waited on, at most `limit`."""
    data = read_regular(path, limit + 1)
    if len(data) > limit:
        raise OSError(f"{path}: larger than {limit} bytes")
    return data


def relative_file(file: object) -> str:
    """A `file` argument: a plain relative name inside the skill's folder."""
    if not isinstance(file, str) or not file:
        raise SkillError("`file` must be a file's name inside the skill's folder")
    parts = file.split("/")
    if file.startswith("/") or "\x00" in file or any(p in ("", ".", "..") for p in parts):
        raise SkillError(f"{file!r}: name a file inside the skill's folder (no /, . or .. parts)")
    return file


@dataclass(slots=True)
class Found:
    """Skills found in order, and what was left out (each a line for the person)."""

    skills: dict[str, Skill] = field(default_factory=dict)
    omitted: list[str] = field(default_factory=list)

    def add(self, skill: Skill) -> None:
        first = self.skills.get(skill.name)
        if first is not None:
            self.leave_out(skill.where, f"the skill {skill.name} is already {first.where}")
        elif len(self.skills) >= MAX_SKILLS:
            self.leave_out(skill.where, f"more than {MAX_SKILLS} skills")
        else:
            self.skills[skill.name] = skill

    def leave_out(self, where: str, why: object) -> None:
        self.omitted.append(safe_line(f"{where}: left out: {why}"))


def your_skills(directories: Sequence[str], found: Found) -> None:
    """The skills in your directories, in order (each folder's SKILL.md; links followed)."""
    for directory in directories:
        try:
            entries = sorted(os.listdir(directory))
        except FileNotFoundError:
            continue
        except OSError as err:
            found.leave_out(directory, err.strerror or err)
            continue
        for entry in entries:
            folder = os.path.join(directory, entry)
            where = os.path.join(folder, "SKILL.md")
            if entry.startswith(".") or not os.path.isdir(folder) or not os.path.lexists(where):
                continue
            try:
                text = read_own(where).decode("utf-8")
                found.add(parse_skill(text, where, folder, project=False))
            except UnicodeDecodeError:
                found.leave_out(where, "not UTF-8 text")
            except (OSError, SkillError) as err:
                found.leave_out(where, err.strerror if isinstance(err, OSError) and err.strerror else err)


def skills_dirs(config: AgentConfig, where: str, home: str) -> list[str]:
    """Your skill directories: `home`/skills, then the config's `skills_dirs` (`~` expanded, a
    relative one from the file naming it), each of which must exist."""
    from ..runtime import ConfigError

    found = [os.path.join(home, "skills")]
    base = os.path.dirname(os.path.abspath(where))
    for index, raw in enumerate(config.skills_dirs or ()):
        path = os.path.normpath(os.path.join(base, os.path.expanduser(raw)))
        if not os.path.isdir(path):
            raise ConfigError(f"{where}: skills_dirs[{index}]: {raw!r}: no such directory")
        found.append(path)
    return found

"""Skills and memory: SKILL.md folders (yours, and the repository's read through the workspace),
what the model is told of them and what a load gives it, --trust-skills' grants, and the model's
notes in ~/.bastion/memory. Their tools are tools.SESSION_TOOLS'; tools.session_extras joins them.
"""

from ._frontmatter import FrontMatterError, read_front_matter
from ._grants import Deciding, Granting, Grants
from ._memory import MAX_NOTE_BYTES, MAX_NOTES, Memory, NoteError, frame
from ._project_skills import project_skills
from ._skill_catalog import SkillCatalog
from ._skills import Found, Skill, SkillError, allowed_rules, parse_skill, skills_dirs, your_skills

__all__ = [
    "Deciding",
    "Found",
    "FrontMatterError",
    "Granting",
    "Grants",
    "MAX_NOTES",
    "MAX_NOTE_BYTES",
    "Memory",
    "NoteError",
    "Skill",
    "SkillCatalog",
    "SkillError",
    "allowed_rules",
    "frame",
    "parse_skill",
    "project_skills",
    "read_front_matter",
    "skills_dirs",
    "your_skills",
]

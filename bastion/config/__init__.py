"""The config files: their one table of keys (`_table.py`), read plainly when plainly valid and by the
pydantic schema derived from the same table otherwise; what the policy and the agent receive, typed.

    bastion.config  (below bastion.policy, which builds its layers from what is read here)
    ├── UserSettings, AgentConfig   the user's file: what the policy and tools read, what the agent reads
    ├── ProjectSettings             a project's `.bastion/config.toml` ([policy] only)
    └── read_user, read_project     bytes' TOML to those values; ConfigError names the file and the field

Nothing here imports pydantic or tomllib until a file needs it (a hook call with a plain file, or with
none, never does).
"""

from bastion._errors import ConfigError

from ._lines import lines_of
from ._read import UserFile, parse_toml, read_project, read_user
from ._table import (
    AgentConfig,
    HarnessSection,
    PolicySection,
    Price,
    ProjectScope,
    ProjectSettings,
    SandboxSection,
    ScopePolicy,
    UserSettings,
)

__all__ = [
    "AgentConfig",
    "ConfigError",
    "HarnessSection",
    "PolicySection",
    "Price",
    "ProjectScope",
    "ProjectSettings",
    "SandboxSection",
    "ScopePolicy",
    "UserFile",
    "UserSettings",
    "lines_of",
    "parse_toml",
    "read_project",
    "read_user",
]

"""The config files: their one table of keys (`_table.py`), read plainly when plainly valid and by the
pydantic schema derived from the same table otherwise; what the policy and the agent receive, typed.

    bastion.config  (below bastion.policy, which builds its layers from what is read here)
    ├── UserSettings, AgentConfig   the user's file: what the policy and tools read, what the agent reads
    ├── ProjectSettings             a project's `.bastion/config.toml` ([policy] only)
    ├── read_user, read_project     bytes' TOML to those values; ConfigError names the file and the field
    └── add_to_scope                rules added to one project's scope of the user's file, nothing lost

Nothing here imports pydantic or tomllib until a file needs it (a hook call with a plain file, or with
none, never does), nor the writer until a rule is added.
"""

import typing

from bastion._errors import ConfigError
from bastion._lazy import lazy_names as _lazy_names

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

if typing.TYPE_CHECKING:
    from ._append import ConfigChanged, add_to_scope, digest_of, scope_lines

__all__ = [
    "AgentConfig",
    "ConfigChanged",
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
    "add_to_scope",
    "digest_of",
    "lines_of",
    "parse_toml",
    "read_project",
    "read_user",
    "scope_lines",
]

# The writer loads with its first use (a question's rule remembered), never on a dry-run's path.
__getattr__ = _lazy_names(
    __name__, dict.fromkeys(("ConfigChanged", "add_to_scope", "digest_of", "scope_lines"), "_append")
)

"""Reading a config file's TOML into the table's sections: plainly when it is plainly valid, else by
the schema derived from the same table (which alone words what is wrong)."""

from __future__ import annotations

from typing import Any, NamedTuple

from bastion._errors import ConfigError

from ._plain import plain_file
from ._table import PROJECT_FILE, USER_FILE, AgentConfig, ProjectSettings, UserSettings

__all__ = ["UserFile", "parse_toml", "read_project", "read_user"]


class UserFile(NamedTuple):
    """The user's file: what the policy and the tools read, and what the agent reads."""

    settings: UserSettings = UserSettings()
    agent: AgentConfig = AgentConfig()


def parse_toml(data: bytes, path: str) -> dict[str, Any]:
    """A file's TOML. Raises ConfigError naming the file."""
    if not data:
        return {}  # what TOML makes of an empty file (--config /dev/null), without importing tomllib
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except RecursionError:  # tomllib recurses once per level of nesting
        raise ConfigError(f"{path}: not valid TOML: arrays or tables nest too deeply") from None


def read_user(raw: dict[str, Any], path: str) -> UserFile:
    """The user's file from its TOML. Raises ConfigError naming the file and the field."""
    found = plain_file(USER_FILE, raw)
    if found is None:
        from ._schema import validate_file  # pydantic: only for a file that is not plainly valid

        found = validate_file(USER_FILE, raw, path)
    return UserFile(*found)


def read_project(raw: dict[str, Any], path: str) -> ProjectSettings:
    """A project's file from its TOML (the keys it may not set refused by bastion.policy before).
    Raises ConfigError naming the file and the field."""
    found = plain_file(PROJECT_FILE, raw)
    if found is None:
        from ._schema import validate_file

        found = validate_file(PROJECT_FILE, raw, path)
    settings: ProjectSettings = found[0]
    return settings

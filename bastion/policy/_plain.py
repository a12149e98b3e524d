"""A config file's data as settings use it, and the check that lets a plainly valid file skip pydantic.

The schema is pydantic's (`_schema.py`, strict): it alone says what is wrong with a file, naming the
field. Importing pydantic and building the models costs about 100 ms, so a file whose every key and
value is of exactly the type the schema wants (what a hand-written config nearly always is) is read
here instead. This check only ever accepts a subset of what the schema accepts, with the same values
(a test compares them on generated files); anything else, valid or not, goes to pydantic.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from bastion.analyzer import DEFAULT_MAX_READ_BYTES
from bastion.sandbox import MODES, SandboxConfig

if TYPE_CHECKING:
    from ._schema import PolicySection, SandboxSection, UserFile

__all__ = ["PROVIDER_KEYS", "Section", "UserData", "plain_project", "plain_user", "sandbox_of"]

Fallback = Literal["allow", "ask", "deny"]
PROVIDER_KEYS = (
    "provider",
    "model",
    "base_url",
    "api_key_env",
    "api_key_command",
    "think",
    "effort",
    "compact_at",
    "context_windows",
    "pricing",
    "harness",
    "mcp",  # the agent's [mcp.servers.NAME] tables: a table here, checked by the agent (bastion/agent/mcp)
    "subagent_model",
    "stream_idle_timeout",
    "request_timeout",
    "max_turns",
    "skills",
    "skills_dirs",
    "memory",
    "memory_dir",
    "executor",
    "executor_pass_env",
)

_SECTION_KEYS = frozenset({"allow", "ask", "deny", "fallback", "builtin"})
_USER_KEYS = frozenset({"policy", "sandbox", "pass_env", "max_read_bytes", *PROVIDER_KEYS})
_SANDBOX_KEYS = frozenset({"mode", "writable", "network"})
_WRITABLE_PATH = re.compile(r"(/|~/)[^\x00]*")
_FALLBACKS = ("allow", "ask", "deny")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_INT = (1 << 63) - 1  # beyond it, let pydantic say what it accepts
_MAX_SECONDS = 86_400  # the longest a timeout may be set to (the schema's bound too)


class Section(NamedTuple):
    """A file's [policy] table."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    fallback: Fallback | None = None
    builtin: bool | None = None

    @classmethod
    def of(cls, model: PolicySection) -> Section:
        return cls(tuple(model.allow), tuple(model.ask), tuple(model.deny), model.fallback, model.builtin)


def sandbox_of(model: SandboxSection) -> SandboxConfig:
    """A file's [sandbox] table as written (`~` not expanded yet)."""
    return SandboxConfig(model.mode, tuple(model.writable), model.network)


class UserData(NamedTuple):
    """The user's file. `extra` holds the provider's keys (and [pricing], [harness]) the file sets,
    uninterpreted."""

    policy: Section
    pass_env: tuple[str, ...]
    max_read_bytes: int
    extra: dict[str, Any]
    sandbox: SandboxConfig = SandboxConfig()

    @classmethod
    def of(cls, model: UserFile) -> UserData:
        extra = {key: getattr(model, key) for key in PROVIDER_KEYS if key in model.model_fields_set}
        if model.pricing is not None:
            extra["pricing"] = {name: price.model_dump() for name, price in model.pricing.items()}
        if model.harness is not None:
            extra["harness"] = model.harness.model_dump()
        sandbox = sandbox_of(model.sandbox)
        return cls(Section.of(model.policy), tuple(model.pass_env), model.max_read_bytes, extra, sandbox)


def _strings(value: object) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def _section(raw: object) -> Section | None:
    if type(raw) is not dict or not raw.keys() <= _SECTION_KEYS:
        return None
    lists = [raw.get(kind, []) for kind in ("allow", "ask", "deny")]
    fallback = raw.get("fallback")
    builtin = raw.get("builtin")
    if not all(_strings(value) for value in lists):
        return None
    if "fallback" in raw and (type(fallback) is not str or fallback not in _FALLBACKS):
        return None
    if "builtin" in raw and type(builtin) is not bool:
        return None
    allow, ask, deny = (tuple(value) for value in lists)
    return Section(allow, ask, deny, fallback, builtin)


def _sandbox(raw: object) -> SandboxConfig | None:
    if type(raw) is str:
        return SandboxConfig(raw) if raw in MODES else None
    if type(raw) is not dict or not raw.keys() <= _SANDBOX_KEYS:
        return None
    mode, writable, network = raw.get("mode", "auto"), raw.get("writable", []), raw.get("network", True)
    if type(mode) is not str or mode not in MODES or type(network) is not bool:
        return None
    if not _strings(writable) or not all(_WRITABLE_PATH.fullmatch(path) for path in writable):
        return None
    return SandboxConfig(mode, tuple(writable), network)


def _provider_value(key: str, value: object) -> bool:
    if key in ("think", "skills", "memory"):
        return type(value) is bool
    if key == "skills_dirs":
        return type(value) is list and all(type(item) is str and item != "" for item in value)
    if key in ("api_key_command", "executor"):
        return type(value) is str or _strings(value)
    if key == "executor_pass_env":
        return type(value) is list and all(type(n) is str and _ENV_NAME.fullmatch(n) for n in value)
    if key in ("compact_at", "max_turns"):
        return type(value) is int and 0 < value <= _MAX_INT
    if key in ("stream_idle_timeout", "request_timeout"):
        return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= _MAX_SECONDS
    if key == "mcp":
        return type(value) is dict
    if key == "context_windows":
        return type(value) is dict and all(
            type(k) is str and k != "" and type(v) is int and 0 < v <= _MAX_INT for k, v in value.items()
        )
    if key in ("subagent_model", "memory_dir"):
        return type(value) is str and value != ""
    if key in ("pricing", "harness"):
        return False  # tables with defaults (and numbers of several types): pydantic reads and words them
    return type(value) is str


def plain_user(raw: dict[str, Any]) -> UserData | None:
    """The user's file when it is plainly valid, else None (pydantic decides)."""
    if not raw.keys() <= _USER_KEYS:
        return None
    section = _section(raw.get("policy", {}))
    sandbox = _sandbox(raw.get("sandbox", {}))
    pass_env = raw.get("pass_env", [])
    size = raw.get("max_read_bytes", DEFAULT_MAX_READ_BYTES)
    if section is None or sandbox is None:
        return None
    if not _strings(pass_env) or not all(_ENV_NAME.fullmatch(n) for n in pass_env):
        return None
    if type(size) is not int or not 0 < size <= _MAX_INT:
        return None
    extra = {key: raw[key] for key in PROVIDER_KEYS if key in raw}
    if not all(_provider_value(key, value) for key, value in extra.items()):
        return None
    return UserData(section, tuple(pass_env), size, extra, sandbox)


def plain_project(raw: dict[str, Any]) -> Section | None:
    """The project's file ([policy] only) when it is plainly valid, else None (pydantic decides)."""
    if not raw.keys() <= {"policy"}:
        return None
    return _section(raw.get("policy", {}))

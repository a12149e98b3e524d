"""The config files' one table: every key a file may hold, its type, its default and what it means.

Each section is a NamedTuple whose fields are the keys of one TOML table, documented beside the
field; a field's type says what a file may write there, with markers (`Match`, `Length`, `Bounds`,
`Shorthand`) for what a type alone cannot say. The fast reader (`_plain.py`) and the pydantic schema
(`_schema.py`) are both derived from these classes, and nothing else lists the keys: a key added
here is read by both (tests/config/test_table.py checks that they agree on every key).

This module keeps its annotations as objects (no `from __future__ import annotations`): the
readers walk them at run time.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Literal, NamedTuple

from bastion.analyzer import DEFAULT_MAX_READ_BYTES

__all__ = [
    "MAX_INT",
    "PROJECT_FILE",
    "USER_FILE",
    "AgentConfig",
    "Bounds",
    "HarnessSection",
    "Length",
    "Match",
    "PolicySection",
    "ProjectScope",
    "ScopePolicy",
    "Sections",
    "Price",
    "ProjectSettings",
    "SandboxSection",
    "Shorthand",
    "UserSettings",
    "defaults_of",
]

# The largest whole number the fast reader accepts (beyond it pydantic says what it makes of it).
MAX_INT = (1 << 63) - 1


class Match(NamedTuple):
    """A text the whole of which matches `pattern` (a Python and a pydantic regex alike)."""

    pattern: str


class Length(NamedTuple):
    """A text of at least `least` characters."""

    least: int = 1


class Bounds(NamedTuple):
    """A number above `gt`, at least `ge`, at most `le` (None: no such bound)."""

    gt: float | None = None
    ge: float | None = None
    le: float | None = None


class Shorthand(NamedTuple):
    """A table a file may also write as a text: the text is the value of the field `field`."""

    field: str


EnvName = Annotated[str, Match(r"[A-Za-z_][A-Za-z0-9_]*")]
# A module a [harness] names: dotted Python identifiers, imported as they are named.
ModuleName = Annotated[str, Match(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")]
# A path an approved command may also write: absolute, or from the home directory.
WritablePath = Annotated[str, Match(r"(/|~/)[^\x00]*")]
# The directory a [projects] scope applies in: absolute (the real path of a workspace's root).
ProjectRoot = Annotated[str, Match(r"/[^\x00]*")]
Name = Annotated[str, Length(1)]
Positive = Annotated[int, Bounds(gt=0)]
Seconds = Annotated[float, Bounds(gt=0, le=86_400)]
Dollars = Annotated[float, Bounds(ge=0)]
Fallback = Literal["allow", "ask", "deny"]
_EMPTY: Mapping[str, str] = MappingProxyType({})
_NO_PROFILES: Mapping[str, Mapping[str, str]] = MappingProxyType({})


class PolicySection(NamedTuple):
    """[policy]: rules as written (bastion.policy parses them when the file is read)."""

    allow: tuple[str, ...] = ()  # what runs unasked (the user's file and flags only)
    ask: tuple[str, ...] = ()  # what asks first
    deny: tuple[str, ...] = ()  # what never runs
    fallback: Fallback | None = None  # what a call no rule names gets (default: ask)
    builtin: bool | None = None  # false: drop bastion's shipped allow list (its asks stay)


class ScopePolicy(NamedTuple):
    """[projects."DIR".policy]: rules of yours that apply only where the workspace's root is DIR,
    beside your [policy] (a question's "remember" adds its allow rules here)."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()


class ProjectScope(NamedTuple):
    """[projects."DIR"]: what of your file applies only in one project (only the user's file may
    have it)."""

    policy: ScopePolicy = ScopePolicy()


_NO_PROJECTS: Mapping[str, ProjectScope] = MappingProxyType({})


class SandboxSection(NamedTuple):
    """[sandbox] (or `sandbox = "MODE"`): how an approved command is confined (bastion/sandbox)."""

    mode: Literal["auto", "require", "off"] = "auto"
    writable: tuple[WritablePath, ...] = ()  # paths an approved command may also write
    network: bool = True  # whether an approved command may use TCP


class Price(NamedTuple):
    """[pricing."MODEL"]: a model's price in US dollars per million tokens; the cache prices
    default to the input's."""

    input: Dollars
    output: Dollars
    cache_read: Dollars | None = None
    cache_write: Dollars | None = None


class HarnessSection(NamedTuple):
    """[harness]: the agent's slots (bastion.agent.runtime.harness reads it; an unknown slot or id there is
    warned of, not an error). Only the user's file may have it."""

    profile: str | None = None  # the profile in force at start
    slots: Mapping[str, str] = _EMPTY  # slot = component id, over the profile's
    profiles: Mapping[str, Mapping[str, str]] = _NO_PROFILES  # [harness.profiles.NAME]: slot = id
    modules: tuple[ModuleName, ...] = ()  # modules imported to register components
    entry_points: tuple[Name, ...] = ()  # entry-point groups whose components are loaded
    # Seconds a component may take to answer before the slot's default answers instead.
    timeout: Annotated[float, Bounds(gt=0, le=600)] = 5.0


class UserSettings(NamedTuple):
    """The user's file's keys that bastion's policy and its tools read."""

    policy: PolicySection = PolicySection()
    sandbox: Annotated[SandboxSection, Shorthand("mode")] = SandboxSection()
    pass_env: tuple[EnvName, ...] = ()  # variables the tools' commands are given
    max_read_bytes: Positive = DEFAULT_MAX_READ_BYTES  # the most a read tool returns
    # [projects."DIR"]: rules for the workspace whose root is DIR (absolute, its links resolved).
    projects: Mapping[ProjectRoot, ProjectScope] = _NO_PROJECTS


class AgentConfig(NamedTuple):
    """The user's file's keys the agent reads (top-level keys, beside UserSettings'); None: unset."""

    # The provider's settings (checked by bastion/agent/providers/_settings.py: the providers, URLs, efforts).
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None  # the variable the key is read from (never the key itself)
    api_key_command: str | tuple[str, ...] | None = None  # prints the key (a text is split as words)
    think: bool | None = None
    effort: str | None = None
    # Tokens at which the conversation is compacted (default: three quarters of the model's window).
    compact_at: Positive | None = None
    # [context_windows]: "MODEL" (or a family, "NAME*") = the tokens its window takes, over what the
    # server says and bastion's table of known models (bastion/agent/providers/_windows.py).
    context_windows: Mapping[Name, Positive] | None = None
    # The model a sub-agent (the task tool) talks to; the session's model when unset.
    subagent_model: Name | None = None
    # Seconds without a byte from the model's server before a request is given up (and retried).
    stream_idle_timeout: Seconds | None = None
    # Seconds one request to the model may take in all, its retries and their waits included.
    request_timeout: Seconds | None = None
    # The most model requests one -p run makes (--max-turns overrides it); no limit when unset.
    max_turns: Positive | None = None
    # [pricing."MODEL"]: the price of a model the provider does not report a cost for.
    pricing: Mapping[str, Price] | None = None
    harness: HarnessSection | None = None
    # Skills (bastion/agent/skills/_skills.py): offered unless false, when any is found.
    skills: bool | None = None
    # More skill directories of yours, after ~/.bastion/skills: each must exist; `~` is expanded
    # and a relative one is relative to this file. Their skills are yours (--trust-skills grants).
    skills_dirs: tuple[Name, ...] | None = None
    # The model's memory (bastion/agent/skills/_memory.py): offered unless false.
    memory: bool | None = None
    # Where the memory is kept (default ~/.bastion/memory, made 0700); `~` is expanded.
    memory_dir: Name | None = None
    # [mcp.servers.NAME]: the MCP servers the agent starts; a table here, checked by the agent
    # (bastion/agent/mcp), which alone knows a server's fields.
    mcp: Mapping[str, object] | None = None
    # The command that starts `bastion execute` where the tools act (docker exec -i NAME bastion
    # execute /work, ssh HOST bastion execute ~/proj): split as a shell splits words with nothing
    # expanded, or a list used as is; --executor overrides it (bastion/agent/tools/_executor_setup.py).
    executor: str | tuple[str, ...] | None = None
    # Variables, credentials included, that only the command starting the executor is given (SSH's
    # SSH_AUTH_SOCK): never the commands run there, and never the model's key.
    executor_pass_env: tuple[EnvName, ...] = ()


class ProjectSettings(NamedTuple):
    """A project's `.bastion/config.toml`: its [policy] only (bastion.policy refuses the rest by name)."""

    policy: PolicySection = PolicySection()


# A file: the sections whose fields are its top-level keys, none named twice.
Sections = tuple[type[tuple[object, ...]], ...]
USER_FILE: Sections = (UserSettings, AgentConfig)
PROJECT_FILE: Sections = (ProjectSettings,)


def defaults_of(section: type[tuple[object, ...]]) -> dict[str, object]:
    """A section's defaults by field (a field without one is required)."""
    defaults: dict[str, object] = getattr(section, "_field_defaults")  # noqa: B009
    return defaults

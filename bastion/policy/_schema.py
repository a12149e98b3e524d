"""The config files' schema (pydantic, strict), the authority on what a file may hold and the wording
of what is wrong: imported only for a file that is not plainly valid (see _plain.py)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from bastion.analyzer import DEFAULT_MAX_READ_BYTES

__all__ = ["HarnessSection", "PolicySection", "ProjectFile", "SandboxSection", "Strict", "UserFile"]

# A module a [harness] names: dotted Python identifiers, imported as they are named.
_ModuleName = Annotated[
    str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
]
_EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
# A path an approved command may also write: absolute, or from the home directory.
_WritablePath = Annotated[str, StringConstraints(pattern=r"^(/|~/)[^\x00]*$")]
Fallback = Literal["allow", "ask", "deny"]
_ModelName = Annotated[str, StringConstraints(min_length=1)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class PolicySection(Strict):
    allow: list[str] = []
    ask: list[str] = []
    deny: list[str] = []
    fallback: Fallback | None = None
    builtin: bool | None = None


class SandboxSection(Strict):
    mode: Literal["auto", "require", "off"] = "auto"
    writable: list[_WritablePath] = []
    network: bool = True


def _mode_only(value: object) -> object:
    """`sandbox = "require"` is the table `[sandbox]` with `mode = "require"`."""
    return {"mode": value} if isinstance(value, str) else value


class PriceSection(Strict):
    """A model's price in US dollars per million tokens; the cache prices default to the input's."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)


class HarnessSection(Strict):
    """[harness]: the agent's slots (bastion.agent.harness reads it; an unknown slot or id there is
    warned of, not an error). Only the user's file may have it."""

    profile: str | None = None
    slots: dict[str, str] = {}
    profiles: dict[str, dict[str, str]] = {}
    modules: list[_ModuleName] = []
    entry_points: list[Annotated[str, StringConstraints(min_length=1)]] = []
    # Seconds a component may take to answer before the slot's default answers instead.
    timeout: float = Field(default=5.0, gt=0, le=600)


class UserFile(Strict):
    policy: PolicySection = PolicySection()
    sandbox: Annotated[SandboxSection, BeforeValidator(_mode_only)] = SandboxSection()
    pass_env: list[_EnvName] = []
    max_read_bytes: int = Field(default=DEFAULT_MAX_READ_BYTES, gt=0)
    # The provider's settings: read by the agent from Settings.extra, only type-checked here.
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key_command: str | list[str] | None = None
    think: bool | None = None
    effort: str | None = None
    # Tokens at which the conversation is compacted (default: three quarters of the model's window).
    compact_at: int | None = Field(default=None, gt=0)
    # [context_windows]: "MODEL" (or a family, "NAME*") = the tokens its window takes, over what the
    # server says and bastion's table of known models (bastion/agent/providers/_windows.py).
    context_windows: dict[_ModelName, Annotated[int, Field(gt=0)]] | None = None
    # The model a sub-agent (the task tool) talks to; the session's model when unset.
    subagent_model: str | None = Field(default=None, min_length=1)
    # Seconds without a byte from the model's server before a request is given up (and retried).
    stream_idle_timeout: float | None = Field(default=None, gt=0, le=86_400)
    # Seconds one request to the model may take in all, its retries and their waits included.
    request_timeout: float | None = Field(default=None, gt=0, le=86_400)
    # The most model requests one -p run makes (--max-turns overrides it); no limit when unset.
    max_turns: int | None = Field(default=None, gt=0)
    # [pricing."MODEL"]: the price of a model the provider does not report a cost for.
    pricing: dict[str, PriceSection] | None = None
    harness: HarnessSection | None = None
    # Skills (bastion/agent/_skills.py): offered unless false, when any is found.
    skills: bool | None = None
    # More skill directories of yours, after ~/.bastion/skills: each must exist; `~` is expanded
    # and a relative one is relative to this file. Their skills are yours (--trust-skills grants).
    skills_dirs: list[Annotated[str, StringConstraints(min_length=1)]] | None = None
    # The model's memory (bastion/agent/_memory.py): offered unless false.
    memory: bool | None = None
    # Where the memory is kept (default ~/.bastion/memory, made 0700); `~` is expanded.
    memory_dir: str | None = Field(default=None, min_length=1)
    # [mcp.servers.NAME]: the MCP servers the agent starts, checked by the agent (bastion/agent/mcp).
    mcp: dict[str, Any] | None = None
    # The command that starts `bastion execute` where the tools act (docker exec -i NAME bastion
    # execute /work, ssh HOST bastion execute ~/proj): split as a shell splits words with nothing
    # expanded, or a list used as is; --executor overrides it (bastion/agent/tools/_executor_setup.py).
    executor: str | list[str] | None = None
    # Variables, credentials included, that only the command starting the executor is given (SSH's
    # SSH_AUTH_SOCK): never the commands run there, and never the model's key.
    executor_pass_env: list[_EnvName] = []


class ProjectFile(Strict):
    policy: PolicySection = PolicySection()

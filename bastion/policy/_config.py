"""Settings from three layers: the user's TOML config, the project's `.bastion/config.toml`, flags.

The user's file is trusted: its policy rules rank 2 (and so do its rules for one project, a layer of
their own from `[projects."DIR".policy]`, applied only where the workspace's root, as given or with
its links resolved, is DIR), and it alone sets `pass_env`, `max_read_bytes`,
the sandbox's writable paths and network, and the agent's keys (`Settings.agent`, an AgentConfig
typed by bastion.config's table: the provider's keys, the harness's slots, skills, memory...). The
project's file comes from a repository, so it is read through the workspace (a link out, a FIFO, a
file over 1 MiB is an error) and may only tighten: ask and deny rules without carve-outs, `builtin =
false`, a fallback of ask or deny that applies only when stricter, and `sandbox = "require"`
(skills, skills_dirs, memory and memory_dir are refused by name: a repository cannot add what the
model is told or choose what it remembers). Flags rank 3 and override the user's file.

Every rule is parsed once, when its file is read, and knows where it was written (the file, its
entry, its line: a verdict cites it so). Both files are read again every time settings are loaded
(a dry-run loads them for every request, so a changed project config is seen at once); what a
file's bytes mean is remembered per bytes (a pure function of them), and the policy is built once
per process for the rules they hold (`Policy.shared`).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from typing import Literal, NamedTuple

from bastion._files import NotRegularFile, is_null_device, read_regular
from bastion._handover import user_config_path
from bastion.analyzer import DEFAULT_MAX_READ_BYTES
from bastion.config import (
    AgentConfig,
    ConfigError,
    PolicySection,
    ScopePolicy,
    lines_of,
    parse_toml,
    read_project,
    read_user,
)
from bastion.sandbox import SandboxConfig
from bastion.workspace import Workspace, WorkspaceError, resolve

from ._engine import Layer, Policy
from ._rules import RuleError, parse_rule
from ._types import Decision, Rule, Written

__all__ = [
    "PROJECT_CONFIG",
    "scope_layer",
    "PolicyFlags",
    "ProjectConfigError",
    "Settings",
    "load_settings",
    "user_config_path",
]

PROJECT_CONFIG = ".bastion/config.toml"
MAX_PROJECT_CONFIG_BYTES = 1 << 20
_MAX_USER_CONFIG_BYTES = 1 << 20
_FALLBACKS = {"allow": Decision.ALLOW, "ask": Decision.ASK, "deny": Decision.DENY}
# What a project's file is refused for by name, with the reason: skills and memory are the user's.
_YOURS_ALONE = ("skills", "skills_dirs", "memory", "memory_dir")

_KINDS = ("allow", "ask", "deny")

Fallback = Literal["allow", "ask", "deny"]


class RuleLists(NamedTuple):
    """A file's rules, parsed once when it is read, each knowing where it was written."""

    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()


class _User(NamedTuple):
    """What the user's file holds, as its bytes mean it (remembered per bytes); `scopes` are its
    [projects."DIR".policy] rules by DIR (normalised)."""

    rules: RuleLists
    scopes: Mapping[str, RuleLists]
    policy: PolicySection
    sandbox: SandboxConfig
    pass_env: tuple[str, ...]
    max_read_bytes: int
    agent: AgentConfig


class ProjectConfigError(ConfigError):
    """The project's `.bastion/config.toml` cannot be applied (it tries to loosen something, or
    cannot be read as one): its message names the file and the entry. Nothing runs under a project
    config half applied; a person may go on without it (`load_settings(..., project=False)`, the
    `--no-project-config` of the agent and of `check`), a hook never does."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path

    def advice(self, command: str) -> str:
        """How a person goes on, with `command` (`bastion`, `bastion check`)."""
        return (
            f"the project's config is refused whole, not applied; to go on without it (none of its "
            f"rules apply then), run `{command} --no-project-config`, or fix the entry named"
        )


class PolicyFlags(NamedTuple):
    """Policy overrides from the command line (rank 3, trusted)."""

    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    fallback: Fallback | None = None
    builtin: bool | None = None


class Settings(NamedTuple):
    """What a session runs under. `sources` lists the files read, for display; `agent` is the user
    file's keys the agent reads (bastion.config.AgentConfig, typed and checked by its table);
    `user_file` is where the user's file is read from (there or not; "" when not known) and `scope`
    the layer of its rules for this project (its [projects."DIR".policy], None when it has none)."""

    policy: Policy
    pass_env: tuple[str, ...] = ()
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES
    sources: tuple[str, ...] = ()
    agent: AgentConfig = AgentConfig()
    sandbox: SandboxConfig = SandboxConfig()
    user_file: str = ""
    scope: Layer | None = None


def _rules(
    section: PolicySection | ScopePolicy, text: str, path: str, *, project: bool, table: str = "policy"
) -> RuleLists:
    """Every rule of a [policy] (or of the `table` that holds one: a project's scope) parsed now,
    once, each knowing where it was written (the file, its entry and line), so an error names its
    entry (and column) and a verdict the rule as written."""
    entries = [(kind, index, rule) for kind in _KINDS for index, rule in enumerate(getattr(section, kind))]
    lines = lines_of(text, [rule for _, _, rule in entries])
    parsed: dict[str, list[Rule]] = {kind: [] for kind in _KINDS}
    for (kind, index, entry), line in zip(entries, lines, strict=True):
        where = f"{table}.{kind}[{index}]"
        try:
            rule = parse_rule(entry)
        except RuleError as err:
            raise ConfigError(f"{path}: {err.located(where)}") from None
        if project and rule.carve_out:
            raise ConfigError(
                f"{path}: {where}: {entry!r}: a project file may not carve anything out (column "
                f"{len(rule.tool) + 2}); put carve-outs in your own config"
            )
        parsed[kind].append(rule._replace(where=Written(path, where, line)))
    return RuleLists(*(tuple(parsed[kind]) for kind in _KINDS))


def _read_user(path: str, explicit: bool) -> tuple[_User | None, bool]:
    try:
        data = b"" if is_null_device(path) else read_regular(path, _MAX_USER_CONFIG_BYTES + 1)
    except FileNotFoundError:
        if explicit:
            raise ConfigError(f"{path}: no such config file") from None
        return None, False
    except NotRegularFile as err:
        raise ConfigError(f"{path}: {err.strerror}; a config is read from a regular file") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read ({err.strerror or err})") from None
    if len(data) > _MAX_USER_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {_MAX_USER_CONFIG_BYTES} bytes")
    return _user_data(data, path), True


@functools.lru_cache(maxsize=64)
def _user_data(data: bytes, path: str) -> _User | None:
    """What the user's file holds (None: nothing), a pure function of its bytes (and the path its
    errors name). Raises ConfigError, which is not remembered."""
    raw = parse_toml(data, path)
    if not raw:
        return None
    settings, agent = read_user(raw, path)
    text = data.decode("utf-8")
    rules = _rules(settings.policy, text, path, project=False)
    scopes: dict[str, RuleLists] = {}
    named: dict[str, str] = {}
    for root, scope in settings.projects.items():
        key = os.path.normpath(root)
        if key in named:
            raise ConfigError(f"{path}: projects: {named[key]!r} and {root!r} name the same directory")
        named[key] = root
        table = f"projects.{json.dumps(root, ensure_ascii=False)}.policy"
        scopes[key] = _rules(scope.policy, text, path, project=False, table=table)
    sandbox = SandboxConfig(*settings.sandbox)
    return _User(rules, scopes, settings.policy, sandbox, settings.pass_env, settings.max_read_bytes, agent)


def scope_layer(user_path: str, data: bytes, ws: Workspace) -> Layer | None:
    """The layer of the user's rules for the project `ws` is (its root, as given or resolved), from
    the user's file's bytes; None when it has none. Raises ConfigError."""
    user = _user_data(data, user_path) if data else None
    return _scope_of(user, user_path, ws)


def _scope_of(user: _User | None, user_path: str, ws: Workspace) -> Layer | None:
    """The user's rules for the workspace's root: those written for it as given and for it with its
    links resolved, both."""
    if user is None or not user.scopes:
        return None
    found = [
        user.scopes[r] for r in dict.fromkeys((os.path.normpath(ws.root), ws.real_root)) if r in user.scopes
    ]
    if not found:
        return None
    allow, ask, deny = (tuple(rule for rules in found for rule in getattr(rules, kind)) for kind in _KINDS)
    return Layer.scoped(user_path, ws.real_root, allow=allow, ask=ask, deny=deny)


def _user_sandbox(sandbox: SandboxConfig, path: str) -> SandboxConfig:
    """The user's sandbox with each writable path absolute (`~` expanded, normalised)."""
    paths = []
    for index, raw in enumerate(sandbox.writable):
        full = os.path.expanduser(raw)
        if not os.path.isabs(full):
            raise ConfigError(f"{path}: sandbox.writable[{index}]: {raw!r}: the home directory is not known")
        paths.append(os.path.normpath(full))
    return sandbox._replace(writable=tuple(paths))


def _project_requires(value: object, path: str, user_path: str) -> bool:
    """A project's `sandbox`: it may only make the sandbox required."""
    if value in ("require", {"mode": "require"}):
        return True
    raise ConfigError(
        f'{path}: sandbox: a project file may only set sandbox = "require" (a repository cannot loosen '
        f"or redirect the sandbox); put other sandbox settings in your own config ({user_path})"
    )


def _first_field(name: str, value: object) -> str:
    """The dotted name of the first value in a table (`harness.slots.trigger`), to name what a
    file may not set."""
    while isinstance(value, dict) and value:
        key, value = next(iter(value.items()))
        name += f".{key}"
    return name


def _read_project(ws: Workspace, user_path: str) -> tuple[PolicySection, RuleLists, str, bool] | None:
    path = os.path.join(ws.root, PROJECT_CONFIG)
    try:
        ws.lstat(os.path.dirname(PROJECT_CONFIG))
    except FileNotFoundError:
        return None  # most directories, settled by one lstat: no .bastion at all
    except OSError:
        pass  # the walk below says what is wrong
    found = resolve(ws, ".", PROJECT_CONFIG)
    if not found.ok:
        raise ConfigError(f"{path}: {found.why}")
    if not found.exists:
        return None
    if not found.is_regular:
        raise ConfigError(f"{path}: not a regular file")
    try:
        data = ws.read(found.real, MAX_PROJECT_CONFIG_BYTES + 1)
    except (WorkspaceError, OSError) as err:
        raise ConfigError(f"{path}: cannot be read ({err})") from None
    if len(data) > MAX_PROJECT_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_PROJECT_CONFIG_BYTES} bytes")
    return _project_data(data, path, user_path)


@functools.lru_cache(maxsize=64)
def _project_data(data: bytes, path: str, user_path: str) -> tuple[PolicySection, RuleLists, str, bool]:
    """What the project's file holds, a pure function of its bytes (and the paths its errors name).
    Raises ConfigError, which is not remembered."""
    raw = parse_toml(data, path)
    if "harness" in raw:
        raise ConfigError(
            f"{path}: {_first_field('harness', raw['harness'])}: a project file may not select or load "
            f"harness components (a repository cannot choose the code that runs your turns); put it in "
            f"your own config ({user_path})"
        )
    requires = "sandbox" in raw and _project_requires(raw.pop("sandbox"), path, user_path)
    for key in _YOURS_ALONE:
        if key in raw:
            raise ConfigError(
                f"{path}: {key}: a project file may not add skills or choose the memory (what the model "
                f"is told and what it remembers are yours to choose, not a repository's); put it in "
                f"your own config ({user_path})"
            )
    if "projects" in raw:
        raise ConfigError(
            f"{path}: {_first_field('projects', raw['projects'])}: a project file may not scope rules to "
            f"a project (a repository cannot allow itself anything); put it in your own config ({user_path})"
        )
    for key in raw:
        if key != "policy":
            raise ConfigError(
                f"{path}: {key}: a project file may not set {key}; put it in your own config ({user_path})"
            )
    section = read_project(raw, path).policy
    if section.allow:
        raise ConfigError(
            f"{path}: policy.allow: a project file may not allow anything; "
            f"put allow rules in your own config ({user_path})"
        )
    if section.fallback == "allow":
        raise ConfigError(f"{path}: policy.fallback: a project file may only make the fallback ask or deny")
    return section, _rules(section, data.decode("utf-8"), path, project=True), path, requires


def load_settings(
    ws: Workspace,
    user_config: str | None = None,
    *,
    flags: PolicyFlags | None = None,
    project_config: bool = True,
) -> Settings:
    """The settings for a session in `ws`; `project_config` False: the project's file is not read
    at all (its rules do not apply, nor its errors). Raises ConfigError naming the file and the
    field (ProjectConfigError for the project's file)."""
    user_path = os.path.expanduser(user_config) if user_config else user_config_path()
    user, user_found = _read_user(user_path, explicit=user_config is not None)
    try:
        project = _read_project(ws, user_path) if project_config else None
    except ConfigError as err:
        raise ProjectConfigError(str(err), os.path.join(ws.root, PROJECT_CONFIG)) from None
    flags = flags or PolicyFlags()

    section = user.policy if user is not None else None
    rules = user.rules if user is not None else RuleLists()
    own_builtin = section is None or section.builtin is not False
    builtin = flags.builtin if flags.builtin is not None else own_builtin
    fallback = _FALLBACKS[flags.fallback or (section.fallback if section is not None else None) or "ask"]
    layers = [Layer.user(user_path, allow=rules.allow, ask=rules.ask, deny=rules.deny)]
    scope = _scope_of(user, user_path, ws)
    if scope is not None:
        layers.append(scope)
    sources = [user_path] if user_found else []
    sandbox = _user_sandbox(user.sandbox, user_path) if user is not None else SandboxConfig()
    if project is not None:
        tighten, tightening, project_path, requires = project
        if requires:
            sandbox = sandbox._replace(mode="require")
        if tighten.builtin is False:
            builtin = False
        if tighten.fallback is not None:
            fallback = max(fallback, _FALLBACKS[tighten.fallback])
        layers.append(Layer.project(project_path, ask=tightening.ask, deny=tightening.deny))
        sources.append(project_path)
    if flags.allow or flags.ask or flags.deny:
        layers.append(Layer.flags(allow=flags.allow, ask=flags.ask, deny=flags.deny))
        sources.append("flags")
    try:
        policy = Policy.shared(layers, builtin=builtin, fallback=fallback, roots=(ws.root, ws.real_root))
    except RuleError as err:
        raise ConfigError(str(err)) from None
    if user is None:
        return Settings(
            policy, (), DEFAULT_MAX_READ_BYTES, tuple(sources), AgentConfig(), sandbox, user_path, scope
        )
    return Settings(
        policy, user.pass_env, user.max_read_bytes, tuple(sources), user.agent, sandbox, user_path, scope
    )

"""Settings from three layers: the user's TOML config, the project's `.bastion/config.toml`, flags.

The user's file is trusted: its policy rules rank 2, and it alone sets `pass_env`, `max_read_bytes`,
the sandbox's writable paths and network, and the provider's keys (kept in `Settings.extra`,
uninterpreted, for the agent), and the agent's harness (`[harness]`: its slots, profiles and
components). The project's file comes from a repository, so it is read through the
workspace (a link out, a FIFO, a file over 1 MiB is an error) and may only tighten: ask and deny
rules without carve-outs, `builtin = false`, a fallback of ask or deny that applies only when
stricter, and `sandbox = "require"` (skills, skills_dirs, memory and memory_dir are refused by
name: a repository cannot add what the model is told or choose what it remembers). Flags rank 3 and
override the user's file.

Both files are read again every time settings are loaded (a dry-run loads them for every request,
so a changed project config is seen at once); what a file's bytes mean is remembered per bytes (a
pure function of them), and the policy is built once per process for the rules they hold
(`Policy.shared`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from bastion._files import NotRegularFile, is_null_device, read_regular
from bastion._handover import user_config_path
from bastion.analyzer import DEFAULT_MAX_READ_BYTES
from bastion.sandbox import SandboxConfig
from bastion.workspace import Workspace, WorkspaceError, resolve

from ._engine import Layer, Policy
from ._rules import ConfigError, RuleError, parse_rule
from ._types import Decision

__all__ = [
    "PROJECT_CONFIG",
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

Fallback = Literal["allow", "ask", "deny"]

if TYPE_CHECKING:
    from ._plain import Section, UserData
    from ._schema import Strict


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
    """What a session runs under. `sources` lists the files read, for display."""

    policy: Policy
    pass_env: tuple[str, ...] = ()
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES
    sources: tuple[str, ...] = ()
    extra: Mapping[str, Any] = MappingProxyType({})
    sandbox: SandboxConfig = SandboxConfig()


def _field(loc: Sequence[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(top level)"


def _model_in(annotation: object) -> type[Strict] | None:
    """The config model an annotation holds (itself, or inside `X | None`, `dict[str, X]`)."""
    from typing import get_args

    from ._schema import Strict

    if isinstance(annotation, type) and issubclass(annotation, Strict):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _close_field(model: type[Strict], loc: Sequence[int | str]) -> str | None:
    """The field of the table an unknown key stands in that is spelled most like it."""
    import difflib

    table: type[Strict] | None = model
    for part in loc[:-1]:
        field = table.model_fields.get(part) if isinstance(part, str) and table is not None else None
        if field is not None:  # else a list index or a table's own key ([pricing."MODEL"])
            table = _model_in(field.annotation)
    if table is None or not loc:
        return None
    close = difflib.get_close_matches(str(loc[-1]), list(table.model_fields), n=1, cutoff=0.6)
    return ".".join([*(str(p) for p in loc[:-1]), close[0]]) if close else None


def _validate(model: type[Strict], data: dict[str, Any], path: str) -> Any:
    # pydantic is imported here, when a file is not plainly valid (_plain.py): a dry-run without a
    # config, or with a plain one, does not pay for building the models.
    from pydantic import ValidationError

    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = _field(first["loc"])
        if first["type"] == "extra_forbidden":
            close = _close_field(model, first["loc"])
            hint = f"; did you mean {close}?" if close else ""
            raise ConfigError(f"{path}: {where}: unknown field{hint}") from None
        raise ConfigError(f"{path}: {where}: {first['msg']}") from None


def _parse_toml(data: bytes, path: str) -> dict[str, Any]:
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


def _check_rules(section: Section, path: str, *, project: bool) -> None:
    """Parse every rule now, so an error names its entry (and column) in the file."""
    for kind in ("allow", "ask", "deny"):
        for index, text in enumerate(getattr(section, kind)):
            where = f"policy.{kind}[{index}]"
            try:
                rule = parse_rule(text)
            except RuleError as err:
                raise ConfigError(f"{path}: {err.located(where)}") from None
            if project and rule.carve_out:
                raise ConfigError(
                    f"{path}: {where}: {text!r}: a project file may not carve anything out (column "
                    f"{len(rule.tool) + 2}); put carve-outs in your own config"
                )


def _read_user(path: str, explicit: bool) -> tuple[UserData | None, bool]:
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
def _user_data(data: bytes, path: str) -> UserData | None:
    """What the user's file holds (None: nothing), a pure function of its bytes (and the path its
    errors name). Raises ConfigError, which is not remembered."""
    raw = _parse_toml(data, path)
    if not raw:
        return None
    from ._plain import UserData, plain_user  # only for a file with content

    user = plain_user(raw)
    if user is None:
        from ._schema import UserFile

        user = UserData.of(_validate(UserFile, raw, path))
    _check_rules(user.policy, path, project=False)
    return user


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


def _read_project(ws: Workspace, user_path: str) -> tuple[Section, str, bool] | None:
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
def _project_data(data: bytes, path: str, user_path: str) -> tuple[Section, str, bool]:
    """What the project's file holds, a pure function of its bytes (and the paths its errors name).
    Raises ConfigError, which is not remembered."""
    raw = _parse_toml(data, path)
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
    for key in raw:
        if key != "policy":
            raise ConfigError(
                f"{path}: {key}: a project file may not set {key}; put it in your own config ({user_path})"
            )
    from ._plain import Section, plain_project

    section = plain_project(raw)
    if section is None:
        from ._schema import ProjectFile

        section = Section.of(_validate(ProjectFile, raw, path).policy)
    if section.allow:
        raise ConfigError(
            f"{path}: policy.allow: a project file may not allow anything; "
            f"put allow rules in your own config ({user_path})"
        )
    if section.fallback == "allow":
        raise ConfigError(f"{path}: policy.fallback: a project file may only make the fallback ask or deny")
    _check_rules(section, path, project=True)
    return section, path, requires


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
    allow, ask, deny = (section.allow, section.ask, section.deny) if section is not None else ((), (), ())
    own_builtin = section is None or section.builtin is not False
    builtin = flags.builtin if flags.builtin is not None else own_builtin
    fallback = _FALLBACKS[flags.fallback or (section.fallback if section is not None else None) or "ask"]
    layers = [Layer.user(user_path, allow=allow, ask=ask, deny=deny)]
    sources = [user_path] if user_found else []
    sandbox = _user_sandbox(user.sandbox, user_path) if user is not None else SandboxConfig()
    if project is not None:
        tighten, project_path, requires = project
        if requires:
            sandbox = sandbox._replace(mode="require")
        if tighten.builtin is False:
            builtin = False
        if tighten.fallback is not None:
            fallback = max(fallback, _FALLBACKS[tighten.fallback])
        layers.append(Layer.project(project_path, ask=tighten.ask, deny=tighten.deny))
        sources.append(project_path)
    if flags.allow or flags.ask or flags.deny:
        layers.append(Layer.flags(allow=flags.allow, ask=flags.ask, deny=flags.deny))
        sources.append("flags")
    try:
        policy = Policy.shared(layers, builtin=builtin, fallback=fallback, roots=(ws.root, ws.real_root))
    except RuleError as err:
        raise ConfigError(str(err)) from None
    if user is None:
        return Settings(policy, (), DEFAULT_MAX_READ_BYTES, tuple(sources), {}, sandbox)
    extra = MappingProxyType(user.extra)  # remembered with the file's bytes: read only
    return Settings(policy, user.pass_env, user.max_read_bytes, tuple(sources), extra, sandbox)

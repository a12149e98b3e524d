"""The user's `[harness]` settings, and the components loaded from the modules and entry points it
names: each registers through a Registrar, whose `use`, `wrap` and `fallback` check the component's
interface against the slot's before anything of its module is kept."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from ...._errors import BastionError
from ....config import AgentConfig
from ._slots import INTERFACES

__all__ = [
    "HarnessConfig",
    "HarnessError",
    "Registered",
    "Registrar",
    "harness_config",
    "load_components",
    "one_line",
]

# The entry-point group an installed package names its harness components in.
ENTRY_POINT_GROUP = "bastion.harness"
# How long a component may take to answer before the default answers instead (seconds).
DEFAULT_TIMEOUT = 5.0

How = Literal["use", "wrap", "fallback"]


class HarnessError(BastionError):
    """A component refused at load: an unknown slot, a missing id or run, another interface version."""


class HarnessConfig(NamedTuple):
    """The user config's [harness] table; `where` is the file it came from."""

    slots: Mapping[str, str] = MappingProxyType({})
    profiles: Mapping[str, Mapping[str, str]] = MappingProxyType({})
    profile: str | None = None
    modules: tuple[str, ...] = ()
    entry_points: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    where: str = "config"


def harness_config(config: AgentConfig, where: str = "config") -> HarnessConfig:
    """The [harness] table of the user's file (its types checked by the config's table)."""
    raw = config.harness
    if raw is None:
        return HarnessConfig(where=where)
    profiles = {name: MappingProxyType(dict(slots)) for name, slots in raw.profiles.items()}
    return HarnessConfig(
        MappingProxyType(dict(raw.slots)),
        MappingProxyType(profiles),
        raw.profile,
        raw.modules,
        raw.entry_points,
        raw.timeout,
        where,
    )


class Registered(NamedTuple):
    """One registration: how (`use` selects, `wrap` surrounds, `fallback` backs up), the component
    (its interface checked) and where it came from ("module NAME", "entry point NAME")."""

    slot: str
    how: How
    component: Any
    origin: str


def one_line(err: BaseException) -> str:
    """An exception as one line: its type and its message, whitespace runs made one space."""
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def check_component(slot: str, component: object, origin: str) -> str:
    """The component's id, once it is known to fill `slot` in this bastion; else HarnessError."""
    if slot not in INTERFACES:
        raise HarnessError(f"{origin}: {slot!r} is not a slot (slots: {', '.join(INTERFACES)}); refused")
    ident = getattr(component, "id", None)
    if not isinstance(ident, str) or not ident.strip() or not ident.isprintable():
        raise HarnessError(f"{origin}: a {slot} component without an id (a printable string); refused")
    interface = getattr(component, "interface", None)
    if interface != INTERFACES[slot]:
        raise HarnessError(
            f"component {ident!r} ({origin}) implements {interface!r}, but this bastion's {slot} "
            f"slot is {INTERFACES[slot]}; refused"
        )
    if not callable(getattr(component, "run", None)):
        raise HarnessError(f"component {ident!r} ({origin}) has no run method; refused")
    return ident


class Registrar:
    """What a component module's `register(harness)` is given. Registrations are kept only if the
    whole `register` succeeds; `activate_profile` may be kept and called at any later time."""

    def __init__(self, origin: str, activate: Callable[[str], bool]) -> None:
        self.origin = origin
        self._activate = activate
        self.staged: list[Registered] = []

    def _stage(self, slot: str, how: How, component: object) -> None:
        check_component(slot, component, self.origin)
        self.staged.append(Registered(slot, how, component, self.origin))

    def use(self, slot: str, component: object) -> None:
        """Offer `component` for `slot` and select it (a config or profile naming another id wins)."""
        self._stage(slot, "use", component)

    def wrap(self, slot: str, component: object) -> None:
        """Surround the slot's selected implementation: `component.run(given, inner)`."""
        self._stage(slot, "wrap", component)

    def fallback(self, slot: str, component: object) -> None:
        """Answer for the slot when its selected implementation fails (before the built-in default)."""
        self._stage(slot, "fallback", component)

    def activate_profile(self, name: str) -> bool:
        """Switch to the named profile from the next turn on, whole or not at all (False, warned)."""
        return self._activate(name)


def _register_function(target: object, origin: str) -> Callable[[Registrar], object]:
    found = target if callable(target) else getattr(target, "register", None)
    if not callable(found):
        raise HarnessError(f"{origin}: has no register(harness) function; not loaded")
    return found


def _entry_point(name: str) -> object:
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP, name=name)
    if not found:
        raise HarnessError(f"entry point {name}: no installed package names it in {ENTRY_POINT_GROUP!r}")
    return next(iter(found)).load()


def load_components(
    config: HarnessConfig, activate: Callable[[str], bool], warn: Callable[[str], None]
) -> list[Registered]:
    """Every component the config names, in order: its modules, then its entry points. One that
    cannot be loaded or registered is left out whole, with one line to `warn`."""
    loaded: list[Registered] = []
    sources: list[tuple[str, str, Callable[[str], object]]]
    sources = [(f"module {name}", name, importlib.import_module) for name in config.modules]
    sources += [(f"entry point {name}", name, _entry_point) for name in config.entry_points]
    for origin, name, load in sources:
        registrar = Registrar(origin, activate)
        try:
            register = _register_function(load(name), origin)
            register(registrar)
        except HarnessError as err:
            warn(f"harness: {err}")
            continue
        except (Exception, SystemExit) as err:  # a module's own failure, even sys.exit, stops only it
            warn(f"harness: {origin}: not loaded: {one_line(err)}")
            continue
        loaded.extend(registrar.staged)
    return loaded

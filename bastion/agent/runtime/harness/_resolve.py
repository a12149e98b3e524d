"""The resolver: which implementation fills each slot, and where that choice came from. A turn
resolves it once into a Snapshot (immutable) and reads only that; `bastion runtime graph` prints
the same Snapshot.

Precedence per slot: the active profile, then the config's [harness.slots], then the last
component registered with `use`, then the built-in default. An unknown slot or id warns once and
is passed over. A profile is applied whole or not at all: one unknown slot or id in it and it is
not applied (warned), so no turn ever sees half of it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from ._builtin import BUILTIN, DEFAULTS, Builtin
from ._load import HarnessConfig, Registered, load_components
from ._slots import SLOTS

__all__ = ["Harness", "Origin", "Resolved", "Snapshot", "load_harness", "origin_words"]

OriginKind = Literal["built-in", "config", "profile", "component"]


class Origin(NamedTuple):
    """Where a slot's choice came from: `name` is the profile's name or the component's origin."""

    kind: OriginKind
    name: str = ""


def origin_words(origin: Origin, where: str) -> str:
    """An origin as the graph says it (`where`: the user's config file)."""
    if origin.kind == "built-in":
        return "built-in default"
    if origin.kind == "config":
        return f"config harness.slots ({where})"
    if origin.kind == "profile":
        return f"profile {origin.name!r}"
    return f"component ({origin.name})"


class Resolved(NamedTuple):
    """One slot of a snapshot: the chosen implementation with its wraps (innermost first), the
    fallback component if one was registered, and the built-in default behind them all."""

    slot: str
    id: str
    origin: Origin
    implementation: Any
    wraps: tuple[Registered, ...]
    fallback: Registered | None
    default: Builtin

    @property
    def builtin_only(self) -> bool:
        """Only bastion's own code answers: it is called directly, with no guard."""
        return isinstance(self.implementation, Builtin) and not self.wraps


class Snapshot(NamedTuple):
    """What one turn runs with. `profile`: the profile active when it was taken."""

    slots: Mapping[str, Resolved]
    timeout: float
    profile: str | None
    where: str


class Harness:
    """The slots' registry and selection for a session. Only `activate_profile` changes it after
    load, by one assignment, so a snapshot taken at any moment is whole."""

    def __init__(
        self, config: HarnessConfig | None = None, warn: Callable[[str], None] | None = None
    ) -> None:
        self.config = config or HarnessConfig()
        self._warn = warn or (lambda _text: None)
        self._warned: set[str] = set()
        self._lock = threading.Lock()
        self._known: dict[str, dict[str, tuple[Any, Origin]]] = {
            slot: {ident: (b, Origin("built-in")) for ident, b in BUILTIN[slot].items()} for slot in SLOTS
        }
        self._used: dict[str, str] = {}
        self._wraps: dict[str, list[Registered]] = {slot: [] for slot in SLOTS}
        self._fallbacks: dict[str, Registered] = {}
        self._profile: str | None = None

    def warn_once(self, text: str) -> None:
        with self._lock:
            if text in self._warned:
                return
            self._warned.add(text)
        self._warn(text)

    def register(self, components: Iterable[Registered]) -> None:
        """Add loaded components (their interfaces already checked)."""
        for r in components:
            ident = r.component.id
            if r.how == "wrap":
                self._wraps[r.slot].append(r)
            elif r.how == "fallback":
                self._fallbacks[r.slot] = r
            elif ident in self._known[r.slot]:
                taken = self._known[r.slot][ident][1]
                by = "a built-in" if taken.kind == "built-in" else taken.name
                self.warn_once(f"harness: component {ident!r} ({r.origin}): id taken by {by}; refused")
            else:
                self._known[r.slot][ident] = (r.component, Origin("component", r.origin))
                self._used[r.slot] = ident

    def _problem(self, slot: str, ident: str) -> str | None:
        if slot not in self._known:
            return f"no slot named {slot!r} (slots: {', '.join(SLOTS)})"
        if ident not in self._known[slot]:
            return f"no {slot} named {ident!r} (known: {', '.join(self._known[slot])})"
        return None

    def activate_profile(self, name: str) -> bool:
        """Make `name` the active profile for the turns that start from now on, if every entry of
        it is a known slot and id; else warn (each time: it is asked for) and change nothing."""
        profiles = self.config.profiles
        if name not in profiles:
            known = ", ".join(profiles) or "none"
            where = self.config.where
            self._warn(f"harness: profile {name!r} is not in {where} (profiles: {known}); not applied")
            return False
        for slot, ident in profiles[name].items():
            problem = self._problem(slot, ident)
            if problem is not None:
                self._warn(
                    f"harness: profile {name!r} not applied (nothing of it): "
                    f"harness.profiles.{name}.{slot}: {problem}"
                )
                return False
        self._profile = name
        return True

    def restore_profile(self, name: str) -> bool:
        """Apply again the profile a resumed session last switched to. One the config no longer
        has is warned about (once) and the config's own selection kept."""
        if name not in self.config.profiles:
            known = ", ".join(self.config.profiles) or "none"
            self.warn_once(
                f"harness: the resumed session's profile {name!r} is not in {self.config.where} "
                f"(profiles: {known}); the config's selection is kept"
            )
            return False
        return self.activate_profile(name)

    @property
    def profile(self) -> str | None:
        return self._profile

    def _choose(self, slot: str, profile: str | None) -> tuple[str, Origin]:
        if profile is not None and slot in self.config.profiles[profile]:
            return self.config.profiles[profile][slot], Origin("profile", profile)
        chosen = self.config.slots.get(slot)
        if chosen is not None:
            problem = self._problem(slot, chosen)
            if problem is None:
                return chosen, Origin("config")
            self.warn_once(f"harness: {self.config.where}: harness.slots.{slot}: {problem}; passed over")
        used = self._used.get(slot)
        if used is not None:
            return used, self._known[slot][used][1]
        return DEFAULTS[slot].id, Origin("built-in")

    def snapshot(self) -> Snapshot:
        """Resolve every slot once, as a turn starting now runs them."""
        profile = self._profile
        for slot in self.config.slots:
            if slot not in SLOTS:
                problem = self._problem(slot, "")
                self.warn_once(f"harness: {self.config.where}: harness.slots.{slot}: {problem}; ignored")
        resolved = {}
        for slot in SLOTS:
            ident, origin = self._choose(slot, profile)
            resolved[slot] = Resolved(
                slot,
                ident,
                origin,
                self._known[slot][ident][0],
                tuple(self._wraps[slot]),
                self._fallbacks.get(slot),
                DEFAULTS[slot],
            )
        return Snapshot(MappingProxyType(resolved), self.config.timeout, profile, self.config.where)


def load_harness(config: HarnessConfig, warn: Callable[[str], None]) -> Harness:
    """The session's harness: the config's components loaded and registered, its profile applied,
    and its selection resolved once so that what is wrong with it is said at start."""
    harness = Harness(config, warn)
    harness.register(load_components(config, harness.activate_profile, warn))
    if config.profile is not None:
        harness.activate_profile(config.profile)
    harness.snapshot()
    return harness

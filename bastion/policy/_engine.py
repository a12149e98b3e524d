"""The engine: rules from ranked sources, decided per subject, folded per call.

Per subject: the first matching deny rule denies; else the first matching ask rule asks (unless
nothing allows the subject and the fallback denies: an ask rule never loosens); else the first
matching allow rule allows; else the fallback decides (a pseudo-tool's subject asks instead).
Lists are searched highest rank first, so the rule cited is the most authoritative one. A rule is
cancelled for a subject by a carve-out in the same list, for the same tool, from a source ranking
at least as high, that matches it. A call's verdict is its most restrictive subject's (first of
equals); no subjects, or an exception anywhere in here, asks.

Sentinel subjects (the analyzer could not vouch for them: their kind is not plain) are matched by a
restrictive rule (deny, ask) on the value, or on the value behind the prefix `$(...) ` (so a rule may
name every sentinel); a loosening rule (allow, carve-out) meets one only when it is bare or its
pattern matches everything, and a shipped allow never does. A subject that cannot be judged at all
(a pseudo-tool's: a path outside the workspace...) is named by rules as its `rule_tool`.

A policy is a pure function of its layers, `builtin`, `fallback` and (only for a rule whose path
pattern is absolute) the workspace's roots: `Policy.shared` builds it once per process and hands
the same one, memos and all, to every directory it fits, and each layer's rules are compiled once.
"""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

from ._match import Matcher, matcher_for, names_a_root
from ._rules import Rule, RuleError, parse_rule
from ._shipped import ALIASES, LIFTED_TOOLS, MEMORY_ASK, MEMORY_NOTE, SECRET_NOTE, SHIPPED_ALLOW, SHIPPED_ASK
from ._tools import MCP_PREFIX, MCP_TOOL
from ._types import BUILTIN, FLAGS, Decision, Origin, Source, Subject, Verdict
from ._words import by_fallback, by_rule, unconstrained, unjudged

__all__ = ["Layer", "Policy", "lifted_by"]

_LISTS = ("deny", "ask", "allow")

# How many decided subjects a policy remembers before it starts over.
_MEMO_SIZE = 4096

# What a restrictive rule may match a sentinel's value behind: `deny: bash($(...) *)` names them all.
_SENTINEL_PREFIX = "$(...) "
# How many policies of other layers (another project's config, another user config) a process keeps.
_SHARED = 64


# A layer's rule: parsed when its file was read (knowing where it was written), or a text parsed
# when the layer is built (flags, a skill's grant, a test's).
Entry = Rule | str


class Layer(NamedTuple):
    """The rules of one source. `source` is what a verdict's `source` says; `label` is how a reason
    names it; an untrusted layer's allow rules are never used; `lifts`: a trusted layer's allow
    rule with a specifier also lifts the shipped asks it names (not a skill's grant)."""

    source: Source
    rank: int
    trusted: bool
    label: str
    allow: Sequence[Entry] = ()
    ask: Sequence[Entry] = ()
    deny: Sequence[Entry] = ()
    note: str = ""  # shown after the reasons its ask rules give
    lifts: bool = True

    @classmethod
    def user(
        cls, path: str, *, allow: Sequence[Entry] = (), ask: Sequence[Entry] = (), deny: Sequence[Entry] = ()
    ) -> Layer:
        source = Source(Origin.USER, path)
        return cls(source, 2, True, f"your config ({path})", tuple(allow), tuple(ask), tuple(deny))

    @classmethod
    def scoped(
        cls,
        path: str,
        root: str,
        *,
        allow: Sequence[Entry] = (),
        ask: Sequence[Entry] = (),
        deny: Sequence[Entry] = (),
    ) -> Layer:
        """The user's rules for one project (its [projects."ROOT".policy]): the user's source and rank."""
        source = Source(Origin.USER, path)
        label = f"your config ({path}) for {root}"
        return cls(source, 2, True, label, tuple(allow), tuple(ask), tuple(deny))

    @classmethod
    def project(cls, path: str, *, ask: Sequence[Entry] = (), deny: Sequence[Entry] = ()) -> Layer:
        source = Source(Origin.PROJECT, path)
        return cls(source, 0, False, f"the project config ({path})", (), tuple(ask), tuple(deny))

    @classmethod
    def flags(
        cls, *, allow: Sequence[Entry] = (), ask: Sequence[Entry] = (), deny: Sequence[Entry] = ()
    ) -> Layer:
        return cls(FLAGS, 3, True, "flags", tuple(allow), tuple(ask), tuple(deny))

    @property
    def shipped(self) -> bool:
        return self.source.kind is Origin.BUILTIN


@functools.cache
def _shipped_layers(builtin: bool) -> tuple[Layer, ...]:
    """The shipped rules, as two layers of the source BUILTIN (one for each note its asks give)."""
    return (
        Layer(BUILTIN, 1, True, "builtin", SHIPPED_ALLOW if builtin else (), SHIPPED_ASK, (), SECRET_NOTE),
        Layer(BUILTIN, 1, True, "builtin", (), MEMORY_ASK, (), MEMORY_NOTE),
    )


class _Compiled(NamedTuple):
    rule: Rule  # as written (an alias's one rule per tool all cite it)
    tool: str
    tool_regex: re.Pattern[str] | None
    matcher: Matcher | None
    carve_out: bool
    layer: Layer
    note: str
    lift: bool = False  # a carve-out a user's allow rule implies: it lifts shipped asks only

    @property
    def shipped(self) -> bool:
        return self.layer.shipped

    def names(self, tool: str) -> bool:
        if self.tool_regex is not None:
            return self.tool_regex.fullmatch(tool) is not None
        return self.tool == tool

    def matches(self, subject: Subject, *, loosening: bool) -> bool:
        if not subject.sentinel:
            return self.matcher is None or self.matcher(subject.value)
        if loosening:
            if self.shipped:
                return False
            return self.matcher is None or self.matcher.everything
        return (
            self.matcher is None
            or self.matcher(subject.value)
            or self.matcher(_SENTINEL_PREFIX + subject.value)
        )


def _compile(rule: Rule, layer: Layer, kind: str, roots: Sequence[str]) -> list[_Compiled]:
    if rule.tool_glob:
        if kind == "allow":
            raise RuleError(
                rule.text, "tool_glob", rule.tool.index("*") + 1, "an allow rule must name its tool"
            )
        regex = re.compile(".*".join(re.escape(p) for p in re.split(r"\*+", rule.tool)), re.DOTALL)
        return [_Compiled(rule, rule.tool, regex, None, False, layer, "")]
    if kind == "allow" and rule.tool.startswith(MCP_PREFIX):
        raise RuleError(rule.text, "mcp_tool_name", 1, "an allow rule names an MCP tool as mcp(SERVER:TOOL)")
    compiled = []
    for tool in ALIASES.get(rule.tool, (rule.tool,)):
        matcher = None
        if rule.pattern is not None:
            matcher = matcher_for(tool, rule.pattern, roots=roots, shipped=layer.shipped)
            if matcher is None and tool == MCP_TOOL:
                raise RuleError(
                    rule.text,
                    "mcp_specifier",
                    len(rule.tool) + 2,
                    "write mcp(SERVER:TOOL): a server's name, then a tool's name or glob",
                )
            if matcher is None:
                raise RuleError(
                    rule.text,
                    "no_matcher",
                    len(rule.tool) + 2,
                    f"{tool} has no matcher, so it takes no specifier",
                )
        note = layer.note if kind == "ask" else ""
        compiled.append(_Compiled(rule, tool, None, matcher, rule.carve_out, layer, note))
    return compiled


def _cancels(carve_out: _Compiled, rule: _Compiled, subject: Subject) -> bool:
    # A lift is an allow's doing, and a constraint subject is never opened by an allow: a file a
    # project's skill reads asks under `allow: read(.env)` as it does without it.
    return (
        carve_out.tool == rule.tool
        and carve_out.layer.rank >= rule.layer.rank
        and (rule.shipped or not carve_out.lift)
        and not (carve_out.lift and subject.constraint)
        and carve_out.matches(subject, loosening=True)
    )


def lifted_by(rule: Rule) -> list[str]:
    """The carve-outs a user's allow rule adds to the ask list: it opens what it names."""
    if rule.specifier is None or rule.carve_out or rule.tool_glob:
        return []
    return [
        f"{tool}(!{rule.specifier})" for tool in ALIASES.get(rule.tool, (rule.tool,)) if tool in LIFTED_TOOLS
    ]


# The compiled rules of one layer per list, and the carve-outs its allow rules lift (for the ask list).
_LayerRules = tuple[dict[str, tuple["_Compiled", ...]], tuple["_Compiled", ...]]


@functools.lru_cache(maxsize=256)
def _compile_layer(layer: Layer, roots: tuple[str, ...]) -> _LayerRules:
    """A layer's rules, compiled once per process (a pure function of the layer and the roots)."""
    rules: dict[str, list[_Compiled]] = {kind: [] for kind in _LISTS}
    lifted_all: list[_Compiled] = []
    for kind in _LISTS:
        for index, entry in enumerate(getattr(layer, kind)):
            where = f"{layer.source.tag}: policy.{kind}[{index}]"
            lifts = kind == "allow" and layer.trusted and layer.lifts and not layer.shipped
            try:
                rule = _parsed(entry)
                compiled = _compile(rule, layer, kind, roots)
                lifted = [
                    c._replace(lift=True)
                    for text in (lifted_by(rule) if lifts else [])
                    for c in _compile(parse_rule(text), layer, "ask", roots)
                ]
            except RuleError as err:
                raise err.located(where) from None
            if kind != "allow" or layer.trusted:
                rules[kind].extend(compiled)
            lifted_all.extend(lifted)
    return {kind: tuple(found) for kind, found in rules.items()}, tuple(lifted_all)


@functools.lru_cache(maxsize=256)
def _names_a_root(layer: Layer) -> bool:
    """Whether a rule of the layer compiles differently in another workspace (an absolute path
    pattern is made root-relative); a rule that does not parse counts, so the build words it."""
    for kind in _LISTS:
        for entry in getattr(layer, kind):
            try:
                pattern = _parsed(entry).pattern
            except RuleError:
                return True
            if pattern is not None and names_a_root(pattern):
                return True
    return False


def _parsed(entry: Entry) -> Rule:
    """A layer's rule: as its file's reading parsed it, or a text parsed now. Raises RuleError."""
    return entry if isinstance(entry, Rule) else parse_rule(entry)


class _Found(NamedTuple):
    decision: Decision
    reason: str
    rule: Rule | None
    source: Source | None
    note: str = ""


class _Named:
    """The rules of one list naming one tool, with every pattern joined into one regex of named
    alternatives in rank order: a single fullmatch finds the first rule that matches a plain value
    (alternatives are tried in order). Case-folding patterns are joined apart, matched lowered."""

    __slots__ = ("bare", "carve_outs", "exact", "folded", "literal", "longest", "rules", "stems")

    def __init__(self, rules: list[_Compiled], carve_outs: list[_Compiled]) -> None:
        exact: list[str] = []
        folded: list[str] = []
        # A pattern without `*` is one value, and `STEM:*` with a literal stem is that value or it
        # followed by a space: both are looked up in a dict instead of joining the regex (whose
        # compilation a cold start would pay for on its first decision).
        self.literal: dict[str, int] = {}
        self.stems: dict[str, int] = {}
        for i, r in enumerate(rules):
            m = r.matcher
            if m is None:
                continue
            stem = m.pattern[:-2] if m.word_stem and m.pattern.endswith(":*") else ""
            if not m.fold_case and "*" not in m.pattern:
                self.literal.setdefault(m.pattern, i)
            elif not m.fold_case and stem and "*" not in stem:
                self.stems.setdefault(stem, i)
            else:
                (folded if m.fold_case else exact).append(f"(?P<r{i}>{m.source})")
        self.rules = rules
        self.carve_outs = carve_outs
        self.exact = _joined(exact)
        self.folded = _joined(folded)
        self.longest = max(map(len, self.stems), default=0)
        self.bare = next((i for i, r in enumerate(rules) if r.matcher is None), None)

    def first(self, value: str) -> _Compiled | None:
        found = [] if self.bare is None else [self.bare]
        for regex, text in ((self.exact, value), (self.folded, value.lower())):
            m = regex.fullmatch(text) if regex is not None else None
            if m is not None and m.lastgroup is not None:
                found.append(int(m.lastgroup[1:]))
        found += [i for i in (self.literal.get(value), self.stems.get(value)) if i is not None]
        end = value.find(" ") if self.stems else -1
        while 0 <= end <= self.longest:  # the stems a word boundary of the value ends
            i = self.stems.get(value[:end])
            if i is not None:
                found.append(i)
            end = value.find(" ", end + 1)
        return self.rules[min(found)] if found else None


def _joined(alternatives: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(alternatives), re.DOTALL) if alternatives else None


class Policy:
    """Decides subjects. Built from layers (the shipped one is always there); `builtin=False` drops
    the shipped allow rules; `fallback` decides what no rule names; `roots` are the workspace root
    as given and as resolved, so an absolute path rule inside it is made root-relative."""

    def __init__(
        self,
        layers: Sequence[Layer] = (),
        *,
        builtin: bool = True,
        fallback: Decision = Decision.ASK,
        roots: Sequence[str] = (),
    ) -> None:
        self.builtin = builtin
        self.fallback = Decision(fallback)
        given = [
            layer._replace(allow=tuple(layer.allow), ask=tuple(layer.ask), deny=tuple(layer.deny))
            for layer in layers
        ]
        self.roots = tuple(roots)
        self.layers = tuple(sorted([*given, *_shipped_layers(builtin)], key=lambda layer: -layer.rank))
        self._rules: dict[str, list[_Compiled]] = {kind: [] for kind in _LISTS}
        for layer in self.layers:
            rules, lifted = _compile_layer(layer, tuple(roots) if _names_a_root(layer) else ())
            for kind in _LISTS:
                self._rules[kind].extend(rules[kind])
            self._rules["ask"].extend(lifted)
        # Lift carve-outs were appended after their layer's turn; keep every list in rank order.
        for kind in _LISTS:
            self._rules[kind].sort(key=lambda c: -c.layer.rank)
        self._by_tool: dict[tuple[str, str], _Named] = {}
        # A subject's decision depends on nothing but the subject and these (fixed) rules.
        self._decided: dict[Subject, _Found] = {}
        self._lifts_every: dict[str, bool] = {}

    @classmethod
    def shared(
        cls,
        layers: Sequence[Layer] = (),
        *,
        builtin: bool = True,
        fallback: Decision = Decision.ASK,
        roots: Sequence[str] = (),
    ) -> Policy:
        """The policy of these layers, built once per process and shared by every workspace it fits
        (the roots are part of the key only when a rule names an absolute path); the last 64 kept."""
        fits = tuple(roots) if any(map(_names_a_root, (*layers, *_shipped_layers(builtin)))) else ()
        key = (tuple(layers), builtin, Decision(fallback), fits)
        found = _POLICIES.get(key)
        if found is not None:
            _POLICIES.move_to_end(key)
            return found
        found = _POLICIES[key] = cls(layers, builtin=builtin, fallback=fallback, roots=roots)
        while len(_POLICIES) > _SHARED:
            _POLICIES.popitem(last=False)
        return found

    def joined(self, *layers: Layer) -> Policy:
        """This policy with more layers (a trusted skill's grant), its other settings the same."""
        own = [layer for layer in self.layers if not layer.shipped]
        return Policy([*own, *layers], builtin=self.builtin, fallback=self.fallback, roots=self.roots)

    def lifts_every_secret(self, tool: str) -> bool:
        """Whether an allow rule of yours lifts the shipped asks for `tool` on every path (its
        pattern matches everything): only then is no secret-looking path asked for it."""
        found = self._lifts_every.get(tool)
        if found is None:
            found = self._lifts_every[tool] = any(
                c.lift and c.names(tool) and c.matcher is not None and c.matcher.everything
                for c in self._rules["ask"]
            )
        return found

    def _for(self, kind: str, tool: str) -> _Named:
        """The rules and the carve-outs of one list that name `tool`, in rank order."""
        key = (kind, tool)
        found = self._by_tool.get(key)
        if found is None:
            named = [c for c in self._rules[kind] if c.names(tool)]
            found = _Named([c for c in named if not c.carve_out], [c for c in named if c.carve_out])
            self._by_tool[key] = found
        return found

    def _first(self, kind: str, subject: Subject) -> _Compiled | None:
        named = self._for(kind, subject.rule_tool)
        if not subject.sentinel and not named.carve_outs:
            return named.first(subject.value)
        loosening = kind == "allow"
        for rule in named.rules:
            if rule.matches(subject, loosening=loosening) and not any(
                _cancels(c, rule, subject) for c in named.carve_outs
            ):
                return rule
        return None

    def _decide_one(self, subject: Subject) -> _Found:
        found = self._decided.get(subject)
        if found is None:
            if len(self._decided) >= _MEMO_SIZE:
                self._decided.clear()
            found = self._decided[subject] = self._search(subject)
        return found

    def _search(self, subject: Subject) -> _Found:
        if (rule := self._first("deny", subject)) is not None:
            reason = by_rule(Decision.DENY, rule.rule.text, rule.layer.label, subject, rule.note)
            return _Found(Decision.DENY, reason, rule.rule, rule.layer.source, rule.note)
        asked = self._first("ask", subject)
        if subject.constraint and asked is None:
            return _Found(Decision.ALLOW, unconstrained(subject), None, None)
        pseudo = subject.pseudo
        allowed = None if pseudo or subject.constraint else self._first("allow", subject)
        # An ask rule never loosens: where nothing allows and the fallback denies, it stays denied.
        if asked is not None and (
            allowed is not None or subject.constraint or self.fallback is not Decision.DENY
        ):
            reason = by_rule(Decision.ASK, asked.rule.text, asked.layer.label, subject, asked.note)
            return _Found(Decision.ASK, reason, asked.rule, asked.layer.source, asked.note)
        if allowed is not None:
            reason = by_rule(Decision.ALLOW, allowed.rule.text, allowed.layer.label, subject, allowed.note)
            return _Found(Decision.ALLOW, reason, allowed.rule, allowed.layer.source, allowed.note)
        if pseudo and self.fallback is not Decision.DENY:
            return _Found(Decision.ASK, unjudged(subject), None, None)
        return _Found(self.fallback, by_fallback(self.fallback, subject), None, None)

    def decide(self, subjects: Sequence[Subject]) -> Verdict:
        """The verdict of one call: its most restrictive subject's (first of equals)."""
        try:
            if not subjects:
                return Verdict(Decision.ASK, "asks: the call could not be evaluated (it has no subjects)")
            worst: tuple[_Found, Subject] | None = None
            for subject in subjects:
                found = self._decide_one(subject)
                if worst is None or found.decision > worst[0].decision:
                    worst = (found, subject)
            assert worst is not None
            found, subject = worst
            reason = found.reason
            if found.decision is Decision.DENY and len(subjects) > 1:
                reason += "; nothing in this call runs"
            return Verdict(found.decision, reason, found.rule, found.source, subject, found.note)
        except Exception as err:  # fail closed: an engine fault asks, never allows
            return Verdict(
                Decision.ASK, f"asks: the policy could not evaluate this call ({type(err).__name__})"
            )


_POLICIES: OrderedDict[tuple[tuple[Layer, ...], bool, Decision, tuple[str, ...]], Policy] = OrderedDict()

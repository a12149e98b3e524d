"""A fast twin of the hypothesis strategies for long runs: the same walk over the grammar's compiled
rules, with terminals sampled from their own regexps (via sre_parse) or from the same word pools,
driven by `random.Random` (hypothesis's engine costs ~50 ms a line; this costs ~0.1 ms), and the
same attack lines of issue 12 (strategies.hostile_line) when asked for."""

from __future__ import annotations

import random
import re
import sre_parse
from functools import cache
from typing import Any

from bastion.grammar import Plan, parse

from .strategies import ARG_POOL, COMMAND_POOL, _grammar, hostile_line

__all__ = ["RandomLines", "sample_regex"]

_MAX_REPEAT = 6


@cache
def _parsed(regexp: str) -> Any:
    return sre_parse.parse(regexp)


def sample_regex(rng: random.Random, regexp: str) -> str:
    """A random string the regexp (classes, literals, repeats, branches) matches in full."""
    return "".join(_sample(rng, _parsed(regexp)))


def _chars(items: list[tuple[Any, Any]]) -> list[str]:
    out: list[str] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "RANGE":
            out.extend(chr(x) for x in range(av[0], av[1] + 1))
        elif name == "NEGATE":
            raise ValueError("negated classes are not sampled")
        elif name == "CATEGORY":
            out.extend(" \t" if "SPACE" in str(av) else "0123456789" if "DIGIT" in str(av) else "a_Z9")
    return out


def _sample(rng: random.Random, pattern: Any) -> list[str]:
    out: list[str] = []
    for op, av in pattern:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(av))
        elif name == "IN":
            out.append(rng.choice(_chars(list(av))))
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, sub = av
            top = min(high, low + _MAX_REPEAT)
            for _ in range(rng.randint(low, top)):
                out.extend(_sample(rng, sub))
        elif name == "SUBPATTERN":
            out.extend(_sample(rng, av[-1]))
        elif name == "BRANCH":
            out.extend(_sample(rng, rng.choice(av[1])))
        elif name == "ANY":
            out.append(chr(rng.randint(0x20, 0x7E)))
        else:
            raise ValueError(f"regexp operator {name} is not sampled")
    return out


class RandomLines:
    """Lines of the subset from the grammar; `mode` and `stop` as in strategies.grammar_lines."""

    def __init__(self, seed: int, mode: str = "mixed", stop: int = 50, hostile: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.mode, self.stop, self.hostile = mode, stop, hostile
        self.rules, regexps = _grammar()
        self.regexps = {name: re.compile(r) for name, r in regexps.items()}
        self.pools = {name: self._fitting(name) for name in regexps}
        self.generated = 0
        self.rejected = 0

    def _fitting(self, name: str) -> list[str]:
        pool = COMMAND_POOL if name.startswith("CMD_") else ARG_POOL
        return sorted({w for w in (*pool, *ARG_POOL) if self.regexps[name].fullmatch(w)})

    def _terminal(self, name: str) -> str:
        pool = self.pools[name]
        if name in ("SEP", "AND", "PIPE") and self.rng.random() < 0.7:
            return {"SEP": " ", "AND": " && ", "PIPE": " | "}[name]
        if pool and self.mode != "free" and (self.mode == "pool" or self.rng.random() < 0.67):
            return self.rng.choice(pool)
        return sample_regex(self.rng, self.regexps[name].pattern)

    def _expand(self, symbol: str, depth: int) -> str:
        expansions = self.rules[symbol]
        if depth > 12 or len(expansions) == 1 or self.rng.randrange(100) < self.stop:
            choice = expansions[0]
        else:
            choice = self.rng.choice(expansions[1:])
        return "".join(self._terminal(n) if term else self._expand(n, depth + 1) for n, term in choice)

    def line(self) -> str:
        """One line that parses: from the grammar, or (a `hostile` fraction of the time) an attack
        of issue 12 (strategies.hostile_line)."""
        while True:
            if self.hostile and self.rng.random() < self.hostile:
                text = hostile_line(self.rng.choice)
            else:
                text = self._expand("start", 0)
            self.generated += 1
            if isinstance(parse(text), Plan):
                return text
            self.rejected += 1

"""The differential property of bastion's awk grammar at length: generated programs (fuzz/awkgen.py)
read by bastion and by mawk, gawk and busybox awk (fuzz/awk_readers.py).

    .venv/bin/python fuzz/awk_differential.py --seconds 600 [--seed 43] [--grammar FILE.lark]

For every program bastion accepts, each tool on the machine must read the same regular
expressions, divisions and built-in calls and nothing bastion never allows (busybox, which has no
dump, must make no file and print no canary). `--grammar` reads bastion's side with another grammar
file instead (built by lark as Earley over its basic lexer, as the grammar before this property
was): run with the old grammar, the property must fail. Prints each failure as it is found, and at
the end one JSON line: programs generated, accepted, compared by each tool, the refusals of each
tool (tolerated ones apart), failures, seconds. Exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.awk_readers import (  # noqa: E402
    Refused,
    bastion_reading,
    busybox_effects,
    differences,
    gawk_reading,
    mawk_reading,
    tool,
)
from fuzz.awkgen import RandomPick, program  # noqa: E402

Tokens = list[tuple[str, str]]


def bastion_tokens(grammar: str | None) -> Callable[[str], Tokens | None]:
    """The tokens bastion reads in a program it accepts (None when it refuses it)."""
    if grammar is None:
        # private: the grammar is the thing held to the tools
        from bastion.analyzer.commands._awk import AWK
        from bastion.grammar import Unexpected

        def current(text: str) -> Tokens | None:
            try:
                return [(t.type, str(t)) for t in AWK.parse(text).tokens()]
            except Unexpected:
                return None

        return current
    import lark

    other = lark.Lark(Path(grammar).read_text(encoding="utf-8"), parser="earley", lexer="basic")

    def read(text: str) -> Tokens | None:
        try:
            other.parse(text)
        except lark.exceptions.LarkError:
            return None
        return [(t.type, str(t)) for t in other.lex(text)]

    return read


def check(text: str, tokens: Tokens, tools: list[str], stats: Counter[str]) -> list[str]:
    """Where the tools on the machine read `text` otherwise than bastion's `tokens`."""
    found: list[str] = []
    for name, reader in (("mawk", mawk_reading), ("gawk", gawk_reading)):
        if name not in tools:
            continue
        theirs = reader(text)
        if isinstance(theirs, Refused):
            stats[f"{name} refused (tolerated)" if theirs.tolerated else f"{name} refused"] += 1
            if not theirs.tolerated:
                found.append(f"{name} refused it: {theirs.message}")
            continue
        stats[f"{name} compared"] += 1
        found += [f"{name}: {d}" for d in differences(bastion_reading(tokens, name), theirs)]
    if "busybox" in tools:
        effects = busybox_effects(text)
        if isinstance(effects, Refused):
            stats["busybox refused"] += 1
        else:
            stats["busybox run"] += 1
            found += [f"busybox {e}" for e in effects]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=43)
    parser.add_argument("--grammar", default=None, help="a grammar file to read bastion's side with")
    args = parser.parse_args(argv)
    tools = [name for name in ("mawk", "gawk", "busybox") if tool(name) is not None]
    read = bastion_tokens(args.grammar)
    rng = random.Random(args.seed)
    stats: Counter[str] = Counter()
    failures: list[dict[str, object]] = []
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        text = program(RandomPick(rng))
        stats["generated"] += 1
        tokens = read(text)
        if tokens is None:
            continue
        stats["accepted"] += 1
        stats["divisions"] += sum(1 for _, t in tokens if t == "/")
        stats["regexes"] += sum(1 for k, _ in tokens if k == "REGEX")
        if found := check(text, tokens, tools, stats):
            failures.append({"program": text, "differences": found})
            print(json.dumps(failures[-1]), flush=True)
    summary = {
        **stats,
        "tools": tools,
        "failures": len(failures),
        "seconds": round(time.monotonic() - started),
    }
    print(json.dumps(summary))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Property 2 at length: generated lines decided by the real gate, every allowed one run under strace.

    .venv/bin/python fuzz/readonly.py --seconds 1800 [--seed 11]
        [--fixtures all|config|hostile|class-N|NAME ...] [--hostile-lines 0.5] [--claude 0.25] [--tools 0.1]

Cycles through the fixtures (the benign one, the hostile-config entries and the hostile-repository
variants of fuzz/hostile.py; all of them by default; each class of variants gets an equal share),
with lines from the grammar walk and, a
`--hostile-lines` fraction of the time, the attack lines of issue 12; a `--claude` fraction of the
lines is run as Claude Code runs the answer of bastion's hook, and a `--tools` fraction of the
calls are file tool calls (grep, read, glob, ls) run by bastion's own tools. Prints each failure as it is
found, with the class of issue 12 it most likely belongs to (a failing line is re-run in the benign
fixture and by bastion: what fails only in a variant is that variant's class), and at the end one
JSON line: lines decided, allowed lines executed, failures, failures by class, seconds. Exit 1 when
anything failed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.execution import HOSTILE_SAMPLE, Fixture, Outcome, ReadOnlyRunner  # noqa: E402
from fuzz.hostile import VARIANTS  # noqa: E402
from fuzz.randgen import RandomLines  # noqa: E402
from fuzz.strategies import hostile_tool_call  # noqa: E402

GROUPS: dict[str, tuple[Fixture, ...]] = {
    "config": HOSTILE_SAMPLE,
    "hostile": (None, *VARIANTS),
    "all": (*HOSTILE_SAMPLE, *VARIANTS),
    **{
        f"class-{k}": tuple(n for n, v in VARIANTS.items() if v.klass == k)
        for k in sorted({v.klass for v in VARIANTS.values()})
    },
}


def fixtures(names: list[str]) -> tuple[Fixture, ...]:
    out: list[Fixture] = []
    for name in names:
        if name in GROUPS:
            out.extend(GROUPS[name])
        elif name in VARIANTS or name == "None":
            out.append(None if name == "None" else name)
        elif name.isdigit():
            out.append(int(name))
        else:
            raise SystemExit(
                f"readonly.py: no fixture {name!r} (groups: {', '.join(GROUPS)}; variants: "
                f"{', '.join(VARIANTS)})"
            )
    return tuple(dict.fromkeys(out))


def rotation(chosen: tuple[Fixture, ...]) -> list[Fixture]:
    """One round over the fixtures in which every class gets the same share: the benign and
    program-config fixtures as one group, each class of variants as one group."""
    groups: dict[str, list[Fixture]] = {}
    for f in chosen:
        key = f"class-{VARIANTS[f].klass}" if isinstance(f, str) else "config"
        groups.setdefault(key, []).append(f)
    longest = max(len(g) for g in groups.values())
    return [g[i % len(g)] for i in range(longest) for g in groups.values()]


def suspect(runner: ReadOnlyRunner, o: Outcome) -> str:
    """The class of issue 12 a failure most likely shows (a guess for people, by re-running; the
    re-runs are not counted)."""
    counts = runner.decided, runner.executed
    try:
        return _suspect(runner, o)
    finally:
        runner.decided, runner.executed = counts


def _new(problems: list[str], elsewhere: list[str]) -> bool:
    """Whether a run shows a problem another run of the line does not (pids, addresses, temporary
    names and fixture directories aside)."""

    def norm(p: str) -> str:
        return re.sub(r"0x[0-9a-f]+|\d+|(?:scratch|template)-[^/]+|/tmp/[^/\"]+", "#", p)

    return bool({norm(p) for p in problems} - {norm(p) for p in elsewhere})


def _suspect(runner: ReadOnlyRunner, o: Outcome) -> str:
    text = " ".join(o.problems)
    variant = VARIANTS.get(o.hostile) if isinstance(o.hostile, str) else None
    if o.agent == "tool":
        return "7"
    in_variant = variant is not None and variant.klass != 4
    if variant is not None and in_variant and _new(o.problems, runner.check(o.line, None, o.agent).problems):
        return str(variant.klass)
    if o.agent == "claude" and _new(o.problems, runner.check(o.line, o.hostile, "bastion").problems):
        return "6"
    if o.ran == "raw" or "evil.sh" in text and "exec" in text:
        return "1"  # no user rule here: a line runs as typed only when a rule matched a look-alike word
    if any(helper in text for helper in ("/tmp/sort", "go-build", "/usr/bin/gcc")):
        return "7"
    if "canary" in text or "secret" in text:
        return "4"
    return "config" if isinstance(o.hostile, int) else "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--fixtures", nargs="+", default=["all"])
    ap.add_argument("--hostile-lines", type=float, default=0.5, help="fraction of attack lines (issue 12)")
    ap.add_argument("--claude", type=float, default=0.25, help="fraction run as Claude Code after the hook")
    ap.add_argument("--tools", type=float, default=0.1, help="fraction of file tool calls (grep, read ...)")
    a = ap.parse_args()
    chosen = fixtures(a.fixtures)
    order = rotation(chosen)
    runner = ReadOnlyRunner(Path(tempfile.mkdtemp(prefix="bastion-readonly-")), hostile=chosen)
    lines = RandomLines(a.seed, mode="pool", stop=80, hostile=a.hostile_lines)
    agents = random.Random(a.seed)
    start, failures, i = time.time(), 0, 0
    by_class: dict[str, int] = {}
    while time.time() - start < a.seconds:
        fixture = order[i % len(order)]
        if agents.random() < a.tools:
            outcome = runner.check_tool(*hostile_tool_call(agents.choice), fixture)
        else:
            agent = "claude" if agents.random() < a.claude else "bastion"
            outcome = runner.check(lines.line(), fixture, agent)
        i += 1
        if outcome.problems:
            failures += 1
            klass = suspect(runner, outcome)
            by_class[klass] = by_class.get(klass, 0) + 1
            kinds = sorted({p.split(":")[0] for p in outcome.problems})
            found = [klass, outcome.line, outcome.hostile, outcome.agent, kinds, outcome.problems[:3]]
            print("FAIL", json.dumps(found), flush=True)
    print(
        json.dumps(
            {
                "decided": runner.decided,
                "executed": runner.executed,
                "failures": failures,
                "by_class": by_class,
                "fixtures": len(chosen),
                "seed": a.seed,
                "seconds": round(time.time() - start),
            }
        ),
        flush=True,
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Codex patches read by bastion and applied by Codex's own apply_patch, at length (the property of
tests/audit/test_codex_patch_differential.py, for as long as asked).

    .venv/bin/python fuzz/patch_differential.py --seconds 600 [--seed 1]

Each round generates a patch (as Codex's apply_patch tool gets it) and a shell line that applies one
(fuzz/patch_cases.py) and runs each with the real binary of the pinned Codex CLI, confined and
traced (fuzz/patch_oracle.py): every path the run tried to write must be one bastion read from it.
Prints each disagreement as found and one JSON line at the end: patches and lines run, read by
bastion, that wrote something, that wrote though bastion did not read them (they ask), and
disagreements. Exit 1 on any disagreement; 2 where the binary, strace or Landlock is missing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.patch_cases import line, patch  # noqa: E402
from fuzz.patch_oracle import CODEX, CODEX_VERSION, Scratch, compare_line, compare_patch  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if CODEX is None:
        missing = f"{CODEX_VERSION}'s binary (make integration), strace or Landlock"
        print(f"patch_differential.py: {missing} is missing")
        return 2
    rng = random.Random(args.seed)
    counts: dict[str, dict[str, int]] = {
        kind: dict.fromkeys(("run", "read", "wrote", "wrote_unread", "disagreements"), 0)
        for kind in ("patch", "line")
    }
    with tempfile.TemporaryDirectory(prefix="bastion-patch-") as tmp:
        scratch = Scratch(Path(tmp))
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            for kind, compare, text in (
                ("patch", compare_patch, patch(rng)),
                ("line", compare_line, line(rng)),
            ):
                text = text.replace("{ROOT}", str(scratch.root))
                verdict = compare(scratch, text)
                count = counts[kind]
                count["run"] += 1
                count["read"] += verdict.read is not None
                count["wrote"] += bool(verdict.written)
                count["wrote_unread"] += verdict.read is None and bool(verdict.written)
                if verdict.unread:
                    count["disagreements"] += 1
                    print(json.dumps({kind: text, "unread": sorted(verdict.unread)}, ensure_ascii=False))
    print(json.dumps({**counts, "seconds": args.seconds, "seed": args.seed}))
    return 1 if any(c["disagreements"] for c in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

"""sed scripts read by bastion and by GNU sed itself, at length (the property of
tests/analyzer/test_sed_differential.py, for as long as asked).

    .venv/bin/python fuzz/sed_differential.py --seconds 600 [--seed 1]

Generated scripts (fuzz/sed_scripts.py) are decided by bastion's script judge; every one it
accepts is compiled by GNU sed with `--debug` (in C.UTF-8, and in zh_CN.GB18030 where localedef
can build it) and run by GNU and busybox sed in a scratch directory: the program GNU printed must
be bastion's, command for command, and no run may make, change or remove a file or print the
canary (fuzz/sed_oracle.py). Prints each disagreement as found and one JSON line at the end:
scripts generated, accepted by bastion, compiled by GNU sed (the rest it refused), compared in
GB18030, run by busybox, disagreements. Exit 1 on any disagreement.
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

from fuzz.sed_oracle import BUSYBOX, GNU_SED, compare, gb18030, scratch  # noqa: E402
from fuzz.sed_scripts import case  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if GNU_SED is None:
        print("sed_differential.py: GNU sed 4 is not installed", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    counts = dict.fromkeys(
        ("generated", "accepted", "gnu_compiled", "gb18030", "busybox", "disagreements"), 0
    )
    with tempfile.TemporaryDirectory(prefix="bastion-sed-") as tmp:
        directory = scratch(Path(tmp) / "run")
        gb = gb18030(Path(tmp))
        end = time.monotonic() + args.seconds
        while time.monotonic() < end:
            c = case(rng)
            verdict = compare(c.pieces, c.flags, directory, gb)
            counts["generated"] += 1
            if verdict.bastion is None:
                continue
            counts["accepted"] += 1
            counts["gnu_compiled"] += verdict.gnu_read
            counts["gb18030"] += gb is not None
            counts["busybox"] += BUSYBOX is not None
            if verdict.problems:
                counts["disagreements"] += 1
                print(
                    json.dumps(
                        {"pieces": c.pieces, "flags": c.flags, "problems": verdict.problems},
                        ensure_ascii=False,
                    )
                )
    print(json.dumps({**counts, "seconds": args.seconds, "seed": args.seed}))
    return 1 if counts["disagreements"] else 0


if __name__ == "__main__":
    sys.exit(main())

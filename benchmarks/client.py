"""The terminal client beside the line REPL, each in a pseudo-terminal of 80x24 against the scripted
model server: the time from exec to its first frame (the REPL's banner; the client's prompt line,
drawn before the session is made), to the session being ready (the REPL's banner again, printed once
it is; the client's status line naming the provider), and from Enter to the first streamed piece of
the reply on the screen.

    .venv/bin/python benchmarks/client.py [--runs N]

Figures are medians (and the fastest) over N runs (default 7) of wall time, in milliseconds, the two
fronts' runs interleaved so a busy moment weighs on both alike. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agent.scripted_server import ScriptedServer  # noqa: E402

CODE = "import sys; from bastion.cli import main; sys.exit(main())"
# The reply streams in pieces; its first piece is a word found nowhere else on either screen.
FIRST = "Zyxwvut"
ROUNDS = [{"text": f"{FIRST} and the rest of a reply that streams in pieces.", "pieces": 7}]
# What each front shows: its first frame, then that its session is ready (the REPL shows nothing
# before its banner, printed once the session is made: both are the banner).
SHOWN = {
    "repl": ("/help for commands", "/help for commands"),
    "client": ("F1: every key", "openai gpt-5"),
}


def _env(tmp: str) -> dict[str, str]:
    return {
        **os.environ,
        "BASTION_HOME": os.path.join(tmp, "home"),
        "HOME": tmp,
        "XDG_CONFIG_HOME": os.path.join(tmp, "xdg"),
        "OPENAI_API_KEY": "sk-bench",
        "TERM": "xterm-256color",
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }


def one_run(front: str, tmp: str) -> tuple[float, float, float]:
    """(exec to the first frame, exec to the session ready, Enter to the reply's first piece), s."""
    first, ready = SHOWN[front]
    with ScriptedServer(ROUNDS) as server:
        start = time.perf_counter()
        child = pexpect.spawn(
            sys.executable,
            ["-c", CODE, "--front", front, "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=tmp,
            env=_env(tmp),
            encoding="utf-8",
            timeout=120,
            dimensions=(24, 80),
        )
        child.expect_exact(first)
        framed = time.perf_counter() - start
        if ready != first:
            child.expect_exact(ready)
        made = time.perf_counter() - start
        sent = time.perf_counter()
        child.send("hello\r")
        child.expect_exact(FIRST)
        streamed = time.perf_counter() - sent
        child.terminate(force=True)
        child.close()
    return framed, made, streamed


def _figures(name: str, times: list[float]) -> str:
    ms = [t * 1000 for t in times]
    return f"{name}: median {statistics.median(ms):.0f} ms, fastest {min(ms):.0f} ms ({len(ms)} runs)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    found: dict[str, list[tuple[float, float, float]]] = {front: [] for front in SHOWN}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for front in SHOWN:
                found[front].append(one_run(front, tmp))
    for i, name in enumerate(
        ("exec to the first frame", "exec to the session ready", "Enter to the first character")
    ):
        for front, runs in found.items():
            print(_figures(f"{front}, {name}", [r[i] for r in runs]))
        repl = statistics.median(r[i] for r in found["repl"])
        client = statistics.median(r[i] for r in found["client"])
        print(f"  client / repl: {client / repl:.2f}")


if __name__ == "__main__":
    main()

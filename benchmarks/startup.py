"""How long the agent takes to start: the REPL from exec to its prompt, and -p from exec to its
first request reaching the (scripted) model server; and whether `bastion check` loads rich.

    .venv/bin/python benchmarks/startup.py [--runs N] [--python PATH]

--python runs another checkout's interpreter (its venv's python, e.g. /work/main/.venv/bin/python)
against the same scripted server, to compare before and after a change. Figures are medians (and
the fastest) over N runs (default 7) of wall time, in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agent.scripted_server import ScriptedServer  # noqa: E402

CODE = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"


def _env(tmp: str) -> dict[str, str]:
    return {
        **os.environ,
        "BASTION_HOME": os.path.join(tmp, "home"),
        "HOME": tmp,
        "XDG_CONFIG_HOME": os.path.join(tmp, "xdg"),
        "OPENAI_API_KEY": "sk-bench",
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }


def repl_to_prompt(python: str, url: str, tmp: str) -> float:
    start = time.perf_counter()
    child = pexpect.spawn(
        python,
        ["-c", CODE, "--provider", "openai", "--base-url", url + "/v1"],
        cwd=tmp,
        env=_env(tmp),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(">")
    took = time.perf_counter() - start
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    return took


def p_to_first_request(python: str, tmp: str) -> float:
    with ScriptedServer([{"text": "ok"}]) as server:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [python, "-c", CODE, "-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=tmp,
            env=_env(tmp),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while not server.requests and proc.poll() is None:
            time.sleep(0.001)
        took = time.perf_counter() - start
        proc.wait(timeout=60)
    return took


def check_loads_rich(python: str, tmp: str) -> bool:
    code = (
        "import sys; from bastion.cli import main; main(['check', 'ls']); "
        "print('rich' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([python, "-c", code], cwd=tmp, env=_env(tmp), capture_output=True, text=True)
    return done.stderr.strip().endswith("True")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer([]) as idle:
        repl = [repl_to_prompt(args.python, idle.url, tmp) for _ in range(args.runs)]
        one = [p_to_first_request(args.python, tmp) for _ in range(args.runs)]
        rich = check_loads_rich(args.python, tmp)
    for name, times in (("REPL to its prompt", repl), ("-p to its first request", one)):
        ms = [t * 1000 for t in times]
        print(f"{name}: median {statistics.median(ms):.0f} ms, fastest {min(ms):.0f} ms ({args.runs} runs)")
    print(f"bastion check loads rich: {'yes' if rich else 'no'}")


if __name__ == "__main__":
    main()

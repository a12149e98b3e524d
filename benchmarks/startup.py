"""How long the agent takes to start: the REPL from exec to its prompt, and -p from exec to its
first request reaching the (scripted) model server; what taking the key variables out of the
process costs (`bastion --version` with a key in the environment, so bastion executes itself again,
beside the same without one, the runs interleaved); and whether `bastion check` loads rich.

    .venv/bin/python benchmarks/startup.py [--runs N] [--before REF] [--python PATH]

--before REF measures the code of REF too (a commit of this repository, checked out for the run in
a temporary git worktree and put first on PYTHONPATH, run by the same interpreter), the runs of
both interleaved, and prints before and after. --python runs another interpreter instead of this
one. Figures are medians (and the fastest) over N runs (default 7) of wall time, in milliseconds.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from checkout import checkout  # noqa: E402  (this script's directory)

from tests.agent.scripted_server import ScriptedServer  # noqa: E402

# The command line's own entry (sys.argv), as the installed `bastion` runs it: with a key in the
# environment it executes itself again without it (bastion/_handover.py), and that is timed too.
CODE = "import sys; from bastion.cli import main; sys.exit(main())"


def _env(tmp: str, code: str | None = None) -> dict[str, str]:
    """The environment of a run; `code`: a checkout whose bastion is imported instead of this one."""
    extra = {"PYTHONPATH": code} if code else {}
    return {
        **os.environ,
        **extra,
        "BASTION_HOME": os.path.join(tmp, "home"),
        "HOME": tmp,
        "XDG_CONFIG_HOME": os.path.join(tmp, "xdg"),
        "OPENAI_API_KEY": "sk-bench",
        "TERM": "xterm",
        "PROMPT_TOOLKIT_NO_CPR": "1",
    }


def repl_to_prompt(python: str, url: str, tmp: str, code: str | None = None) -> float:
    start = time.perf_counter()
    child = pexpect.spawn(
        python,
        ["-c", CODE, "--front", "repl", "--provider", "openai", "--base-url", url + "/v1"],
        cwd=tmp,
        env=_env(tmp, code),
        encoding="utf-8",
        timeout=60,
    )
    child.expect(">")
    took = time.perf_counter() - start
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    return took


def p_to_first_request(python: str, tmp: str, code: str | None = None) -> float:
    with ScriptedServer([{"text": "ok"}]) as server:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [python, "-c", CODE, "-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=tmp,
            env=_env(tmp, code),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while not server.requests and proc.poll() is None:
            time.sleep(0.001)
        took = time.perf_counter() - start
        proc.wait(timeout=60)
    return took


def help_start(python: str, tmp: str, code: str | None, key: bool) -> tuple[float, float]:
    """`bastion --help` (the agent's start up to its arguments), exec to exit, in wall time and in
    CPU time (user and system: what a busy machine changes least); with `key`, the key's variable is
    set, so bastion executes itself again without it (`--version` holds no key: it never does)."""
    env = _env(tmp, code)
    if not key:
        del env["OPENAI_API_KEY"]
    start = time.perf_counter()
    proc = subprocess.Popen([python, "-c", CODE, "--help"], cwd=tmp, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def check_loads_rich(python: str, tmp: str, code: str | None = None) -> bool:
    script = (
        "import sys; from bastion.cli import main; main(['check', '--', 'ls']); "
        "print('rich' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run(
        [python, "-c", script], cwd=tmp, env=_env(tmp, code), capture_output=True, text=True
    )
    return done.stderr.strip().endswith("True")


def _imported_from(python: str, tmp: str, code: str | None) -> str:
    """Where the runs' bastion is imported from (so a --before run is known to run REF's code)."""
    script = "import bastion, os; print(os.path.dirname(os.path.dirname(bastion.__file__)))"
    done = subprocess.run(
        [python, "-c", script], cwd=tmp, env=_env(tmp, code), capture_output=True, text=True
    )
    return done.stdout.strip()


def _figures(name: str, label: str, times: list[float], runs: int) -> str:
    ms = [t * 1000 for t in times]
    return f"{name} ({label}): median {statistics.median(ms):.0f} ms, fastest {min(ms):.0f} ms ({runs} runs)"


_KEY = {"key set": True, "no key": False}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--before", metavar="REF", help="also measure this commit's code (e.g. main)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        idle = stack.enter_context(ScriptedServer([]))
        versions: dict[str, str | None] = {"after": None}
        if args.before:
            before = stack.enter_context(checkout(args.before, os.path.join(tmp, "before"), args.python))
            versions = {"before": before, **versions}
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        for label, code in versions.items():
            print(f"{label}: bastion from {_imported_from(args.python, work, code)}")
        repl: dict[str, list[float]] = {label: [] for label in versions}
        one: dict[str, list[float]] = {label: [] for label in versions}
        handover: dict[str, list[float]] = {f"{label}, {k}": [] for label in versions for k in _KEY}
        cpu: dict[str, list[float]] = {f"{label}, {k}": [] for label in versions for k in _KEY}
        for _ in range(args.runs):  # interleaved, so a busy moment weighs on both alike
            for label, code in versions.items():
                repl[label].append(repl_to_prompt(args.python, idle.url, work, code))
                one[label].append(p_to_first_request(args.python, work, code))
                for k, key in _KEY.items():
                    wall, used = help_start(args.python, work, code, key)
                    handover[f"{label}, {k}"].append(wall)
                    cpu[f"{label}, {k}"].append(used)
        rich = {label: check_loads_rich(args.python, work, code) for label, code in versions.items()}
    named = (
        ("REPL to its prompt", repl),
        ("-p to its first request", one),
        ("bastion --help", handover),
        ("bastion --help, CPU time", cpu),
    )
    for name, figures in named:
        for label, times in figures.items():
            print(_figures(name, label, times, args.runs))
    for label, loads in rich.items():
        print(f"bastion check loads rich ({label}): {'yes' if loads else 'no'}")


if __name__ == "__main__":
    main()

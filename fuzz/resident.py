"""A hook answered through the resident server is one the process would give itself, byte for byte:
each call is made twice with bastion's own command (the launcher beside this interpreter), once
answered by its resident server and once with BASTION_NO_SERVER=1, and the exit status, standard
output and standard error compared.

    .venv/bin/python fuzz/resident.py [--seconds N] [--seed S]

The server's side is the command's own Python part with the launcher's module search path (so its
fingerprint, and its server, are the command's), which also says on a pipe whether the server
answered: a call the server did not answer is a failure here, not a pass. The lines: generated from
the grammar, the attacks of fuzz/hostile.py, one-byte near misses, and the conformance corpora's,
decided in a fixture workspace (fuzz/fixtures.py). tests/resident/test_server_agrees.py runs a few
dozen; this runs for as long as it is given.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fuzz.fixtures import build, scratch_env  # noqa: E402  (run as a script, from the checkout)
from fuzz.randgen import RandomLines  # noqa: E402

__all__ = ["COMMAND", "Twice", "corpus_lines", "payload"]

COMMAND = Path(sys.executable).parent / "bastion"
CORPUS = ROOT.parent / "shared" / "conformance"
_PROBE = (
    "import os, sys\n"
    "sys.path[:] = {path!r}\n"
    "from bastion.cli import main\n"
    "code = main()\n"
    "os.write({fd}, b'process' if 'bastion.policy' in sys.modules else b'server')\n"
    "sys.exit(code)\n"
)


def payload(cwd: Path, line: str) -> str:
    """Claude Code's PreToolUse input for a Bash call of `line` in `cwd`."""
    return json.dumps(
        {"session_id": "s", "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_name": "Bash",
         "tool_input": {"command": line}}
    )  # fmt: skip


def corpus_lines() -> list[str]:
    """The bash lines of the shared conformance corpora (none when they are not beside the checkout)."""
    lines = []
    for name in ("cases.jsonl", "real_cases.jsonl"):
        if (CORPUS / name).exists():
            for text in (CORPUS / name).read_text().splitlines():
                case = json.loads(text) if text.strip() else {}
                if isinstance(case.get("cmd"), str) and "@ROOT@" not in case["cmd"]:
                    lines.append(case["cmd"])
    return lines


class Twice:
    """A workspace, a private runtime directory and the command's server, for comparing answers."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.ws = build(base / "template")
        self.run = base / "run"
        self.run.mkdir(mode=0o700)
        (base / "home").mkdir()
        (base / "tmp").mkdir()
        self.env = {**scratch_env(base / "home", base / "tmp"), "XDG_RUNTIME_DIR": str(self.run)}
        path = subprocess.run(
            [sys.executable, "-I", "-c", "import sys; print(repr(sys.path))"], capture_output=True, text=True,
            check=True,
        ).stdout  # fmt: skip
        self.path = ast.literal_eval(path)
        self.servers_seen = 0

    def _call(self, argv: list[str], stdin: str, extra: dict[str, str]) -> tuple[int, bytes, bytes]:
        done = subprocess.run(
            argv, cwd=self.ws, env={**self.env, **extra}, input=stdin.encode(), capture_output=True,
            check=False, timeout=300,
        )  # fmt: skip
        return done.returncode, done.stdout, done.stderr

    def through_server(self, stdin: str) -> tuple[tuple[int, bytes, bytes], bool]:
        """The hook's answer asked of the server, and whether the server gave it."""
        read, write = os.pipe()
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-c", _PROBE.format(path=self.path, fd=write), "hook", "claude-code"],
                cwd=self.ws, env=self.env,
                input=stdin.encode(), capture_output=True, check=False, timeout=300, pass_fds=(write,),
            )  # fmt: skip
            os.close(write)
            write = -1
            said = os.read(read, 16)
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        return (done.returncode, done.stdout, done.stderr), said == b"server"

    def ready(self) -> None:
        """Start the command's server (its first call decides itself) and wait for its socket."""
        self._call([str(COMMAND), "hook", "claude-code"], payload(self.ws, "ls"), {})
        deadline = time.monotonic() + 300
        while not self._sockets():
            if time.monotonic() > deadline:
                raise RuntimeError("the command's resident server never made its socket")
            time.sleep(0.05)

    def _sockets(self) -> list[str]:
        try:
            return [n for n in os.listdir(self.run / "bastion") if n.endswith(".sock")]
        except FileNotFoundError:
            return []

    def differs(self, line: str) -> str | None:
        """What differs between the two answers for `line` (None: the same bytes, the server's)."""
        stdin = payload(self.ws, line)
        served, by_server = self.through_server(stdin)
        alone = self._call([str(COMMAND), "hook", "claude-code"], stdin, {"BASTION_NO_SERVER": "1"})
        if not by_server:
            return f"{line!r}: the server did not answer (is it running?)"
        self.servers_seen += 1
        return None if served == alone else f"{line!r}: server {served!r}, in-process {alone!r}"

    def close(self) -> None:
        """End the servers whose socket is in this run directory."""
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if f"{self.run}/".encode() in command and b"serve_main" in command:
                os.kill(int(pid), 15)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bastion-resident-"))
    twice = Twice(base)
    rng = random.Random(args.seed)
    generated = RandomLines(args.seed, hostile=0.3)
    corpus = corpus_lines()
    failures: list[str] = []
    try:
        twice.ready()
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline and len(failures) < 10:
            pick = rng.random()
            if corpus and pick < 0.4:
                line = rng.choice(corpus)
            else:
                line = generated.line()
                if pick > 0.8:  # a near miss: one byte inserted, removed or replaced
                    at = rng.randrange(len(line) + 1)
                    line = line[:at] + chr(rng.randrange(32, 127)) + line[at + rng.randrange(2) :]
            found = twice.differs(line)
            if found:
                failures.append(found)
                print(f"resident: DIFFERS {found}", flush=True)
    finally:
        twice.close()
        shutil.rmtree(base, ignore_errors=True)
    print(f"resident: {twice.servers_seen} lines answered by the server, {len(failures)} differ", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Peak memory of a -p run whose model sends a huge reply, or whose MCP tool answers a huge result:
what bastion holds is bounded, not the size of what the other end sends.

    .venv/bin/python benchmarks/memory.py [--mb 50] [--formats chat,anthropic,gemini] [--mcp]

For each wire format, a run against tests/agent/fault_server.py's `huge` scenario (a reply whose
text is --mb MB, streamed in 64 KiB deltas); then (--mcp) a run whose one MCP call answers --mb MB
(tests/agent/mcp_server.py's `huge` tool, over stdio: its message holds the text twice). It prints
the bastion process's own peak resident memory (its RUSAGE_SELF ru_maxrss at exit: the servers are
not counted), the same run's with a reply or result of 10 bytes (the baseline), and the difference.

The bounds stated: a reply keeps at most MAX_REPLY characters (text, arguments, thinking) and reads
no event longer than MAX_EVENT, then is given up (protocol_error); an MCP message longer than
MAX_MESSAGE is dropped as it comes and its call fails saying so (a result under it is cut to
MAX_RESULT_CHARS for the model). So the difference stays a few times the bound, whatever --mb is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bastion.agent.mcp import MAX_MESSAGE  # noqa: E402
from bastion.agent.providers import MAX_EVENT, MAX_REPLY  # noqa: E402
from tests.agent.fault_server import FaultServer  # noqa: E402
from tests.agent.scripted_server import ScriptedServer  # noqa: E402

_ARGV = {
    "chat": ["--provider", "openai"],
    "anthropic": ["--provider", "anthropic"],
    "gemini": ["--provider", "gemini"],
}
# bastion's entry, writing its own peak (kB) to the file named first when it exits.
_MAIN = (
    "import atexit, resource, sys\n"
    "peak = sys.argv.pop(1)\n"
    "own = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "atexit.register(lambda: open(peak, 'w').write(str(own())))\n"
    "from bastion.agent import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
_MCP_SERVER = Path(__file__).resolve().parents[1] / "tests" / "agent" / "mcp_server.py"


def _peak(argv: list[str], home: Path, env: dict[str, str]) -> tuple[int, float]:
    """Run bastion with `argv`; its exit status and its own peak resident memory in MB."""
    peak = home / "peak"
    done = subprocess.run(
        [sys.executable, "-c", _MAIN, str(peak), *argv],
        cwd=home / "work",
        env=env,
        capture_output=True,
        check=False,
    )
    return done.returncode, int(peak.read_text()) / 1024


def _home(tmp: str, config: str = "") -> tuple[Path, dict[str, str]]:
    home = Path(tmp)
    (home / "xdg" / "bastion").mkdir(parents=True)
    (home / "xdg" / "bastion" / "config.toml").write_text(config)
    (home / "work").mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "BASTION_HOME": str(home / ".bastion"),
        "XDG_CONFIG_HOME": str(home / "xdg"),
        "OPENAI_API_KEY": "sk-bench",
        "ANTHROPIC_API_KEY": "sk-bench",
        "GEMINI_API_KEY": "bench",
        "BASTION_RETRY_CAP": "0.01",
    }
    return home, env


def _reply(fmt: str, size: int) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp, FaultServer([{"huge": size}]) as server:
        home, env = _home(tmp)
        url = server.url + ("/v1" if fmt == "chat" else "")
        return _peak(["-p", "go", *_ARGV[fmt], "--base-url", url], home, env)


def _mcp(size: int) -> tuple[int, float]:
    config = (
        "[mcp.servers.big]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(_MCP_SERVER))}, 'stdio']\n"
        "call_timeout = 600\n"
    )
    call = {"name": "mcp__big__huge", "arguments": {"size": size}}
    with (
        tempfile.TemporaryDirectory() as tmp,
        ScriptedServer([{"calls": [call]}, {"text": "done"}]) as server,
    ):
        home, env = _home(tmp, config)
        argv = [
            "-p",
            "go",
            "--provider",
            "openai",
            "--base-url",
            server.url + "/v1",
            "--allow",
            "mcp(big:huge)",
        ]
        return _peak(argv, home, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--formats", default="chat,anthropic,gemini")
    parser.add_argument("--mcp", action="store_true")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    print(
        f"{args.mb:g} MB sent; bounds: MAX_REPLY {MAX_REPLY / 1e6:g} MB, MAX_EVENT {MAX_EVENT / 1e6:g} MB, "
        f"MAX_MESSAGE {MAX_MESSAGE / 1e6:g} MB"
    )
    print(f"{'what':12} {'exit':>4} {'peak MB':>8} {'baseline':>8} {'over':>6}")
    for fmt in args.formats.split(","):
        _, base = _reply(fmt, 10)
        code, peak = _reply(fmt, size)
        print(f"{fmt:12} {code:4} {peak:8.0f} {base:8.0f} {peak - base:6.0f}", flush=True)
    if args.mcp:
        _, base = _mcp(10)
        code, peak = _mcp(size)
        print(f"{'mcp result':12} {code:4} {peak:8.0f} {base:8.0f} {peak - base:6.0f}", flush=True)


if __name__ == "__main__":
    main()

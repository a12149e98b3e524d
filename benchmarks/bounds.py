"""Every value of the two time bounds against a server that accepts and never answers: does a -p run
end when its bound says, at every value, on each wire format an SDK speaks?

    .venv/bin/python benchmarks/bounds.py [--values 1,2,...,10] [--formats chat,anthropic,gemini]

For each format and value N it runs bastion twice against tests/agent/fault_server.py's `hang`
(the request read, nothing ever sent; the model's limits lookup too):
  idle   stream_idle_timeout = N: each of the 4 tries (3 retries, backoff capped at 0.01 s) should
         be given up N s after it was sent;
  total  request_timeout = N (stream_idle_timeout left at 30): the request should be given up N s
         after it was sent.
`took` is the longest time the server saw a request wait, from its arrival to the client's
closing the connection.
`ok` is whether that time is within N + 1 s (the bound, plus a second for a loaded machine). An SDK
that took a timeout for "not set" (httpx's default is 5 s, so 5 was read as 600) shows at N = 5.
The process's start and end (imports, the session) are not counted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agent.fault_server import FaultServer  # noqa: E402

_ARGV = {
    "chat": ["--provider", "openai"],
    "anthropic": ["--provider", "anthropic"],
    "gemini": ["--provider", "gemini"],
}
_MAIN = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"


def _run(fmt: str, config: str) -> list[float]:
    """A -p run against a hanging server: how long each of its model requests was waited on (from
    its arrival to the client's giving it up)."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        FaultServer([{"hang": True, "repeat": True}], {"hang": True}) as server,
    ):
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
        url = server.url + ("/v1" if fmt == "chat" else "")
        argv = [sys.executable, "-c", _MAIN, "-p", "go", *_ARGV[fmt], "--base-url", url]
        subprocess.run(argv, cwd=home / "work", env=env, capture_output=True, check=False)
        posts = [r for r in server.requests if r["method"] == "POST"]
        return [r.get("gave_up", float("inf")) - r["at"] for r in posts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--values", default="1,2,3,4,5,6,7,8,9,10")
    parser.add_argument("--formats", default="chat,anthropic,gemini")
    args = parser.parse_args()
    values = [float(v) for v in args.values.split(",")]
    print(f"{'format':10} {'bound':6} {'N':>4} {'tries':>5} {'took':>7}  ok")
    failed = 0
    for fmt in args.formats.split(","):
        for n in values:
            for bound, config in (
                ("idle", f"stream_idle_timeout = {n:g}\n"),
                ("total", f"request_timeout = {n:g}\n"),
            ):
                waits = _run(fmt, config)
                took = max(waits, default=float("nan"))
                ok = took <= n + 1
                failed += not ok
                said = "yes" if ok else "NO"
                print(f"{fmt:10} {bound:6} {n:4g} {len(waits):5} {took:7.2f}  {said}", flush=True)
    print(f"{failed} beyond their bound")


if __name__ == "__main__":
    main()

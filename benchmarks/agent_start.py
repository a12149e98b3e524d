"""A one-shot prompt, whole process (exec to exit), over a scripted model server answering one short
text: `bastion -p hi` for each wire format (Anthropic Messages, OpenAI Chat, OpenResponses), beside
`python -c pass` and, when `make integration` has installed them in integration/node_modules,
`claude -p hi` (Claude Code, Messages) and `codex exec hi` (Codex, Responses); the runs of all
interleaved, so a busy moment weighs on each alike. Prints the median and fastest wall time of each
and its ratio to `python -c pass` and to the other agent of its wire format.

    .venv/bin/python benchmarks/agent_start.py [--runs N] [--before REF]

--before REF measures the code of REF too (a commit of this repository, checked out in a temporary
git worktree and put first on PYTHONPATH), interleaved with this one's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from checkout import checkout  # noqa: E402  (this script's directory)

from tests.agent.scripted_server import ScriptedServer  # noqa: E402

CODE = "import sys; from bastion.cli import main; sys.exit(main())"  # the installed `bastion`'s entry
NODE_BIN = ROOT / "integration" / "node_modules" / ".bin"

# name -> (the agent beside it, the base URL's suffix, the flags)
FORMATS = {
    "anthropic": ("claude -p", "", ["--provider", "anthropic", "--model", "claude-sonnet-4-5"]),
    "openai chat": ("claude -p", "/v1", ["--provider", "openai", "--model", "gpt-5"]),
    "openresponses": ("codex exec", "/v1", ["--provider", "openresponses", "--model", "gpt-5"]),
}

Run = Callable[[str], Sequence[str]]  # the server's URL -> argv


def _env(tmp: str, extra: dict[str, str]) -> dict[str, str]:
    return {
        **os.environ,
        **extra,
        "BASTION_HOME": os.path.join(tmp, "home"),
        "HOME": tmp,
        "XDG_CONFIG_HOME": os.path.join(tmp, "xdg"),
        "OPENAI_API_KEY": "sk-bench",
        "ANTHROPIC_API_KEY": "sk-bench",
        "OPENRESPONSES_API_KEY": "sk-bench",
    }


def _timed(argv: Sequence[str], cwd: str, env: dict[str, str], server: ScriptedServer | None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    took = time.perf_counter() - start
    if done.returncode != 0 or (server is not None and not server.requests):
        sys.exit(f"{' '.join(argv[:4])}... failed ({done.returncode}): {done.stderr.decode()[-400:]}")
    return took


def _codex_home(tmp: str, url: str) -> str:
    home = os.path.join(tmp, f"codex-{len(os.listdir(tmp))}")
    os.makedirs(home)
    Path(home, "config.toml").write_text(
        "\n".join(
            [
                'model = "gpt-5"',
                'model_provider = "scripted"',
                "check_for_update_on_startup = false",
                "[model_providers.scripted]",
                'name = "scripted"',
                f"base_url = {json.dumps(url + '/v1')}",
                'wire_api = "responses"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                "[analytics]",
                "enabled = false",
                "[features]",
                "plugins = false",
                "",
            ]
        )
    )
    return home


def _one(name: str, tmp: str, work: str, code: str | None) -> float:
    """One run of `name` against a fresh scripted server."""
    extra = {"PYTHONPATH": code} if code else {}
    if name == "python -c pass":
        return _timed([sys.executable, "-c", "pass"], work, _env(tmp, extra), None)
    with ScriptedServer([{"text": "ok"}]) as server:
        if name == "claude -p":
            extra = {
                "ANTHROPIC_BASE_URL": server.url,
                "DISABLE_AUTOUPDATER": "1",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                **({"IS_SANDBOX": "1"} if os.geteuid() == 0 else {}),
            }
            argv = [str(NODE_BIN / "claude"), "-p", "hi"]
        elif name == "codex exec":
            extra = {"CODEX_HOME": _codex_home(tmp, server.url)}
            argv = [str(NODE_BIN / "codex"), "exec", "--skip-git-repo-check", "hi"]
        else:
            _, suffix, flags = FORMATS[name.split(" (")[0].removeprefix("bastion ")]
            argv = [sys.executable, "-c", CODE, "-p", "hi", *flags, "--base-url", server.url + suffix]
        return _timed(argv, work, _env(tmp, extra), server)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", metavar="REF", help="also measure this commit's code (e.g. main)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        versions: dict[str, str | None] = {"": None}
        if args.before:
            before = stack.enter_context(checkout(args.before, os.path.join(tmp, "before"), sys.executable))
            versions = {f" ({args.before})": before, " (this)": None}
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        names: dict[str, str | None] = {"python -c pass": None}
        for fmt in FORMATS:
            for label, code in versions.items():
                names[f"bastion {fmt}{label}"] = code
        others = [n for n in ("claude -p", "codex exec") if shutil.which(n.split()[0], path=str(NODE_BIN))]
        names.update(dict.fromkeys(others))
        times: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(args.runs):
            for name, code in names.items():
                times[name].append(_one(name, tmp, work, code))
    median = {name: statistics.median(t) for name, t in times.items()}
    base = median["python -c pass"]
    head = ("one-shot prompt, whole process", "median", "fastest", "x python", "x agent")
    print(f"{head[0]:44} {head[1]:>8} {head[2]:>8} {head[3]:>9} {head[4]:>8}")
    for name, t in times.items():
        beside = FORMATS.get(name.removeprefix("bastion ").split(" (")[0], ("",))[0]
        ratio = f"{median[name] / median[beside]:.2f}" if beside in median else ""
        print(
            f"{name:44} {median[name] * 1000:6.0f}ms {min(t) * 1000:6.0f}ms "
            f"{median[name] / base:9.1f} {ratio:>8}"
        )
    print(f"({args.runs} runs each, interleaved; x agent: beside {' and '.join(others) or 'no other agent'})")


if __name__ == "__main__":
    main()

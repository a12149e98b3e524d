"""The README's REPL session, captured for real: a scripted model server, the REPL under tmux, the
pane's text printed. Run it by hand (`.venv/bin/python -m tests.agent.readme_session`); it needs
tmux. Nothing in it is a test."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.waits import PATIENCE

from .scripted_server import ScriptedServer

ROUNDS: list[dict[str, object]] = [
    {"calls": [{"name": "bash", "arguments": {"command": "git status --short && grep -n return calc.py"}}]},
    {
        "calls": [
            {
                "name": "edit",
                "arguments": {"path": "calc.py", "old_string": "return a - b", "new_string": "return a + b"},
            }
        ]
    },
    {
        "calls": [
            {"name": "bash", "arguments": {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"}}
        ]
    },
    {
        "text": "## Fixed\n\n`add` subtracted instead of adding:\n\n"
        "- `calc.py` now returns `a + b`\n- `add(2, 3)` prints 5\n"
    },
]
# What is typed, and what the pane shows once it has been answered.
TYPED = [
    ("add(2, 3) gives -1; fix it", "allow edit?"),
    ("y", "allow bash?"),
    ("a", "prints 5"),
    ("/diff", "--- a/"),
    ("/permissions", "1."),
    ("/cost", "replies"),
    ("/quit", "To resume this session"),
]
SESSION = "bastion-readme"


def pane(name: str = SESSION) -> str:
    """The tmux pane's text, with its scrollback."""
    done = subprocess.run(
        ["tmux", "capture-pane", "-p", "-t", name, "-S", "-200"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def wait_for(text: str, name: str = SESSION, seconds: float = PATIENCE) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in pane(name):
            return
        time.sleep(0.1)
    raise SystemExit(f"never saw {text!r}:\n{pane(name)}")


def command_in(tmp: str, url: str, *flags: str) -> tuple[Path, str]:
    """The calc workspace made in `tmp` (a git repository holding calc.py, its add wrong) and the
    shell command that runs bastion there against the scripted server at `url`."""
    work = Path(tmp) / "calc"
    work.mkdir()
    (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": tmp}
    subprocess.run(["git", "init", "-q", str(work)], check=True, env={**os.environ, **env})
    variables = {
        **env,
        "BASTION_HOME": str(Path(tmp) / "bastion"),
        "XDG_CONFIG_HOME": str(Path(tmp) / "xdg"),
        "OPENAI_API_KEY": "sk-readme",
        "TERM": "xterm-256color",
    }
    command = " ".join(
        [
            "env",
            *(shlex.quote(f"{k}={v}") for k, v in variables.items()),
            shlex.quote(sys.executable),
            "-m bastion",
            *flags,
            "--provider openai --base-url",
            shlex.quote(url + "/v1"),
        ]
    )
    return work, command


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(ROUNDS) as server:
        work, command = command_in(tmp, server.url, "--front repl")
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", SESSION, "-x", "100", "-y", "60", "-c", str(work), command],
            check=True,
        )
        try:  # the pane stays when the REPL leaves, to be read
            subprocess.run(["tmux", "set-option", "-t", SESSION, "remain-on-exit", "on"], check=True)
            wait_for("/help for commands")
            for typed, after in TYPED:
                subprocess.run(["tmux", "send-keys", "-t", SESSION, "-l", typed], check=True)
                subprocess.run(["tmux", "send-keys", "-t", SESSION, "Enter"], check=True)
                wait_for(after)
                time.sleep(0.3)
            shown = pane()
            print(shown[: shown.index("\n", shown.index("To resume this session"))])
        finally:
            subprocess.run(["tmux", "kill-session", "-t", SESSION], check=False, capture_output=True)


if __name__ == "__main__":
    main()

"""The README's terminal client, captured for real: the scripted model server of the REPL's session
(tests/agent/readme_session.py), the client under tmux on 80 columns, the pane's text printed at
three moments (the permission panel on an edit, the run done, the terminal once the client left).
Run it by hand (`.venv/bin/python -m tests.agent.client.readme_client`); it needs tmux. Nothing in
it is a test."""

from __future__ import annotations

import subprocess
import tempfile

from tests.agent.readme_session import ROUNDS, command_in, pane, wait_for
from tests.agent.scripted_server import ScriptedServer

SESSION = "bastion-readme-client"


def _keys(*keys: str, literal: bool = False) -> None:
    subprocess.run(["tmux", "send-keys", "-t", SESSION, *(["-l"] if literal else []), *keys], check=True)


def _shown(title: str) -> None:
    print(f"--- {title}")
    print(pane(SESSION).rstrip("\n"))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(ROUNDS) as server:
        work, command = command_in(tmp, server.url)
        size = ["-x", "80", "-y", "24"]
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", SESSION, *size, "-c", str(work), command], check=True
        )
        try:  # the pane stays when the client leaves, to be read
            subprocess.run(["tmux", "set-option", "-t", SESSION, "remain-on-exit", "on"], check=True)
            wait_for("F1: every key", SESSION)
            _keys("add(2, 3) gives -1; fix it", literal=True)
            _keys("Enter")
            wait_for("a allow with a note", SESSION)
            _shown("the permission panel on the edit")
            _keys("y")
            wait_for("runs a program", SESSION)
            _keys("a")
            wait_for("a note for the model", SESSION)
            _keys("just this once", literal=True)
            _keys("Enter")
            wait_for("prints 5", SESSION)
            _shown("the run done")
            _keys("C-c")
            wait_for("To resume this session", SESSION)
            _shown("the terminal once the client left")
        finally:
            subprocess.run(["tmux", "kill-session", "-t", SESSION], check=False, capture_output=True)


if __name__ == "__main__":
    main()

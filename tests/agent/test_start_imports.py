"""What a one-shot prompt loads: its own provider's SDK (imported on a thread while the session is
made), and not the other providers', Google's credentials, the terminal client (Textual), the MCP
SDK nor bastion's MCP connections when no server is named; an SDK that cannot be imported is the
same one-line error it always was, with no traceback from the thread and no hang."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waits import PATIENCE

from .scripted_server import ScriptedServer
from .test_scenarios import _env

# Printed at exit (atexit runs once main returns): which of the watched modules were imported.
WATCH = (
    "anthropic",
    "openai",
    "google.auth",
    "mcp",
    "textual",
    "bastion.agent.client",
    "bastion.agent.mcp._client",
)
HOOK = (
    "import atexit, sys\n"
    f"loaded = lambda: sorted(m for m in {WATCH!r} if m in sys.modules)\n"
    "atexit.register(lambda: print('LOADED', loaded(), file=sys.stderr))\n"
)
MAIN = "from bastion.cli import main; sys.exit(main())"

# provider -> (its SDK, the base URL's suffix)
PROVIDERS = {"anthropic": ("anthropic", ""), "openai": ("openai", "/v1"), "openresponses": ("openai", "/v1")}


def _prompt(tmp_path: Path, provider: str, code: str) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, **_env(tmp_path), "OPENRESPONSES_API_KEY": "sk-test"}
    with ScriptedServer([{"text": "ok"}]) as server:
        key = ["--api-key-env", "OPENRESPONSES_API_KEY"] if provider == "openresponses" else []
        url = server.url + PROVIDERS[provider][1]
        argv = ["-p", "hi", "--provider", provider, "--model", "m", "--base-url", url, *key]
        return subprocess.run(
            [sys.executable, "-c", code, *argv],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            check=False,
        )


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_one_shot_prompt_imports_only_its_own_providers_sdk(tmp_path: Path, provider: str) -> None:
    done = _prompt(tmp_path, provider, HOOK + MAIN)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr
    line = next(line for line in done.stderr.splitlines() if line.startswith("LOADED "))
    assert ast.literal_eval(line.removeprefix("LOADED ")) == [PROVIDERS[provider][0]]


def test_an_sdk_that_cannot_be_imported_is_one_clear_line_not_a_traceback(tmp_path: Path) -> None:
    """The background import fails first (the module is None in sys.modules): nothing is printed
    for it, and the request's own import fails the way it always did, naming the provider."""
    done = _prompt(tmp_path, "anthropic", "import sys; sys.modules['anthropic'] = None\n" + MAIN)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "bastion: anthropic: ModuleNotFoundError: import of anthropic halted; None in sys.modules"
    ]

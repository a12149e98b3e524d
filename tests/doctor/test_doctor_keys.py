"""bastion doctor holds the keys of the config it checks and starts programs (git, the MCP servers):
traced with strace, no program it executes gets a key, nor a variable bastion reads a key from."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.test_scenarios import MCP_SERVER

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"LLM_CRED": "sk-llm-cred-secret-0123456789", "OPENAI_API_KEY": "sk-openai-secret-987654321"}
_EXECVE = re.compile(r'^(\d+) +execve\("([^"]*)", \[(.*?)\], \[(.*)\]')


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_no_program_doctor_starts_gets_a_key(tmp_path: Path) -> None:
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        "\n".join(
            [
                'provider = "openresponses"',
                'model = "m"',
                'base_url = "http://127.0.0.1:9/v1"',
                'api_key_env = "LLM_CRED"',  # a name that does not look like a credential
                "[mcp.servers.t]",
                f"command = {json.dumps(sys.executable)}",
                f"args = [{json.dumps(str(MCP_SERVER))}, 'stdio']",
            ]
        )
        + "\n"
    )
    (tmp_path / "work").mkdir()
    trace = tmp_path / "trace"
    env = {**os.environ, **KEYS, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    argv = ["strace", "-f", "-qq", "-v", "-s", "65535", "-e", "trace=execve", "-o", str(trace)]
    done = subprocess.run(
        [*argv, sys.executable, "-I", "-m", "bastion", "doctor", "--offline"],
        cwd=tmp_path / "work", env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "t (stdio): ready" in done.stdout, done.stdout + done.stderr
    execs = [m.groups() for line in trace.read_text().splitlines() if (m := _EXECVE.match(line))]
    started = [path for _, path, _, _ in execs]
    assert started[0] == started[1] == sys.executable  # started by strace, then again without its keys
    assert any(path.endswith("/git") for path in started)  # git --version
    assert sum(path == sys.executable for path in started) >= 3  # and the MCP server
    for _, path, args, environ in execs[1:]:  # the first is strace's, with your environment
        assert not [key for key in KEYS.values() if key in environ or key in args], path
        assert not [name for name in KEYS if f'"{name}=' in environ], path

"""doctor shows where the tools act: with an executor (--executor, or the user config's), its
bastion's version, the workspace's kind, ref and root and its kernel's Landlock ABI, as it said at
connect; `sandbox = "require"` against an executor without Landlock fails; an executor that cannot
be reached fails naming why; its MCP stdio servers are started there, as a session starts them."""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from bastion import __version__
from bastion.doctor import doctor_main

FAKE = Path(__file__).resolve().parents[1] / "workspace" / "fake_executor.py"
SERVER = Path(__file__).resolve().parents[1] / "agent" / "mcp_server.py"


def _doctor(tmp_path: Path, config: str, *argv: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "config.toml"
    path.write_text(config)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    environ = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(tmp_path)}
    out = io.StringIO()
    code = doctor_main(
        ["--config", str(path), "--cwd", str(work), "--offline", "--json", *argv], environ, out, io.StringIO()
    )
    sections = json.loads(out.getvalue())["sections"]
    return code, {s["name"]: {f["label"]: f for f in s["facts"]} for s in sections}


def _execute(root: Path) -> str:
    return shlex.join(
        [sys.executable, "-m", "bastion", "execute", str(root), "--kind", "remote", "--ref", "h1"]
    )


def test_doctor_shows_the_executor_it_reaches(tmp_path: Path) -> None:
    there = tmp_path / "elsewhere" / "root"
    there.mkdir(parents=True)
    code, found = _doctor(tmp_path, "", "--section", "executor", "--executor", _execute(there))
    facts = found["executor"]
    assert code == 0
    assert facts["executor"]["value"] == f"remote h1, root {there}"
    assert facts["bastion there"]["value"] == __version__
    assert facts["Landlock there"]["value"].startswith(("ABI ", "none"))


def test_the_config_names_the_executor_and_none_is_this_machine(tmp_path: Path) -> None:
    there = tmp_path / "root"
    there.mkdir()
    _, found = _doctor(tmp_path, f"executor = {json.dumps(_execute(there))}\n", "--section", "executor")
    assert found["executor"]["executor"]["value"] == f"remote h1, root {there}"
    _, found = _doctor(tmp_path, "", "--section", "executor")
    assert found["executor"]["workspace"]["value"].startswith("this machine")


def test_require_against_an_executor_without_landlock_fails(tmp_path: Path) -> None:
    fake = shlex.join([sys.executable, str(FAKE), "stall"])  # says hello with Landlock ABI 0, version 0
    code, found = _doctor(tmp_path, 'sandbox = "require"\n', "--section", "executor", "--executor", fake)
    facts = found["executor"]
    assert code == 1
    assert facts["Landlock there"]["status"] == "fail" and "refused there" in facts["Landlock there"]["hint"]
    assert (
        facts["bastion there"]["status"] == "warn"
        and f"this bastion is {__version__}" in (facts["bastion there"]["value"])
    )


def test_an_executor_that_cannot_be_reached_fails_saying_why(tmp_path: Path) -> None:
    code, found = _doctor(tmp_path, "", "--section", "executor", "--executor", "/nonexistent/ssh host")
    assert code == 1
    assert "could not be started" in found["executor"]["executor"]["value"]


def test_doctors_mcp_servers_start_on_the_executor(tmp_path: Path) -> None:
    there = tmp_path / "elsewhere" / "root"
    (there / "tools").mkdir(parents=True)
    shutil.copy(SERVER, there / "tools" / "server.py")  # it exists only there
    config = (
        f'[mcp.servers.docs]\ncommand = {json.dumps(sys.executable)}\nargs = ["tools/server.py", "stdio"]\n'
    )
    code, found = _doctor(tmp_path, config, "--section", "mcp", "--executor", _execute(there))
    (fact,) = found["mcp"].values()
    assert code == 0 and fact["status"] == "ok", fact
    assert "mcp__docs__where" in fact["details"]


def test_with_an_executor_the_sandbox_section_says_the_commands_are_confined_there(tmp_path: Path) -> None:
    """This machine's kernel is not what confines an executor's commands: the sandbox section says
    so (and fails nothing on this kernel's account), and the executor's section says what the
    confinement there allows, with its root and its kernel's ABI."""
    fake = shlex.join([sys.executable, str(FAKE), "stall"])  # says hello with Landlock ABI 0
    code, found = _doctor(
        tmp_path, 'sandbox = "require"\n', "--section", "sandbox", "--section", "executor", "--executor", fake
    )
    sandbox, there = found["sandbox"], found["executor"]
    assert code == 1 and "Landlock" not in sandbox and "auto-allowed lines" not in sandbox
    assert "run in the executor" in sandbox["commands"]["value"]
    assert all(fact["status"] == "info" for fact in sandbox.values()), sandbox
    refused = 'required (sandbox = "require") but the executor\'s kernel has no Landlock'
    assert there["auto-allowed lines there"]["value"].startswith(refused)
    assert there["approved lines there"]["value"].startswith(refused)


def test_the_executors_confinement_is_described_for_its_root(tmp_path: Path) -> None:
    there = tmp_path / "elsewhere" / "root"
    there.mkdir(parents=True)
    _, found = _doctor(tmp_path, "", "--section", "executor", "--executor", _execute(there))
    facts = found["executor"]
    approved = facts["approved lines there"]["value"]
    if facts["Landlock there"]["value"] == "none":
        assert approved.startswith("none: the executor's kernel has no Landlock")
    else:
        assert str(there) in approved
    _, here = _doctor(tmp_path, "", "--section", "sandbox")
    assert "Landlock" in here["sandbox"] and "commands" not in here["sandbox"]

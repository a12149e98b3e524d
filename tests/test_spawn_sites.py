"""Every program bastion starts gets a scrubbed environment (issue 24): the places in the code that
start a program are listed from its AST and must be exactly the table below; each hands the child an
environment of its own making (never the process's by default), and each names the test that starts
it with keys in the environment and finds none in the child."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Private: the redaction holder, an MCP header's command and the re-exec are spawn sites tested.
from bastion._safe import holding
from bastion.agent.mcp import ServerConfig, header_values

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-spawn-site-key-0123456789abcdef"

# (file, function) -> (what the child's environment is, the test that proves it by running it).
SITES = {
    ("bastion/workspace/_exec.py", "_run"): (
        "the workspace's exec: the env its caller gives",
        "tests/agent/test_key_leaks.py::test_no_child_finds_a_key_in_bastions_own_proc_entry_and_nothing_written_holds_one",
    ),
    ("bastion/agent/tools/_bash.py", "_execute"): (
        "a bash line: the workspace's scrubbed env (an auto-allowed plan: that, neutralised)",
        "tests/agent/test_keys.py::test_the_keys_variable_is_not_in_the_commands_environment",
    ),
    ("bastion/analyzer/git/_configread.py", "ask"): (
        "where git keeps its system config, learnt by a server's spare child: PATH alone, neutralised",
        "tests/test_spawn_sites.py::test_the_spares_git_gets_no_key",
    ),
    ("bastion/analyzer/git/_prober.py", "_git"): (
        "the git probe: the workspace's scrubbed env, neutralised (a hook's workspace: empty)",
        "tests/test_spawn_sites.py::test_the_hooks_git_gets_no_key",
    ),
    ("bastion/sandbox/_launch.py", "main"): (
        "the launcher becomes the command with the env the workspace's exec gave it",
        "tests/agent/test_key_leaks.py::test_no_child_finds_a_key_in_bastions_own_proc_entry_and_nothing_written_holds_one",
    ),
    ("bastion/agent/tools/_grep.py", "_run"): (
        "the grep worker: PATH alone",
        "tests/test_spawn_sites.py::test_every_spawn_site_is_known_and_hands_its_child_an_environment",
    ),
    ("bastion/agent/providers/_keys.py", "_run"): (
        "api_key_command: your env less the key variables",
        "tests/agent/test_keys.py::test_a_key_command_runs_without_the_key_variables_but_with_its_own_credentials",
    ),
    ("bastion/agent/mcp/_headers.py", "_printed"): (
        "an MCP header's command: your env less the key variables",
        "tests/test_spawn_sites.py::test_a_header_command_gets_no_key_variable",
    ),
    ("bastion/agent/mcp/_stdio.py", "local_stdio"): (
        "a stdio MCP server: the scrubbed env plus its own",
        "tests/agent/test_key_leaks.py::test_no_child_finds_a_key_in_bastions_own_proc_entry_and_nothing_written_holds_one",
    ),
    ("bastion/doctor/_sections.py", "git"): (
        "doctor's git --version: a session's children's env",
        "tests/doctor/test_doctor_keys.py::test_no_program_doctor_starts_gets_a_key",
    ),
    ("bastion/workspace/_link.py", "__init__"): (
        "the executor's transport: your env less credentials and the key, its pass_env kept",
        "tests/workspace/test_executor_keys.py::test_the_executor_never_receives_a_key_or_the_stamp_key",
    ),
    ("bastion/workspace/_spawn.py", "__init__"): (
        "bastion execute starts an MCP server: its scrubbed env, the pass_env named there, its env",
        "tests/workspace/test_executor_mcp.py::test_an_mcp_server_starts_on_the_executor_and_answers_from_its_root",
    ),
    ("bastion/workspace/_serve.py", "exec"): (
        "bastion execute runs a command: the env the session sends, the executor's own scrubbed there",
        "tests/workspace/test_executor_keys.py::test_the_executor_never_receives_a_key_or_the_stamp_key",
    ),
    ("bastion/_handover.py", "_again"): (
        "bastion itself, executed again: your env less the key variables",
        "tests/agent/test_key_leaks.py::test_the_re_executed_bastion_keeps_piped_input_and_a_signal_ends_it_as_before",
    ),
    ("bastion/__main__.py", "<module>"): (
        "`python -m bastion` without -I, executed again with -I: its own env (a key then leaves by _again)",
        "tests/test_entry_isolated.py::test_python_m_bastion_is_executed_again_isolated_then_without_its_key",
    ),
    ("bastion/resident/_client.py", "_start"): (
        "the resident server: the locale's variables only (LANG, LC_ALL, LC_CTYPE)",
        "tests/resident/test_resident.py::test_the_server_holds_no_key_and_ends_when_idle",
    ),
    ("bastion/resident/_server.py", "serve"): (
        "the server forks a child per call, which runs no program and takes one client's env",
        "tests/resident/test_resident.py::test_the_environment_the_call_runs_in_is_the_one_decided_in",
    ),
}  # fmt: skip

_SUBPROCESS = {"Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}
_OS = re.compile(r"^(exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?|system|popen|fork|forkpty)$")
_ASYNC = {"create_subprocess_exec", "create_subprocess_shell", "open_process", "run_process"}


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _spawn(call: ast.Call) -> str | None:
    """What kind of start a call is, if it is one."""
    func = call.func
    owner = _name(func.value) if isinstance(func, ast.Attribute) else ""
    name = _name(func)
    if (owner == "subprocess" and name in _SUBPROCESS) or (owner == "os" and _OS.match(name)):
        return f"{owner}.{name}"
    if name in _ASYNC or name == "StdioServerParameters":
        return name
    if name == "ExecRequest":  # what a workspace runs: its environment is chosen where it is made
        return "Workspace.exec"
    return None


class _Finder(ast.NodeVisitor):
    """The starts in a module, each under the innermost function it is written in."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.function = "<module>"
        self.found: dict[tuple[str, str], list[ast.Call]] = {}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:  # noqa: N802
        outer, self.function = self.function, node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_Call(self, node: ast.Call) -> None:  # noqa: N802
        if _spawn(node) is not None:
            self.found.setdefault((self.path, self.function), []).append(node)
        self.generic_visit(node)


def _sites() -> dict[tuple[str, str], list[ast.Call]]:
    found: dict[tuple[str, str], list[ast.Call]] = {}
    for path in sorted((ROOT / "bastion").rglob("*.py")):
        finder = _Finder(str(path.relative_to(ROOT)))
        finder.visit(ast.parse(path.read_text(encoding="utf-8")))
        found.update(finder.found)
    return found


def _environment(call: ast.Call) -> ast.expr | None:
    """The environment a start hands its child: env=, or execve's third argument."""
    for keyword in call.keywords:
        if keyword.arg == "env":
            return keyword.value
    if _name(call.func) in ("execve", "execvpe", "posix_spawn") and len(call.args) == 3:
        return call.args[2]
    return None


def test_every_spawn_site_is_known_and_hands_its_child_an_environment() -> None:
    sites = _sites()
    assert set(sites) == set(SITES)
    for (path, function), calls in sites.items():
        for call in calls:
            if (path, function) == ("bastion/resident/_server.py", "serve"):
                assert _name(call.func) == "fork"  # no program: a copy of the server, exec'ing nothing
                continue
            if (path, function) == ("bastion/sandbox/_launch.py", "main"):
                # The launcher starts the command (posix_spawnp) with the environment _exec gave it.
                assert _name(call.func) == "posix_spawnp"
                continue
            env = _environment(call)
            assert env is not None, f"{path}:{call.lineno} starts a program with the process's environment"
            assert not (isinstance(env, ast.Attribute) and env.attr == "environ"), f"{path}:{call.lineno}"
    grep = [c for c in sites[("bastion/agent/tools/_grep.py", "_run")] if _environment(c) is not None]
    assert [ast.unparse(_environment(c) or ast.Constant(None)) for c in grep] == ["{'PATH': os.defpath}"]


def test_each_site_names_a_test_that_exists() -> None:
    for what, proof in SITES.values():
        file, _, name = proof.partition("::")
        assert re.search(rf"^def {name}\(", (ROOT / file).read_text(), re.MULTILINE), (what, proof)


def test_the_spawn_finder_sees_each_way_of_starting_a_program() -> None:
    code = (
        "import os, subprocess\n"
        "def a():\n    subprocess.run(['x'])\n"
        "def b():\n    os.execvp('x', ['x'])\n"
        "def c(ws):\n    ws.exec(ExecRequest(['x']))\n"
        "def d():\n    StdioServerParameters(command='x')\n"
        "def e():\n    os.system('x')\n"
    )
    calls = [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Call) and _spawn(n)]
    assert len(calls) == 5 and [_environment(c) for c in calls] == [None] * 5


def test_a_header_command_gets_no_key_variable(tmp_path: Path) -> None:
    dump = tmp_path / "env.json"
    helper = tmp_path / "header.py"
    helper.write_text(
        f"import json, os\njson.dump(dict(os.environ), open({str(dump)!r}, 'w'))\nprint('v-0123456789')\n"
    )
    config = ServerConfig.model_validate(
        {"url": "http://127.0.0.1:9/mcp", "headers": {"X-Key": {"command": [sys.executable, str(helper)]}}}
    )
    environ = {"PATH": os.defpath, "OPENAI_API_KEY": KEY, "PLAIN_NAME": KEY, "OTHER": "kept"}
    with holding():
        assert header_values(config, environ, scrub=("OPENAI_API_KEY", "plain_name")) == {
            "X-Key": "v-0123456789"
        }
    got = json.loads(dump.read_text())
    assert KEY not in json.dumps(got) and got["OTHER"] == "kept"


@pytest.mark.skipif(
    shutil.which("strace") is None or shutil.which("git") is None, reason="needs strace and git"
)
def test_the_hooks_git_gets_no_key(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    call = {"cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "git status"}}  # fmt: skip
    trace = tmp_path / "trace"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "x"),
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    done = subprocess.run(
        ["strace", "-f", "-qq", "-v", "-s", "65535", "-e", "trace=execve", "-o", str(trace),
         sys.executable, "-I", "-m", "bastion", "hook", "claude-code"],
        input=json.dumps(call), env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow", done.stdout
    execs = [line for line in trace.read_text().splitlines() if "execve(" in line]
    assert any("/git" in line.split(",")[0] for line in execs)  # the probe ran git
    assert [line for line in execs[1:] if KEY in line] == []  # execs[0]: strace starting the hook
    assert sum(line.split(",")[0].endswith(f'"{sys.executable}"') for line in execs) == 1  # not again


def test_the_spares_git_gets_no_key(tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    code = "import os; from bastion.analyzer import learn_git_system; learn_git_system(os.environ)"
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    subprocess.run(
        ["strace", "-f", "-qq", "-v", "-s", "65535", "-e", "trace=execve", "-o", str(trace), sys.executable,
         "-c", code], env=env, check=True, timeout=120,
    )  # fmt: skip
    execs = [line for line in trace.read_text().splitlines() if "execve(" in line]
    assert any("/git" in line.split(",")[0] for line in execs)  # it asked git
    assert [line for line in execs[1:] if KEY in line] == []


@pytest.mark.parametrize(
    ("argv", "executed_again"),
    [
        (["check", "--", "ls"], False),
        (["audit", "--format", "jsonl", os.devnull], False),
        (["sessions", "--help"], False),
        (["--version"], False),  # prints a constant: it holds no key, so it starts as fast as it can
        (["--help"], True),
        (["doctor", "--help"], True),
    ],
)
def test_only_the_paths_that_hold_a_key_take_it_out_of_the_process(
    argv: list[str], executed_again: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import bastion._handover
    from bastion.cli import main

    called: list[list[str]] = []
    monkeypatch.setattr(bastion._handover, "keep_keys_out", lambda args: called.append(list(args)))
    monkeypatch.setattr(sys, "argv", ["bastion", *argv])
    monkeypatch.setattr(sys, "stdin", io.StringIO("{}"))
    main()
    assert called == ([argv] if executed_again else [])

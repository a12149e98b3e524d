"""The layers point one way, checked by AST over every module (grammar <- workspace <- analyzer <-
config <- policy <- audit/agent <- cli, sandbox and the error root at the bottom); the policy core
imports nothing from the agent side; a dry-run loads only what its line needs."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys
from collections.abc import Mapping, Sequence

import pytest

from tests.graph import Module, bastion_imports, cycles, module_graph, read_modules
from tests.loaded import modules_loaded

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = ("grammar", "analyzer", "config", "policy")
# The vendor SDKs and the HTTP client they bring (httpx2), and what else only the agent needs (`acp`: the
# Agent Client Protocol's SDK, `bastion acp`'s; `textual`: the terminal client's).
FORBIDDEN = (
    "bastion.agent", "anthropic", "openai", "httpx2", "httpx", "prompt_toolkit", "mcp", "rich", "acp",
    "textual",
)  # fmt: skip


def _imports(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = ".".join(path.relative_to(ROOT).with_suffix("").parts[: -node.level])
                names.append(f"{package}.{node.module}" if node.module else package)
            else:
                names.append(node.module or "")
    return names


@pytest.mark.parametrize("package", CORE)
def test_the_core_package_imports_nothing_from_the_agent_side(package: str) -> None:
    bad = [
        (str(p.relative_to(ROOT)), name)
        for p in sorted((ROOT / "bastion" / package).rglob("*.py"))
        for name in _imports(p)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    ]
    assert bad == []


def test_importing_the_core_and_the_check_command_loads_no_heavy_module() -> None:
    code = (
        "import sys, bastion.grammar, bastion.analyzer, bastion.policy, bastion.cli\n"
        f"bad = {FORBIDDEN!r}\n"
        "print(sorted(m for m in sys.modules if any(m == f or m.startswith(f + '.') for f in bad)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# The layers, bottom first: a module may import bastion's modules of its own package or of a lower
# layer, never of its own layer's other packages (audit and agent stand side by side) nor above.
LAYERS = {
    "bastion._lazy": -1,  # the packages' faces that load a name's module when first named: sys only
    "bastion._errors": 0,
    "bastion._safe": 0,  # redaction and safe display: the standard library only
    "bastion._handover": 2,  # the key variables out of the process at start (uses _safe, _files)
    "bastion._argv": 0,
    "bastion.resident": 0,  # the resident decider's client and server: the standard library only
    "bastion._files": 1,
    "bastion.sandbox": 1,
    "bastion.grammar": 2,
    "bastion.workspace": 3,
    "bastion.analyzer": 4,
    # The config files' table and their readers: below the policy, which builds its layers from what
    # they read, and the agent, which receives its AgentConfig; the fast reader keeps pydantic off
    # the dry-run path (NOT_FOR_A_HOOK below).
    "bastion.config": 5,
    "bastion.policy": 6,
    "bastion.audit": 7,
    "bastion.agent": 7,
    "bastion.doctor": 8,
    "bastion.serve": 8,
    "bastion.cli": 9,
    "bastion.__main__": 10,
}


def _owner(name: str, layers: Mapping[str, int] = LAYERS) -> str | None:
    """The entry of `layers` a dotted name belongs to (the longest that is a prefix), None for none."""
    owners = [p for p in layers if name == p or name.startswith(p + ".")]
    return max(owners, key=len) if owners else None


def _upward(modules: Sequence[Module], layers: Mapping[str, int] = LAYERS) -> list[tuple[str, str]]:
    """(module, name) for each import of a module that reaches its own layer's other packages or above."""
    found = []
    for source, module, is_package in modules:
        own = _owner(module, layers)
        for name in bastion_imports(source, module, is_package):
            target = _owner(name, layers)
            if own is not None and target is not None and target != own and layers[target] >= layers[own]:
                found.append((module, name))
    return found


MODULES = read_modules()


def test_every_module_has_a_layer() -> None:
    assert [m for _, m, _ in MODULES if m != "bastion" and _owner(m) is None] == []


def test_every_module_imports_only_its_own_package_and_the_layers_below() -> None:
    # The root package (bastion/__init__: the version and the error root) has no layer: it is not checked.
    assert _upward(MODULES) == []


def test_the_layer_check_sees_upward_and_sideways_imports() -> None:
    fake = [
        ("from ..agent import main\n", "bastion.policy._fake", False),
        ("if TYPE_CHECKING:\n    from ...policy import Gate\n", "bastion.analyzer.git._fake", False),
        ("def f() -> None:\n    from ..agent import main\n", "bastion.audit._fake", False),
        ("from . import _ok\nfrom ..grammar import parse\n", "bastion.analyzer", True),
    ]
    assert _upward(fake) == [
        ("bastion.policy._fake", "bastion.agent.main"),
        ("bastion.analyzer.git._fake", "bastion.policy.Gate"),
        ("bastion.audit._fake", "bastion.agent.main"),
    ]


# The agent's rooms, bottom first (docs/design.md, "The agent's rooms"): the runtime (the loop, its
# seams, the conversation's values, compaction, the harness) stands on nothing else of the agent;
# providers, skills and sessions on the runtime; the tools on skills; MCP's tools beside them; the
# fronts a person sees on all of those; sub-agents, the editor's front and the terminal client on the
# fronts; and the agent package itself (the command line, the wiring, doctor's provider facts) on top.
AGENT_ROOMS = {
    "bastion.agent.runtime": 0,
    "bastion.agent.providers": 1,
    "bastion.agent.skills": 1,
    "bastion.agent.sessions": 1,
    "bastion.agent.tools": 2,
    "bastion.agent.mcp": 3,
    "bastion.agent.front": 4,
    "bastion.agent.subagents": 5,
    "bastion.agent.acp": 5,
    "bastion.agent.client": 5,
    "bastion.agent": 6,
}
AGENT = [m for m in MODULES if _owner(m[1], AGENT_ROOMS) is not None]


def test_every_agent_module_is_in_a_room_and_the_top_holds_only_the_command_line_and_the_wiring() -> None:
    top = sorted(m for _, m, _ in AGENT if _owner(m, AGENT_ROOMS) == "bastion.agent")
    assert top == ["bastion.agent", "bastion.agent._main", "bastion.agent._setup", "bastion.agent._wiring"]


def test_the_agent_s_rooms_import_only_their_own_and_the_rooms_below() -> None:
    assert _upward(AGENT, AGENT_ROOMS) == []


# The analyzer's rooms, bottom first: the secret-looking patterns, then the result types every room
# returns (`_result`: Check, Context, Analysis, GitFinding); the program each command runs and the
# variables that make it load code (`programs`); the checkers by family with the command index
# (`commands`); git's checker, plan and probe (`git`); composition, which runs a checked reader on
# names another stage hands on (`composition`); and the driver on top (the package's face,
# `_analyze`, the facts and the stamp).
ANALYZER_ROOMS = {
    "bastion.analyzer._secrets": 0,
    "bastion.analyzer._result": 1,
    "bastion.analyzer.programs": 2,
    "bastion.analyzer.commands": 3,
    "bastion.analyzer.git": 4,
    "bastion.analyzer.composition": 5,
    "bastion.analyzer": 6,
}
ANALYZER = [m for m in MODULES if _owner(m[1], ANALYZER_ROOMS) is not None]


def test_the_analyzer_s_top_holds_only_the_driver_and_the_result_types() -> None:
    top = sorted(m for _, m, _ in ANALYZER if _owner(m, ANALYZER_ROOMS) == "bastion.analyzer")
    assert top == [
        "bastion.analyzer",
        "bastion.analyzer._analyze",
        "bastion.analyzer._facts",
        "bastion.analyzer._stamp",
    ]


def test_the_analyzer_s_rooms_import_only_their_own_and_the_rooms_below() -> None:
    assert _upward(ANALYZER, ANALYZER_ROOMS) == []
    # the check has teeth: a checker that reached composition would be named
    fake = [("from ..composition._compose import compose\n", "bastion.analyzer.commands._fake", False)]
    assert _upward(fake, ANALYZER_ROOMS) == [
        ("bastion.analyzer.commands._fake", "bastion.analyzer.composition._compose.compose")
    ]


def test_no_import_circle_anywhere_in_the_tree() -> None:
    # TYPE_CHECKING and function-level imports count: a circle a reader follows is a circle. The
    # tree is bastion, the tests and their helpers, the fuzz runs, the benchmarks and the harness.
    tops = ("bastion", "tests", "fuzz", "benchmarks", "integration")
    tree = [m for top in tops for m in read_modules(ROOT, top)]
    assert len(tree) > len(MODULES)
    assert cycles(module_graph(tree, tops)) == []


def test_the_room_check_sees_upward_and_sideways_imports_and_circles() -> None:
    fake = [
        ("if TYPE_CHECKING:\n    from ..front import Printer\n", "bastion.agent.runtime._fake", False),
        ("def f() -> None:\n    from ..sessions import Session\n", "bastion.agent.providers._fake", False),
        ("from .._wiring import build\n", "bastion.agent.acp._fake", False),
        ("from ..runtime import Agent\nfrom ._x import y\n", "bastion.agent.front._fake", False),
    ]
    assert _upward(fake, AGENT_ROOMS) == [
        ("bastion.agent.runtime._fake", "bastion.agent.front.Printer"),
        ("bastion.agent.providers._fake", "bastion.agent.sessions.Session"),
        ("bastion.agent.acp._fake", "bastion.agent._wiring.build"),
    ]
    circle = [
        ("from ._b import x\n", "bastion.agent.runtime._a", False),
        ("if TYPE_CHECKING:\n    from ._a import y\n", "bastion.agent.runtime._b", False),
        ("from ._a import y\n", "bastion.agent.runtime._c", False),
        ("from ._d import z\nfrom ._f import g\n", "bastion.agent.runtime", True),
        ("from . import w\n", "bastion.agent.runtime._d", False),  # its own package: loaded already
        ("from ..runtime import Agent\n", "bastion.agent.front._e", False),
        ("def g() -> None:\n    from ..front._e import f\n", "bastion.agent.runtime._f", False),
        ("from ._e import f\n", "bastion.agent.front", True),
    ]
    # runtime._f reaches front._e through front's __init__, which runs first.
    assert cycles(module_graph(circle)) == [
        [
            "bastion.agent.front",
            "bastion.agent.front._e",
            "bastion.agent.runtime",
            "bastion.agent.runtime._f",
        ],
        ["bastion.agent.runtime._a", "bastion.agent.runtime._b"],
    ]


_HOOK_CALL = (
    '{"session_id": "s", "cwd": CWD, "hook_event_name": "PreToolUse", "tool_name": "Bash",'
    ' "tool_input": {"command": "ls -la"}}'
)
_CODEX_PATCH = (
    '{"session_id": "s", "cwd": CWD, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",'
    ' "tool_input": {"command": "*** Begin Patch\\n*** Add File: a.txt\\n+a\\n*** End Patch"}}'
)


@pytest.mark.parametrize(
    ("argv", "stdin"),
    [
        (["hook", "claude-code"], _HOOK_CALL),
        (["hook", "codex", "--strict"], _CODEX_PATCH),
        (["audit", "--format", "jsonl", "CALLS"], ""),
    ],
    ids=["hook", "codex-patch", "audit"],
)
def test_the_hooks_and_audit_load_no_sdk_or_http_client(
    tmp_path: pathlib.Path, argv: list[str], stdin: str
) -> None:
    calls = tmp_path / "calls.jsonl"
    call = {"tool": "bash", "args": {"command": "ls -la"}, "cwd": str(tmp_path)}
    calls.write_text(json.dumps(call) + "\n")
    argv = [str(calls) if a == "CALLS" else a for a in argv]
    stdin = stdin.replace("CWD", json.dumps(str(tmp_path)))
    code = (
        "import contextlib, io, os, sys\n"
        "from bastion.cli import main\n"
        f"sys.stdin = io.StringIO({stdin!r})\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        f"    code = main({argv!r})\n"
        "assert code == 0, code  # the call was decided (allowed), not refused as bad input\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    assert modules_loaded(code, FORBIDDEN, env) == []


def test_the_agent_s_other_fronts_do_not_load_the_editor_protocol_nor_the_terminal_client() -> None:
    # The ACP SDK (`acp`) is `bastion acp`'s alone, Textual the terminal client's: the REPL, -p and the
    # sessions' commands never load either.
    code = (
        "import sys, bastion.cli, bastion.agent._main, bastion.agent.front._repl, bastion.agent._wiring\n"
        "import bastion.agent.sessions._sessions_cli\n"
        "heavy = ('acp', 'textual', 'bastion.agent.acp', 'bastion.agent.client')\n"
        "print(sorted(m for m in sys.modules if m in heavy or m.startswith(tuple(h + '.' for h in heavy))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_p_run_loads_nothing_of_the_terminal_client(tmp_path: pathlib.Path) -> None:
    from tests.agent.scripted_server import ScriptedServer

    with ScriptedServer([{"text": "answered"}]) as server:
        argv = ["-p", "hi", "--provider", "openai", "--base-url", server.url + "/v1", "--config", os.devnull]
        code = (
            "import contextlib, io\n"
            "from bastion.agent import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    assert main({argv!r}) == 0\n"
            "assert 'answered' in out.getvalue(), out.getvalue()\n"
        )
        env = {**os.environ, "BASTION_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sk-test"}
        assert modules_loaded(code, ("textual", "bastion.agent.client"), env) == []


# What a dry-run of a line inside the subset, without git and without a config, never needs: the
# parser generator, the rule grammar, config validation, the cut of other lines, processes, git, stamps,
# hashlib (OpenSSL's load: only a script's digest and a stamp need it) and threading (issue 31).
UNNEEDED = (
    "lark", "interegular", "pyparsing", "pydantic", "tomllib", "bashlex", "argparse", "dataclasses",
    "subprocess", "hmac", "secrets", "bastion.workspace._exec", "bastion.analyzer.git",
    "bastion.analyzer._stamp", "bastion.analyzer._facts", "bastion.policy._cut", "hashlib", "threading",
)  # fmt: skip


def test_a_dry_run_of_a_subset_line_loads_nothing_it_does_not_need(tmp_path: object) -> None:
    code = (
        "import os\n"
        "from bastion.policy import DryRun\n"
        f"DryRun(os.devnull).check({str(tmp_path)!r}, 'bash', {{'command': 'ls -la | head'}})"
    )
    assert modules_loaded(code, UNNEEDED) == []


def test_bastion_check_of_a_subset_line_loads_nothing_it_does_not_need(tmp_path: object) -> None:
    code = (
        "import os\n"
        "from bastion.cli import main\n"
        f"main(['check', '--config', os.devnull, '--cwd', {str(tmp_path)!r}, '--', 'ls -la | head'])"
    )
    assert modules_loaded(code, UNNEEDED) == []


def test_what_the_analyzer_loads_when_first_named_is_there_when_named() -> None:
    code = (
        "import bastion.analyzer as a\n"
        "print(a.Stamper.__module__, a.probe_git.__module__,\n"
        "      a.neutral_env.__module__, a.plan_facts.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    modules = ("_stamp", "git._probe", "git._neutral", "_facts")
    assert out.split() == [f"bastion.analyzer.{m}" for m in modules]


# What `bastion --version` and a hook call never need (issue 31): the agent and the SDKs, pydantic
# and the config models, lark's grammar compiler (every grammar runs from its tables), the rule
# grammar (a plain config's rules are read plainly), argparse (a plain command line is read plainly)
# and dataclasses (whose import brings inspect).
NOT_FOR_A_HOOK = (
    *FORBIDDEN, "pydantic", "bastion.config._schema", "lark", "interegular", "pyparsing", "argparse",
    "dataclasses",
)  # fmt: skip
TWENTY_RULES = (
    "[policy]\n"
    'allow = ["bash(make test:*)", "bash(make lint)", "bash(npm run build:*)", "bash(npm test:*)",'
    ' "bash(pytest -q:*)", "bash(cargo check:*)", "bash(cargo test:*)", "Edit(src/**)", "Write(docs/**)",'
    ' "bash(go test ./...)"]\n'
    'ask = ["bash(git push:*)", "bash(docker:*)", "Read(**/*.sqlite)", "bash(kubectl:*)"]\n'
    'deny = ["bash(rm -rf:*)", "bash(curl:*)", "bash(wget:*)", "Read(./Finance (2024)/**)",'
    ' "write(/etc/**)", "bash(sudo:*)"]\n'
)


def test_bastion_version_loads_nothing_but_the_command_itself() -> None:
    code = (
        "import contextlib, io\n"
        "from bastion.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['--version']) == 0\n"
        "assert out.getvalue().startswith('bastion '), out.getvalue()\n"
    )
    # redirect_stdout brings contextlib, and io is loaded at start: nothing else may come.
    assert modules_loaded(code, (*NOT_FOR_A_HOOK, "re", "json", "typing", "bastion.policy")) == []


@pytest.mark.parametrize(
    ("agent", "tool", "command"),
    [
        ("claude-code", "Bash", "git status"),
        ("claude-code", "Bash", "sed -n '/a/,/b/p' README.md"),
        ("codex", "apply_patch", "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch"),
    ],
    ids=["git-status", "sed-script", "codex-patch"],
)
def test_a_hook_call_with_a_user_config_loads_only_what_its_decision_needs(
    tmp_path: pathlib.Path, agent: str, tool: str, command: str
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("a\nb\n")
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@x"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"]):
        subprocess.run([*git, *step], cwd=repo, check=True, capture_output=True)
    (tmp_path / "xdg" / "bastion").mkdir(parents=True)
    (tmp_path / "xdg" / "bastion" / "config.toml").write_text(TWENTY_RULES)
    payload = {"session_id": "s", "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": tool}
    stdin = json.dumps({**payload, "tool_input": {"command": command}})
    code = (
        "import contextlib, io, json, sys\n"
        "from bastion.cli import main\n"
        f"sys.stdin = io.StringIO({stdin!r})\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    assert main(['hook', {agent!r}]) == 0\n"
        "answer = out.getvalue()\n"
        "assert answer == '' or 'allow' in answer, answer  # decided, not refused as bad input\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    env.update(GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    assert modules_loaded(code, NOT_FOR_A_HOOK, env) == []

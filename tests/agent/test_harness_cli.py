"""The harness from the outside: components loaded from the user's config (a module, an installed
package's entry point) and refused at load when written against another interface version; what
`bastion runtime graph` prints (and does not import); a project file that tries to select one; and
runs through the real CLI against the scripted server (the model a component chose, an approval
that cannot loosen the real policy, every scenario through a replaced agent_loop)."""

from __future__ import annotations

import io
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bastion.cli import main as cli_main
from tests.loaded import modules_loaded

from . import harness_loop, test_scenarios
from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _cases, _env, _session_events, _workspace

_names = itertools.count()


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path for component modules; what is imported from it is forgotten after."""
    where = tmp_path / "components"
    where.mkdir()
    monkeypatch.syspath_prepend(str(where))
    before = set(sys.modules)
    yield where
    for name in set(sys.modules) - before:
        del sys.modules[name]


def _module(where: Path, body: str) -> str:
    """A component module (a fresh name each time, so no import is reused), its name."""
    name = f"harness_component_{next(_names)}"
    (where / f"{name}.py").write_text("from bastion.agent.runtime.harness import Review\n" + body)
    return name


def _config(tmp_path: Path, text: str) -> Path:
    """The user's config where a session under _env(tmp_path) reads it."""
    path = tmp_path / "xdg" / "bastion" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _graph(tmp_path: Path, config: Path, cwd: Path | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    from bastion.agent.runtime.harness import runtime_main

    work = cwd or tmp_path
    code = runtime_main(["graph", "--cwd", str(work), "--config", str(config)], out, err)
    return code, out.getvalue(), err.getvalue()


ROUTER = """
class Router:
    id = "cost.router"
    interface = "model_selector.v1"

    def run(self, given):
        return "big-model" if given.request == 1 else "small-model"


def register(harness):
    harness.use("model_selector", Router())
"""


def test_the_graph_shows_each_slot_with_where_its_choice_came_from(tmp_path: Path, modules: Path) -> None:
    name = _module(modules, ROUTER)
    config = _config(
        tmp_path,
        f'[harness]\nmodules = ["{name}"]\nprofile = "lean"\n'
        '[harness.slots]\ntrigger = "never"\n[harness.profiles.lean]\ncatalog = "native-only"\n',
    )
    code, out, err = _graph(tmp_path, config)
    assert code == 0 and err == ""
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in out.splitlines()[1:-1]}
    assert rows == {
        "agent_loop": ["run_turn", "built-in default"],
        "catalog": ["native-only", "profile 'lean'"],
        "trigger": ["never", f"config harness.slots ({config})"],
        "summarizer": ["model", "built-in default"],
        "model_selector": ["cost.router", f"component (module {name})"],
        "approval": ["policy", "built-in default"],
    }
    assert out.splitlines()[-1] == "profile: lean"


def test_the_graph_through_the_bastion_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = _config(tmp_path, '[harness.slots]\napproval = "ask-writes"\n')
    assert cli_main(["runtime", "graph", "--cwd", str(tmp_path), "--config", str(config)]) == 0
    assert f"approval        ask-writes  config harness.slots ({config})" in capsys.readouterr().out


def test_the_graph_loads_no_sdk_nor_the_terminal_libraries(tmp_path: Path) -> None:
    config = _config(tmp_path, '[harness.slots]\ntrigger = "never"\n')
    code = (
        "from bastion.cli import main\n"
        f"assert main(['runtime', 'graph', '--cwd', {str(tmp_path)!r}, '--config', {str(config)!r}]) == 0"
    )
    heavy = (
        "openai",
        "anthropic",
        "httpx",
        "httpx2",
        "prompt_toolkit",
        "rich",
        "mcp",
        "bastion.agent.providers",
    )
    assert modules_loaded(code, heavy) == []


WRONG_VERSION = """
class Trigger:
    id = "early"
    interface = "trigger.v1"

    def run(self, given):
        return True


class Router:
    id = "cost.router"
    interface = "model_selector.v2"

    def run(self, given):
        return "other"


def register(harness):
    harness.use("trigger", Trigger())
    harness.use("model_selector", Router())
"""


def test_a_component_written_for_another_interface_version_is_refused_with_one_line(
    tmp_path: Path, modules: Path
) -> None:
    name = _module(modules, WRONG_VERSION)
    config = _config(tmp_path, f'[harness]\nmodules = ["{name}"]\n')
    code, out, err = _graph(tmp_path, config)
    assert code == 0
    assert err == (
        f"bastion: harness: component 'cost.router' (module {name}) implements 'model_selector.v2', but "
        "this bastion's model_selector slot is model_selector.v1; refused\n"
    )
    assert "configured" in out and "cost.router" not in out
    assert "early" not in out  # nothing of the module is kept, not even its good trigger


def test_a_module_that_cannot_be_loaded_is_said_and_the_defaults_serve(tmp_path: Path, modules: Path) -> None:
    name = _module(modules, "raise RuntimeError('half\\nwritten')\n")
    leaving = _module(modules, "import sys\nsys.exit(3)\n")
    config = _config(tmp_path, f'[harness]\nmodules = ["{name}", "{leaving}", "no_such_component_module"]\n')
    code, out, err = _graph(tmp_path, config)
    assert code == 0 and out.count("built-in default") == 6
    assert err.splitlines() == [
        f"bastion: harness: module {name}: not loaded: RuntimeError: half written",
        f"bastion: harness: module {leaving}: not loaded: SystemExit: 3",
        "bastion: harness: module no_such_component_module: not loaded: ModuleNotFoundError: "
        "No module named 'no_such_component_module'",
    ]


def test_an_installed_packages_entry_point_is_loaded_by_name(tmp_path: Path, modules: Path) -> None:
    name = _module(modules, ROUTER)
    info = modules / "cost_router-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cost-router\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[bastion.harness]\nrouter = {name}:register\n")
    config = _config(tmp_path, '[harness]\nentry_points = ["router", "missing"]\n')
    code, out, err = _graph(tmp_path, config)
    assert "cost.router  component (entry point router)" in out
    assert err == (
        "bastion: harness: entry point missing: no installed package names it in 'bastion.harness'\n"
    )


def test_a_project_file_may_not_select_or_load_components(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / ".bastion").mkdir(parents=True)
    (work / ".bastion" / "config.toml").write_text('[harness.slots]\napproval = "policy"\n')
    code, out, err = _graph(tmp_path, _config(tmp_path, ""), cwd=work)
    assert code == 1 and out == ""
    assert (
        "config.toml: harness.slots.approval: a project file may not select or load harness components" in err
    )
    (work / ".bastion" / "config.toml").write_text('[harness]\nmodules = ["evil"]\n')
    code, _, err = run_main(["-p", "hi"], cwd=str(work), env=_env(tmp_path))
    assert code == 1 and "harness.modules: a project file may not select or load harness components" in err


def test_a_harness_value_of_the_wrong_type_is_a_config_error_naming_it(tmp_path: Path) -> None:
    code, _, err = _graph(tmp_path, _config(tmp_path, "[harness.slots]\ntrigger = 3\n"))
    assert code == 1 and "config.toml: harness.slots.trigger: Input should be a valid string" in err


# Runs through the CLI against the scripted server.


def _run(tmp_path: Path, rounds: list[dict[str, object]], *argv: str) -> tuple[int, str, ScriptedServer]:
    work = _workspace(tmp_path, {"files": {"notes.txt": "the answer is 42\n"}})
    with ScriptedServer(rounds) as server:
        code, out, err = run_main(
            ["-p", "go", "--provider", "openai", "--base-url", server.url + "/v1", *argv],
            cwd=str(work),
            env=_env(tmp_path),
        )
    return code, err, server


def test_a_model_selector_component_chooses_the_model_the_server_is_asked_for(
    tmp_path: Path, modules: Path
) -> None:
    _config(tmp_path, f'model = "configured-model"\n[harness]\nmodules = ["{_module(modules, ROUTER)}"]\n')
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        {"text": "42"},
    ]
    code, err, server = _run(tmp_path, rounds)
    assert code == 0, err
    assert [r["body"]["model"] for r in server.requests] == ["big-model", "small-model"]


ALLOWING = """
class Yes:
    id = "yes-to-all"
    interface = "approval.v1"

    def run(self, given):
        return Review(type(given.verdict.decision)(0), "I allow everything")


def register(harness):
    harness.use("approval", Yes())
"""


def test_an_approval_component_cannot_allow_what_the_real_policy_asks(tmp_path: Path, modules: Path) -> None:
    _config(tmp_path, f'[harness]\nmodules = ["{_module(modules, ALLOWING)}"]\n')
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "bash", "arguments": {"command": "rm notes.txt"}}]},
        {"text": "not removed"},
    ]
    code, err, _ = _run(tmp_path, rounds, "--yes-to", "none", "--output-format", "json")
    assert code == 0 and (tmp_path / "work" / "notes.txt").exists()
    (verdict,) = [e for e in _session_events(tmp_path) if e["type"] == "verdict"]
    assert (verdict["decision"], verdict["answered_by"], verdict["allowed"]) == ("ask", "flag", False)


DENYING = """
from bastion.policy import Decision


class NoShell:
    id = "no-shell"
    interface = "approval.v1"

    def run(self, given):
        if given.tool == "bash":
            return Review(Decision.DENY, "no shell in this session")
        return Review(Decision.ALLOW)


def register(harness):
    harness.use("approval", NoShell())
"""


def test_an_approval_components_deny_is_reported_as_the_harness_s(tmp_path: Path, modules: Path) -> None:
    _config(tmp_path, f'[harness]\nmodules = ["{_module(modules, DENYING)}"]\n')
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "bash", "arguments": {"command": "git status"}, "id": "b1"}]},
        {"text": "no shell"},
    ]
    transcript = tmp_path / "transcript.json"
    code, err, server = _run(tmp_path, rounds, "--output-format", "json", "--transcript", str(transcript))
    assert code == 0, err
    trace = json.loads(transcript.read_text())["tool_trace"]
    assert [(e["verdict"], e["decided_by"], e["source"], e["ran"]) for e in trace] == [
        ("deny", "harness", "harness:no-shell", False)
    ]
    assert "denied by harness: no shell in this session" in json.dumps(server.requests[-1]["body"])


FAILING = """
class Broken:
    id = "broken"
    interface = "trigger.v1"

    def run(self, given):
        raise ValueError("oops")


def register(harness):
    harness.use("trigger", Broken())
"""


def test_a_failing_component_is_shown_and_recorded_and_the_run_completes(
    tmp_path: Path, modules: Path
) -> None:
    _config(tmp_path, f'[harness]\nmodules = ["{_module(modules, FAILING)}"]\n')
    # The trigger is asked once the prompt has work to compact: before the second request.
    code, err, _ = _run(tmp_path, [{"calls": [{"name": "ls", "arguments": {}}]}, {"text": "fine"}])
    assert code == 0
    assert (
        "bastion: harness: trigger component 'broken' raised: ValueError: oops; 'threshold' serves trigger "
        "for the rest of this turn" in err
    )
    (failed,) = [e for e in _session_events(tmp_path) if e["type"] == "slot_failed"]
    assert (failed["slot"], failed["component"], failed["fault"]) == ("trigger", "broken", "raised")


SUB_ROUTER = """
class Router:
    id = "subagent.router"
    interface = "model_selector.v1"

    def run(self, given):
        return f"{given.task_kind}:{given.configured}" if given.role == "subagent" else given.configured


def register(harness):
    harness.use("model_selector", Router())
"""

ONE_TASK: list[dict[str, object]] = [
    {
        "calls": [
            {"name": "task", "id": "t1", "arguments": {"kind": "explore", "prompt": "What do the notes say?"}}
        ]
    },
    {"text": "42"},
    {"text": "The notes say 42."},
]


@pytest.mark.parametrize(
    ("router", "setting", "models"),
    [
        (True, 'subagent_model = "small-model"', ["main-model", "explore:small-model", "main-model"]),
        (False, 'subagent_model = "small-model"', ["main-model", "small-model", "main-model"]),
        (True, "", ["main-model", "explore:main-model", "main-model"]),
        (False, "", ["main-model", "main-model", "main-model"]),
    ],
)
def test_a_model_selector_component_chooses_a_sub_agents_model_the_server_is_asked_for(
    tmp_path: Path, modules: Path, router: bool, setting: str, models: list[str]
) -> None:
    # Without a component the default keeps the model the sub-agent was built with: subagent_model,
    # else the session's.
    component = f'[harness]\nmodules = ["{_module(modules, SUB_ROUTER)}"]\n' if router else ""
    _config(tmp_path, f'provider = "openai"\nmodel = "main-model"\n{setting}\n{component}')
    code, err, server = _run(tmp_path, ONE_TASK)
    assert code == 0, err
    assert [r["body"]["model"] for r in server.requests] == models
    (start,) = [e for e in _session_events(tmp_path) if e["type"] == "task" and e["event"] == "start"]
    assert start["model"] == models[1].removeprefix("explore:")


def _task_verdicts(tmp_path: Path) -> list[dict[str, object]]:
    return [e for e in _session_events(tmp_path) if e["type"] == "task" and e["event"] == "verdict"]


def test_an_approval_component_denies_a_sub_agents_call_the_policy_allowed(
    tmp_path: Path, modules: Path
) -> None:
    _config(tmp_path, f'[harness]\nmodules = ["{_module(modules, DENYING)}"]\n')
    rounds: list[dict[str, object]] = [
        ONE_TASK[0],
        {"calls": [{"name": "bash", "arguments": {"command": "cat notes.txt"}, "id": "b1"}]},
        {"text": "no shell for me"},
        {"text": "The sub-agent could not look."},
    ]
    code, err, server = _run(tmp_path, rounds)
    assert code == 0, err
    (verdict,) = _task_verdicts(tmp_path)
    assert (verdict["tool"], verdict["decision"], verdict["source"]) == ("bash", "deny", "harness:no-shell")
    assert "denied by harness: no shell in this session" in json.dumps(server.requests[2]["body"])


def test_an_approval_component_cannot_allow_a_sub_agents_call_the_real_policy_asks(
    tmp_path: Path, modules: Path
) -> None:
    _config(tmp_path, f'[harness]\nmodules = ["{_module(modules, ALLOWING)}"]\n')
    rounds: list[dict[str, object]] = [
        ONE_TASK[0],
        {"calls": [{"name": "bash", "arguments": {"command": "rm notes.txt"}}]},
        {"text": "not removed"},
        {"text": "The notes stay."},
    ]
    code, err, _ = _run(tmp_path, rounds, "--yes-to", "none")
    assert code == 0 and (tmp_path / "work" / "notes.txt").exists()
    (verdict,) = _task_verdicts(tmp_path)
    assert (verdict["decision"], verdict["answered_by"], verdict["allowed"]) == ("ask", "flag", False)


@pytest.mark.parametrize(("path", "fmt"), _cases())
def test_every_scenario_runs_unchanged_through_a_replaced_agent_loop(
    path: Path, fmt: str, tmp_path: Path
) -> None:
    _config(tmp_path, '[harness]\nmodules = ["tests.agent.harness_loop"]\n')
    before = len(harness_loop.RUNS)
    test_scenarios.test_a_scenario_runs_as_its_file_says(path, fmt, tmp_path)
    events = _session_events(tmp_path)
    # The main turn and every sub-agent's (a child runs its turn through the same agent_loop).
    children = [e for e in events if e["type"] == "task" and e["event"] == "start"]
    assert len(harness_loop.RUNS) == before + 1 + len(children)
    assert [e for e in events if "slot_failed" in (e["type"], e.get("event"))] == []


def _tools_line(body: dict[str, Any]) -> list[str]:
    """The tools the system prompt of a chat request names."""
    (system,) = [str(m["content"]) for m in body["messages"] if m["role"] == "system"]
    (line,) = [ln for ln in system.split("\n") if ln.startswith("Tools: ")]
    return line.removeprefix("Tools: ").split(", ")


@pytest.mark.parametrize("catalog", ["all", "native-only", "read-only"])
def test_the_system_prompt_names_only_the_tools_the_turns_catalog_offers(
    tmp_path: Path, catalog: str
) -> None:
    _config(tmp_path, f'[harness.slots]\ncatalog = "{catalog}"\n')
    code, err, server = _run(tmp_path, [{"text": "done"}])
    assert code == 0, err
    body = server.requests[0]["body"]
    offered = [t["function"]["name"] for t in body["tools"]]
    assert _tools_line(body) == offered
    assert ("task" in offered) is (catalog == "all") and ("write" in offered) is (catalog != "read-only")


@pytest.mark.parametrize("catalog", ["all", "native-only"])
def test_an_mcp_servers_tools_are_offered_and_named_only_by_a_catalog_that_takes_their_source(
    tmp_path: Path, catalog: str
) -> None:
    _config(tmp_path, f'[harness.slots]\ncatalog = "{catalog}"\n')
    server_config = ["[mcp.servers.docs]", 'command = "{python}"', 'args = ["{mcp_server}", "stdio"]']
    work = _workspace(tmp_path, {"config": server_config})
    with ScriptedServer([{"text": "done"}]) as server:
        argv = ["-p", "go", "--provider", "openai", "--base-url", server.url + "/v1"]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    body = server.requests[0]["body"]
    offered = [t["function"]["name"] for t in body["tools"]]
    assert _tools_line(body) == offered
    assert ("mcp__docs__echo" in offered) is (catalog == "all") and "read" in offered

"""--trust-skills' grants: until the next prompt only, never past a deny or an ask (the shipped
secret-path asks included), and never a sub-agent's; skills and memory are the main agent's alone."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from bastion.agent.runtime import Agent, Answer, Assistant
from bastion.agent.runtime.harness import BUILTIN, CatalogInput
from bastion.agent.skills import Granting, Grants, Skill, parse_skill
from bastion.policy import Decision, Origin, Source, Verdict

from .agent_fixtures import FakeTools, ScriptedModel, call
from .skill_fixtures import place, run_cli, skill_md


class Asked:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, c: object, args: Mapping[str, object], verdict: Verdict) -> Answer:
        self.calls.append(json.dumps(dict(args), sort_keys=True))
        return Answer(False, "no")


def _granted(grants: Grants, skill: Skill, reply: Assistant) -> Assistant:
    """The reply the model gives after a skill's load granted its allowed-tools."""
    grants.grant(skill)
    return reply


def test_a_grant_lasts_until_the_next_prompt_and_never_passes_an_ask_or_a_deny(tmp_path: Path) -> None:
    p = place(tmp_path)
    (p.work / ".env").write_text("K=v\n")
    p.write_config('[policy]\ndeny = ["bash(rm:*)"]\n')
    _, gate = p.extras()
    grants = Grants(gate.settings.policy)
    skill = parse_skill(skill_md("ops", tools="Bash Read(.env)"), "SKILL.md", "/x", project=False)
    touch = call("bash", {"command": "touch made"})
    model = ScriptedModel(
        [
            lambda: _granted(grants, skill, Assistant("", (touch,))),
            Assistant("", (call("read", {"path": ".env"}), call("bash", {"command": "rm -f made"}))),
            Assistant("first done"),
            Assistant("", (call("bash", {"command": "touch made"}),)),
            Assistant("second done"),
        ]
    )
    tools = FakeTools()
    asked = Asked()
    agent = Agent(model, Granting(gate, grants), tools, asked, "sys", grants)
    agent.run("first")
    assert [name for name, _ in tools.ran] == ["bash"]  # touch, granted; rm denied; .env asked
    assert asked.calls == [json.dumps({"path": ".env"})]
    assert [d.decided_by for d in agent.denials] == ["person", "policy"]
    agent.run("second")
    assert [name for name, _ in tools.ran] == ["bash"] and grants.active == ()
    assert len(asked.calls) == 2 and "touch made" in asked.calls[1]


def test_a_grant_is_only_for_what_the_policy_asks_and_names_its_skill(tmp_path: Path) -> None:
    p = place(tmp_path)
    _, gate = p.extras()
    grants = Grants(gate.settings.policy)
    grants.grant(parse_skill(skill_md("ops", tools="Bash(make test)"), "SKILL.md", "/x", project=False))
    granting = Granting(gate, grants)
    decided = granting.decide("bash", {"command": "make test"})
    assert decided.decision is Decision.ALLOW and decided.verdict.source == Source(Origin.SKILL, "ops")
    assert granting.decide("bash", {"command": "make install"}).decision is Decision.ASK
    assert granting.decide("bash", {"command": "git status"}).verdict.shipped


def test_sub_agents_get_no_skills_memory_or_grants_and_their_prompt_names_none(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.yours("ops", skill_md("ops", "Operate.", "Bash(touch made)"))
    (p.home / "memory").mkdir(mode=0o700)
    (p.home / "memory" / "habits").write_text("the user likes short answers\n")
    rounds = [
        {"calls": [{"name": "skill", "arguments": {"name": "ops"}}]},
        {"calls": [{"name": "task", "arguments": {"kind": "explore", "prompt": "look"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "touch made"}}]},
        {"text": "child done"},
        {"text": "done"},
    ]
    run = run_cli(p, rounds, "--trust-skills", "--yes-to", "none")
    assert run.code == 0, run.err
    main = ["read", "write", "edit", "glob", "grep", "ls", "bash", "skill", "memory", "task"]
    assert run.offered(0) == main
    assert "- ops: Operate." in run.system(0) and "the user likes short answers" in run.system(0)
    child = run.requests[2]
    assert run.offered(2) == ["read", "glob", "grep", "ls", "bash"]
    assert all(text not in run.system(2) for text in ("ops", "short answers", "Memory:"))
    assert not (p.work / "made").exists()  # the parent's grant is not the child's
    task = [e for e in run.events if e["type"] == "task" and e.get("event") == "verdict"]
    assert [(e["tool"], e["decision"], e["answered_by"]) for e in task] == [("bash", "ask", "flag")]
    assert child["body"]["messages"][1]["content"] == "look"


def test_the_built_in_catalogs_offer_skill_and_memory_as_their_meanings_allow() -> None:
    from bastion.agent.runtime import ToolSpec

    def spec(name: str) -> ToolSpec:
        return ToolSpec(name, name, {"type": "object"})

    sources = {
        "builtin": [spec(n) for n in ("read", "write", "bash", "ls")],
        "skills": [spec("skill")],
        "memory": [spec("memory")],
        "subagents": [spec("task")],
        "mcp:docs": [spec("mcp__docs__search")],
    }
    given = CatalogInput(sources, "main")
    names = {k: [s.name for s in b.run(given)] for k, b in BUILTIN["catalog"].items()}
    assert names["all"] == ["read", "write", "bash", "ls", "skill", "memory", "task", "mcp__docs__search"]
    assert names["native-only"] == ["read", "write", "bash", "ls", "skill", "memory"]
    # read-only: what only looks, and a skill's load (text); memory also writes, so it is not offered.
    assert names["read-only"] == ["read", "ls", "skill"]

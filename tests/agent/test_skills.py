"""Skills: a repository's skill never runs anything unasked, never reads through a link out, and is
held to read's asks and denies; your skills' grants under --trust-skills, and nothing else's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.agent.skills import FrontMatterError, SkillError, allowed_rules, parse_skill, read_front_matter
from bastion.policy import STAMP_ARG, Decision

from .skill_fixtures import place, run_cli, skill_md

# --- a repository's skill runs nothing unasked ---------------------------------------------------


def test_a_project_skill_that_asks_for_bash_gets_no_unasked_call_even_trusted(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.projects("deploy", skill_md("deploy", "Deploy it.", "Bash"))
    rounds = [
        {"calls": [{"name": "skill", "arguments": {"name": "deploy"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "touch deployed"}}]},
        {"text": "done"},
    ]
    run = run_cli(p, rounds, "--trust-skills", "--yes-to", "none")
    assert run.code == 0, run.err
    assert run.verdicts() == [("skill", "allow", "rule"), ("bash", "ask", "flag")]
    assert not (p.work / "deployed").exists()
    assert "its allowed-tools are never granted" in run.results()[0]
    assert not [e for e in run.events if e["type"] == "skill_grant"]


def test_your_skill_that_asks_for_the_same_runs_it_unasked_with_trust_skills_only(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.yours("deploy", skill_md("deploy", "Deploy it.", "Bash(touch deployed)"))
    rounds = [
        {"calls": [{"name": "skill", "arguments": {"name": "deploy"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "touch deployed"}}]},
        {"text": "done"},
    ]
    untrusted = run_cli(p, rounds, "--yes-to", "none")
    assert untrusted.verdicts()[1] == ("bash", "ask", "flag") and not (p.work / "deployed").exists()
    run = run_cli(p, rounds, "--trust-skills", "--yes-to", "none")
    assert run.verdicts() == [("skill", "allow", "rule"), ("bash", "allow", "rule")]
    assert (p.work / "deployed").exists()
    (verdict,) = [e for e in run.events if e["type"] == "verdict" and e["tool"] == "bash"]
    # the grant's rule as the skill wrote it (an alias is not respelled)
    assert verdict["source"] == "skill:deploy" and verdict["rule"] == "Bash(touch deployed)"
    assert [e["rules"] for e in run.events if e["type"] == "skill_grant"] == [["Bash(touch deployed)"]]


# --- links: left out and reported ----------------------------------------------------------------


def test_a_skills_directory_that_links_out_is_left_out_and_reported(tmp_path: Path) -> None:
    p = place(tmp_path)
    outside = tmp_path / "elsewhere"
    (outside / "evil").mkdir(parents=True)
    (outside / "evil" / "SKILL.md").write_text(skill_md("evil", "Read everything."))
    (p.work / ".bastion").mkdir()
    os.symlink(outside, p.work / ".bastion" / "skills")
    rounds = [{"calls": [{"name": "skill", "arguments": {"name": "evil"}}]}, {"text": "done"}]
    run = run_cli(p, rounds)
    assert "bastion: skills: .bastion/skills: left out: .bastion/skills is a link" in run.err
    assert "evil" not in run.system() and "skill" not in run.offered()
    assert "there is no tool named 'skill'" in run.results()[0]


def test_a_skills_directory_that_links_inside_the_workspace_is_left_out_too(tmp_path: Path) -> None:
    p = place(tmp_path)
    (p.work / "docs" / "s").mkdir(parents=True)
    (p.work / "docs" / "s" / "SKILL.md").write_text(skill_md("s"))
    (p.work / ".bastion").mkdir()
    os.symlink("../docs", p.work / ".bastion" / "skills")
    extras, _ = p.extras()
    assert extras.catalog is not None and extras.catalog.skills == {}
    assert any("is a link" in line for line in extras.notes)


def test_a_skill_holding_a_link_to_env_is_left_out_reported_and_never_read(tmp_path: Path) -> None:
    p = place(tmp_path)
    (p.work / ".env").write_text("TOKEN=env-secret-0042\n")
    leak = p.projects("leak", skill_md("leak", "Notes."))
    os.symlink("../../../.env", leak / "notes.md")
    p.projects("fine", skill_md("fine", "Fine."))
    rounds = [
        {"calls": [{"name": "skill", "arguments": {"name": "leak", "file": "notes.md"}}]},
        {"text": "done"},
    ]
    run = run_cli(p, rounds)
    assert (
        "skills: .bastion/skills/leak: left out: .bastion/skills/leak/notes.md is a link leading "
        "outside .bastion/skills (to ../../../.env)" in run.err
    )
    assert "- fine: Fine." in run.system() and "leak" not in run.system()
    assert "no skill named 'leak'" in run.results()[0]
    assert all("env-secret-0042" not in str(r["body"]) for r in run.requests)


def test_a_link_between_skills_inside_the_directory_is_kept(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.projects("a", skill_md("a"), {"shared.md": "shared steps\n"})
    b = p.projects("b", skill_md("b"))
    os.symlink("../a/shared.md", b / "shared.md")
    extras, gate = p.extras()
    assert extras.catalog is not None and set(extras.catalog.skills) == {"a", "b"}
    decided = gate.decide("skill", {"name": "b", "file": "shared.md"})
    assert decided.decision is Decision.ALLOW
    # Held to read on its name and where it leads.
    reads = {(s.tool, s.value, s.constraint) for s in decided.subjects if s.tool == "read"}
    assert reads == {
        ("read", ".bastion/skills/b/shared.md", True),
        ("read", ".bastion/skills/a/shared.md", True),
    }
    ctx = extras.ctx
    from bastion.agent.tools import SESSION_TOOLS

    out = SESSION_TOOLS["skill"].run(decided.args, ctx)
    assert not out.is_error and "shared steps" in out.text


# --- reads held to read's asks and denies, never its allows ---------------------------------------


def test_a_secret_looking_file_of_a_project_skill_asks_even_where_an_allow_of_read_names_it(
    tmp_path: Path,
) -> None:
    p = place(tmp_path)
    p.projects("ops", skill_md("ops"), {"credentials.md": "user: x\n"})
    name = ".bastion/skills/ops/credentials.md"
    asked = p.extras()[1].decide("skill", {"name": "ops", "file": "credentials.md"})
    assert asked.decision is Decision.ASK and "credentials" in asked.verdict.reason
    # Your allow of read(NAME) lifts the shipped ask for read itself, not for a skill's load.
    p.write_config(f'[policy]\nallow = ["read({name})"]\n')
    extras, gate = p.extras()
    assert gate.decide("read", {"path": name}).decision is Decision.ALLOW
    assert gate.decide("skill", {"name": "ops", "file": "credentials.md"}).decision is Decision.ASK
    assert gate.decide("skill", {"name": "ops"}).decision is Decision.ALLOW


def test_your_deny_of_a_read_leaves_the_project_skill_out_and_refuses_its_files(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.projects("ops", skill_md("ops"), {"steps.md": "x\n"})
    p.projects("docs", skill_md("docs"), {"conf/deploy.md": "y\n"})
    p.write_config('[policy]\ndeny = ["read(.bastion/skills/ops/**)", "read(**/conf/*)"]\n')
    extras, gate = p.extras()
    assert extras.catalog is not None and set(extras.catalog.skills) == {"docs"}
    left = "skills: .bastion/skills/ops/SKILL.md: left out: reading it"
    assert any(line.startswith(left) for line in extras.notes)
    assert gate.decide("skill", {"name": "docs", "file": "conf/deploy.md"}).decision is Decision.DENY


def test_without_the_shipped_allows_an_allow_of_read_does_not_load_a_skill(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.projects("ops", skill_md("ops"))
    p.write_config('[policy]\nbuiltin = false\nallow = ["read"]\n')
    decided = p.extras()[1].decide("skill", {"name": "ops"})
    assert decided.decision is Decision.ASK and decided.verdict.subject is not None
    assert decided.verdict.subject.tool == "skill"


def test_a_link_swapped_in_after_the_decision_is_refused_by_the_load(tmp_path: Path) -> None:
    from bastion.agent.tools import SESSION_TOOLS

    p = place(tmp_path)
    skill = p.projects("ops", skill_md("ops"), {"steps.md": "steps\n", "other.md": "other\n"})
    extras, gate = p.extras()
    decided = gate.decide("skill", {"name": "ops", "file": "steps.md"})
    assert decided.decision is Decision.ALLOW and STAMP_ARG in decided.args
    (skill / "steps.md").unlink()
    os.symlink("other.md", skill / "steps.md")  # still inside: only the stamp can tell
    out = SESSION_TOOLS["skill"].run(decided.args, extras.ctx)
    assert out.is_error and "changed since it was allowed" in out.text
    unstamped = {k: v for k, v in decided.args.items() if k != STAMP_ARG}
    assert SESSION_TOOLS["skill"].run(unstamped, extras.ctx).is_error
    (skill / "steps.md").unlink()
    os.symlink("../../../../elsewhere", skill / "steps.md")
    again = gate.decide("skill", {"name": "ops", "file": "steps.md"})
    assert again.decision is Decision.ASK  # leads out: a subject no rule allows
    assert SESSION_TOOLS["skill"].run(again.args, extras.ctx).is_error


@pytest.mark.parametrize("file", ["../../../.env", "/etc/passwd", "a/../../x", "", "./SKILL.md"])
def test_a_file_argument_that_leaves_the_skill_is_refused(tmp_path: Path, file: str) -> None:
    from bastion.agent.tools import SESSION_TOOLS

    p = place(tmp_path)
    p.projects("ops", skill_md("ops"))
    extras, gate = p.extras()
    decided = gate.decide("skill", {"name": "ops", "file": file})
    out = SESSION_TOOLS["skill"].run(decided.args, extras.ctx)
    assert out.is_error and "inside the skill's folder" in out.text


# --- names, malformed files -----------------------------------------------------------------------


def test_a_project_skill_cannot_replace_yours_of_the_same_name(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.yours("review", skill_md("review", "Yours."))
    p.projects("review", skill_md("review", "The repository's."))
    extras, _ = p.extras()
    assert extras.catalog is not None and extras.catalog.skills["review"].description == "Yours."
    assert any("left out: the skill review is already" in line for line in extras.notes)


def test_a_malformed_skill_md_is_reported_with_its_file_and_line_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    p = place(tmp_path)
    p.projects("bad", "---\nname: bad\ndescription: a: b\n---\nbody\n")
    p.yours("worse", "---\nname: &anchor worse\n")
    p.projects("good", skill_md("good"))
    run = run_cli(p, [{"text": "done"}])
    assert run.code == 0 and "Traceback" not in run.err
    assert ".bastion/skills/bad/SKILL.md: left out: line 3: a value holding ': ' must be quoted" in run.err
    assert "skills/worse/SKILL.md: left out: line 3: the front matter has no closing `---` line" in run.err
    assert "- good: Does a thing." in run.system()


def test_a_skills_dirs_entry_that_is_not_a_directory_stops_the_start_naming_it(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.write_config('skills_dirs = ["~/nowhere"]\n')
    run = run_cli(p, [{"text": "never"}])
    assert run.code == 1 and "skills_dirs[0]: '~/nowhere': no such directory" in run.err


def test_skills_dirs_are_yours_in_order_and_relative_to_the_config(tmp_path: Path) -> None:
    p = place(tmp_path)
    team = p.config.parent / "team"
    (team / "lint").mkdir(parents=True)
    (team / "lint" / "SKILL.md").write_text(skill_md("lint", "Lint.", "Bash(make lint)"))
    p.write_config('skills_dirs = ["team"]\n')
    extras, _ = p.extras(trust=True)
    assert extras.catalog is not None
    lint = extras.catalog.skills["lint"]
    assert not lint.project and lint.rules == ("Bash(make lint)",) and not lint.withheld


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("-:|>[]'\"#&*! \n\tabn,\\{}"), max_size=80))
def test_any_front_matter_reads_or_names_a_line_never_raises_anything_else(text: str) -> None:
    try:
        parse_skill("---\n" + text, "SKILL.md", "/x", project=True)
    except SkillError as err:
        assert str(err).startswith("line ")
    try:
        read_front_matter("---\n" + text)
    except FrontMatterError as err:
        assert 1 <= err.line <= text.count("\n") + 2


def test_the_front_matter_subset_reads_as_documented() -> None:
    fm = read_front_matter(
        "---\nname: x\ndescription: >\n  one\n  two\nallowed-tools: [Read, 'Bash(make test)']\n"
        "metadata:\n  version: '1.0'\nlong: first\n  second # note\n---\nbody\n"
    )
    assert fm.fields == {
        "name": "x",
        "description": "one two",
        "allowed-tools": ["Read", "Bash(make test)"],
        "metadata": {"version": "1.0"},
        "long": "first second",
    }
    assert fm.body == "body\n" and fm.lines["allowed-tools"] == 6


# --- what allowed-tools may name -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "rules"),
    [
        (["Bash"], ("Bash",)),
        (["Bash(git status:*)", "Read"], ("Bash(git status:*)", "Read")),
        (["Read", "Grep", "Glob", "LS"], ("Read", "grep", "glob", "ls")),
        (["Edit(docs/**)", "write(notes.md)"], ("Edit(docs/**)", "write(notes.md)")),
    ],
)
def test_allowed_tools_map_onto_the_rule_language(entries: list[str], rules: tuple[str, ...]) -> None:
    assert allowed_rules(entries) == rules


@pytest.mark.parametrize(
    "entry",
    ["WebFetch", "mcp__docs__search", "mcp(docs:*)", "task", "task(general)", "skill", "memory(write)",
     "Bash(!rm:*)", "b*", "Bash(", "bastion:outside", "NotebookEdit"],
)  # fmt: skip
def test_anything_else_in_allowed_tools_refuses_the_whole_grant(entry: str) -> None:
    with pytest.raises(SkillError):
        allowed_rules(["Read", entry])
    skill = parse_skill(skill_md("s", tools=f"Read {entry}"), "SKILL.md", "/x", project=False)
    assert skill.rules == () and skill.withheld.startswith("refused (line 4)")


def test_slash_skills_lists_each_skill_where_it_is_from_its_grant_and_what_was_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bastion.agent.front import COMMANDS, ReplState, help_text, run_command

    p = place(tmp_path)
    p.yours("lint", skill_md("lint", "Lint it.", "Bash(make lint)"))
    p.projects("deploy", skill_md("deploy", "Deploy.", "Bash"))
    p.projects("bad", "no front matter\n")
    extras, _ = p.extras(trust=True)
    state = ReplState(None, None, None, None, None, None, extras.catalog)  # type: ignore[arg-type]
    assert "/skills" in COMMANDS and "/skills" in help_text()
    run_command("/skills", state)
    out = capsys.readouterr().out
    assert (
        "lint (yours: " in out and "allowed-tools: Bash(make lint): granted on load, until your next" in out
    )
    assert "deploy (the project's: .bastion/skills/deploy/SKILL.md)" in out
    assert "allowed-tools: Bash: a project's skill: its allowed-tools are never granted" in out
    assert ".bastion/skills/bad/SKILL.md: left out: line 1: a SKILL.md starts with a line `---`" in out

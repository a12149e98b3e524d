"""Your own instructions for every session: ~/.bastion/AGENTS.md, agents_md_global's files and
instructions_file reach the model before the project's AGENTS.md, each named at start and in
/context; agents_md_global = false leaves the home file out; a missing instructions_file is one line
naming the file and the field; every file is cut at the cap, with a note; `config init` shows the
keys, and what it shows is read as it stands."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

from bastion.agent.front import LONG_COMMANDS, config_text
from bastion.agent.providers import Window
from bastion.agent.runtime import Agent, Answer, Compactor, SystemPrompt
from bastion.agent.runtime._personal import MAX_AGENTS_MD
from bastion.policy import load_settings
from bastion.workspace import LocalWorkspace

from .agent_fixtures import FakeGate, FakeTools, ScriptedModel
from .skill_fixtures import place, run_cli

DONE = [{"text": "done"}]


def test_your_files_reach_the_model_before_the_projects_in_order_and_are_named_at_start(
    tmp_path: Path,
) -> None:
    p = place(tmp_path)
    (p.home / "AGENTS.md").write_text("HOME-RULE: answer in French\n")
    (tmp_path / "above.md").write_text("GLOBAL-RULE: no emoji\n")
    (tmp_path / "mine.md").write_text("FILE-RULE: tests first\n")
    (p.work / "AGENTS.md").write_text("PROJECT-RULE: make check\n")
    # Relative paths are relative to the config file; `~` is the home directory.
    p.write_config(
        'agents_md_global = ["../../above.md", "~/missing.md"]\ninstructions_file = "../../mine.md"\n'
    )
    run = run_cli(p, DONE)
    assert run.code == 0, run.err
    system = run.system()
    at = [system.index(rule) for rule in ("HOME-RULE", "GLOBAL-RULE", "FILE-RULE", "PROJECT-RULE")]
    assert at == sorted(at)
    assert f"Instructions from {p.home / 'AGENTS.md'} (the user's own)" in system
    assert f"Instructions from {p.work / 'AGENTS.md'} (the project's" in system
    named = [p.home / "AGENTS.md", tmp_path / "above.md", tmp_path / "mine.md", p.work / "AGENTS.md"]
    assert f"bastion: instructions: {', '.join(map(str, named))}\n" in run.err
    assert "missing.md" not in run.err  # a missing agents_md_global file is skipped


def test_agents_md_global_false_leaves_your_home_file_out(tmp_path: Path) -> None:
    p = place(tmp_path)
    (p.home / "AGENTS.md").write_text("HOME-RULE\n")
    assert "HOME-RULE" in run_cli(p, DONE).system()
    p.write_config("agents_md_global = false\n")
    run = run_cli(p, DONE)
    assert run.code == 0, run.err
    assert "HOME-RULE" not in run.system() and "instructions:" not in run.err


def test_a_missing_instructions_file_is_one_line_naming_the_file_and_the_field(tmp_path: Path) -> None:
    p = place(tmp_path)
    p.write_config('instructions_file = "~/nowhere.md"\n')
    run = run_cli(p, DONE)
    assert run.code != 0 and run.requests == [] and run.events == []  # no session was begun
    missing = tmp_path / "home" / "nowhere.md"
    line = f"bastion: {p.config}: instructions_file: {missing}: no such file"
    assert run.err.strip().splitlines() == [line]


def test_every_instruction_file_is_cut_at_the_cap_with_a_note(tmp_path: Path) -> None:
    p = place(tmp_path)
    big = "y" * (MAX_AGENTS_MD - 4) + "TAIL-PAST-THE-CAP"
    (tmp_path / "mine.md").write_text(big)
    (p.home / "AGENTS.md").write_text(big)
    (p.work / "AGENTS.md").write_text(big)
    p.write_config(f'instructions_file = "{tmp_path / "mine.md"}"\n')
    run = run_cli(p, DONE)
    assert run.code == 0, run.err
    assert "TAIL-" not in run.system() and run.system().count("y" * (MAX_AGENTS_MD - 4) + "TAIL") == 3
    for path in (tmp_path / "mine.md", p.home / "AGENTS.md", p.work / "AGENTS.md"):
        assert f"bastion: {path}: longer than {MAX_AGENTS_MD} bytes: only its first" in run.err


def test_context_names_the_instruction_files_yours_first(tmp_path: Path) -> None:
    p = place(tmp_path)
    (p.work / "AGENTS.md").write_text("PROJECT-RULE\n")
    yours = str(p.home / "AGENTS.md")
    prompt = SystemPrompt(LocalWorkspace(str(p.work)), personal=[(yours, "HOME-RULE")])
    compactor = Compactor(lambda model: Window(1000, "config"), None, lambda *r: None, lambda text: None)
    agent = Agent(
        ScriptedModel([]), FakeGate(), FakeTools(), lambda *a: Answer(False), prompt, compaction=compactor
    )
    out = io.StringIO()
    with redirect_stdout(out):
        LONG_COMMANDS["/context"]("", agent, None)
    assert f"instructions: {yours}, {p.work / 'AGENTS.md'}\n" in out.getvalue()


def test_config_init_shows_the_keys_and_they_read_as_written_uncommented(tmp_path: Path) -> None:
    text = config_text("ollama")
    lines = [
        line for line in text.splitlines() if "instructions_file =" in line or "agents_md_global =" in line
    ]
    assert len(lines) == 2 and all(line.startswith("# ") for line in lines)
    user = tmp_path / "config.toml"
    user.write_text("\n".join(line[2:] for line in lines) + "\n")
    agent = load_settings(LocalWorkspace(str(tmp_path)), str(user)).agent
    assert agent.instructions_file == "~/notes/instructions.md"
    assert agent.agents_md_global == ("~/src/AGENTS.md",)

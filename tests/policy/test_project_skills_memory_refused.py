"""A repository cannot add skills or instructions or choose the memory: a project's config naming
skills, skills_dirs, memory, memory_dir, instructions_file or agents_md_global is refused by name
(the session does not start, a dry-run denies), while the same keys in your own file are read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bastion.policy import ConfigError, DryRun, load_settings
from bastion.workspace import LocalWorkspace


@pytest.mark.parametrize(
    ("key", "line"),
    [
        ("skills_dirs", 'skills_dirs = ["/tmp/evil-skills"]'),
        ("skills", "skills = true"),
        ("memory", "memory = true"),
        ("memory_dir", 'memory_dir = "/tmp/shared-memory"'),
        # A repository naming your key as instructions would send it to the model.
        ("instructions_file", 'instructions_file = "~/.ssh/id_rsa"'),
        ("agents_md_global", 'agents_md_global = ["~/.ssh/id_rsa"]'),
        ("agents_md_global", "agents_md_global = false"),
    ],
)
def test_a_project_config_naming_skills_instructions_or_memory_is_refused_by_name(
    tmp_path: Path, key: str, line: str
) -> None:
    (tmp_path / ".bastion").mkdir()
    (tmp_path / ".bastion" / "config.toml").write_text(f'{line}\n[policy]\nask = ["bash"]\n')
    with pytest.raises(ConfigError) as caught:
        load_settings(LocalWorkspace(str(tmp_path)), os.devnull)
    message = str(caught.value)
    assert f"config.toml: {key}: a project file may not add skills or instructions" in message
    assert "put it in your own config" in message
    denied = DryRun(os.devnull).request({"cwd": str(tmp_path), "args": {"command": "ls"}})
    assert denied["decision"] == "deny" and key in denied["config_error"]


def test_the_same_keys_in_your_own_config_are_read(tmp_path: Path) -> None:
    user = tmp_path / "config.toml"
    user.write_text(
        'skills = false\nskills_dirs = ["~/s"]\nmemory = true\nmemory_dir = "~/m"\n'
        'instructions_file = "~/i.md"\nagents_md_global = ["~/g.md"]\n'
    )
    settings = load_settings(LocalWorkspace(str(tmp_path)), str(user))
    agent = settings.agent
    assert (agent.skills, agent.skills_dirs, agent.memory, agent.memory_dir) == (False, ("~/s",), True, "~/m")
    assert (agent.instructions_file, agent.agents_md_global) == ("~/i.md", ("~/g.md",))
    user.write_text('memory_dir = ""\n')
    with pytest.raises(ConfigError, match="memory_dir"):
        load_settings(LocalWorkspace(str(tmp_path)), str(user))

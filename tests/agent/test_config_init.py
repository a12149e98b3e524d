"""bastion config init: a commented config bastion reads as it stands, 0600, naming the key's variable
and never holding a key, and never written over a file that is there; a base URL without a scheme
said so in one line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bastion.agent.front import config_text
from bastion.agent.providers import PROVIDERS
from bastion.policy import load_settings
from bastion.workspace import LocalWorkspace

from .agent_fixtures import run_main
from .test_scenarios import SECRET, _env


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_config_written_is_read_as_it_stands_and_names_the_providers_key_variable(
    tmp_path: Path, provider: str
) -> None:
    target = tmp_path / "xdg" / "bastion" / "config.toml"
    env = {**_env(tmp_path), "OPENAI_API_KEY": SECRET}
    code, out, err = run_main(["config", "init", "--provider", provider], cwd=str(tmp_path), env=env)
    assert code == 0, err
    assert str(target) in out
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    text = target.read_text()
    assert text == config_text(provider) and SECRET not in text
    settings = load_settings(LocalWorkspace(str(tmp_path)), str(target))
    assert settings.agent.provider == provider
    variable = {
        "openai": "OPENAI_API_KEY",
        "anthropic": "ANTHROPIC_API_KEY",
        "openrouter": "OPENROUTER_API_KEY",
        "gemini": "GEMINI_API_KEY",
    }
    if provider in variable:
        assert f"${variable[provider]}" in text and variable[provider] in out
    if provider == "vertex":  # no key: where its credentials are read from, and how to sign in
        assert "$GOOGLE_APPLICATION_CREDENTIALS" in text and "application-default login" in out
        assert "api_key" not in text.replace("# ", "")


def test_a_config_that_is_there_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "mine.toml"
    target.write_text('provider = "anthropic"\n')
    code, _, err = run_main(
        ["config", "init", "--config", str(target)], cwd=str(tmp_path), env=_env(tmp_path)
    )
    assert code == 1 and "is already there; it is kept" in err
    assert target.read_text() == 'provider = "anthropic"\n'


def test_a_link_in_place_of_the_config_is_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    os.symlink(victim, tmp_path / "link.toml")
    code, _, _ = run_main(
        ["config", "init", "--config", str(tmp_path / "link.toml")], cwd=str(tmp_path), env=_env(tmp_path)
    )
    assert code == 1 and not victim.exists()


def test_a_base_url_without_a_scheme_says_so_in_one_line(tmp_path: Path) -> None:
    code, _, err = run_main(
        ["-p", "hi", "--base-url", "localhost:11434"], cwd=str(tmp_path), env=_env(tmp_path)
    )
    assert code == 1
    assert (
        err
        == "bastion: --base-url: 'localhost:11434' has no scheme: write http://localhost:11434 (or https://)\n"
    )

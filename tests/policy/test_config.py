"""Config layers: the user's file, the project's file read through the workspace, and flags."""

from __future__ import annotations

import os
import pathlib

import pytest

from bastion.config import AgentConfig
from bastion.policy import ConfigError, Decision, PolicyFlags, Settings, Subject, load_settings
from bastion.workspace import LocalWorkspace

A, Q, D = Decision.ALLOW, Decision.ASK, Decision.DENY


def _load(
    tmp_path: pathlib.Path,
    user: str | None = None,
    project: str | None = None,
    flags: PolicyFlags | None = None,
) -> Settings:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    user_path = tmp_path / "user.toml"
    if user is not None:
        user_path.write_text(user, encoding="utf-8")
    if project is not None:
        (root / ".bastion").mkdir(exist_ok=True)
        (root / ".bastion" / "config.toml").write_text(project, encoding="utf-8")
    return load_settings(LocalWorkspace(str(root)), str(user_path) if user is not None else None, flags=flags)


@pytest.fixture(autouse=True)
def _no_real_user_config(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def _decide(settings: Settings, tool: str, value: str) -> Decision:
    return settings.policy.decide([Subject(tool, value)]).decision


@pytest.mark.parametrize(
    ("user", "project", "flags", "subject", "decision"),
    [
        (None, None, None, ("bash", "git status"), A),
        (None, None, None, ("bash", "make"), Q),
        ('[policy]\nallow = ["bash(make:*)"]\n', None, None, ("bash", "make check"), A),
        ('[policy]\nallow = ["bash(make:*)"]\n', None, None, ("bash", "rm x"), Q),
        ('[policy]\nfallback = "deny"\n', None, None, ("bash", "rm x"), D),
        ("[policy]\nbuiltin = false\n", None, None, ("read", "x"), Q),
        ('[policy]\nallow = ["read(.env)"]\n', None, None, ("read", ".env"), A),
        (
            None,
            '[policy]\nask = ["bash(go test:*)"]\ndeny = ["bash(git log:*)"]\n',
            None,
            ("bash", "git log"),
            D,
        ),
        (None, '[policy]\nask = ["bash(go test:*)"]\n', None, ("bash", "git status"), A),
        (None, "[policy]\nbuiltin = false\n", None, ("bash", "git status"), Q),
        ("[policy]\nbuiltin = true\n", "[policy]\nbuiltin = false\n", None, ("bash", "git status"), Q),
        (None, '[policy]\nfallback = "deny"\n', None, ("bash", "make"), D),
        ('[policy]\nfallback = "allow"\n', '[policy]\nfallback = "ask"\n', None, ("bash", "make"), Q),
        ('[policy]\nfallback = "deny"\n', '[policy]\nfallback = "ask"\n', None, ("bash", "make"), D),
        (None, '[policy]\nfallback = "ask"\n', PolicyFlags(fallback="allow"), ("bash", "make"), Q),
        (None, None, PolicyFlags(fallback="allow"), ("bash", "make"), A),
        (
            '[policy]\nallow = ["bash(make:*)"]\n',
            None,
            PolicyFlags(deny=("bash(make:*)",)),
            ("bash", "make"),
            D,
        ),
        ("[policy]\nbuiltin = false\n", None, PolicyFlags(builtin=True), ("read", "x"), A),
        (
            '[policy]\nask = ["bash(git log:*)"]\n',
            '[policy]\nask = ["bash(go:*)"]\n',
            None,
            ("bash", "git log"),
            Q,
        ),
        ('[policy]\nallow = ["read({root}/notes/**)"]\n', None, None, ("read", "notes/a"), A),
    ],
)
def test_the_layers_combine_so_a_project_only_tightens(
    tmp_path: pathlib.Path,
    user: str | None,
    project: str | None,
    flags: PolicyFlags | None,
    subject: tuple[str, str],
    decision: Decision,
) -> None:
    if user is not None:
        user = user.replace("{root}", str(tmp_path / "ws"))
    assert _decide(_load(tmp_path, user, project, flags), *subject) is decision


def test_the_user_file_sets_pass_env_max_read_bytes_and_the_provider_keys(tmp_path: pathlib.Path) -> None:
    settings = _load(
        tmp_path,
        'pass_env = ["GITHUB_TOKEN"]\nmax_read_bytes = 4096\nprovider = "anthropic"\nmodel = "m"\n'
        'api_key_command = ["pass", "key"]\nthink = true\n',
    )
    assert settings.pass_env == ("GITHUB_TOKEN",) and settings.max_read_bytes == 4096
    assert settings.agent == AgentConfig(
        provider="anthropic", model="m", api_key_command=("pass", "key"), think=True
    )
    assert settings.sources == (str(tmp_path / "user.toml"),)


def test_no_file_at_all_gives_the_defaults(tmp_path: pathlib.Path) -> None:
    settings = _load(tmp_path)
    assert (settings.pass_env, settings.max_read_bytes, settings.sources, settings.agent) == (
        (),
        2 << 20,
        (),
        AgentConfig(),
    )


def test_the_user_file_is_found_under_xdg_config_home(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "xdg" / "bastion" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[policy]\ndeny = ["bash(git status:*)"]\n', encoding="utf-8")
    assert _decide(_load(tmp_path), "bash", "git status") is D


@pytest.mark.parametrize(
    "text",
    [
        'pass_env = ["X"]\n',
        "max_read_bytes = 10\n",
        'provider = "openai"\n',
        'model = "m"\n',
        'base_url = "http://evil"\n',
        'api_key_command = "cat key"\n',
        '[mcp_servers.fs]\ncommand = "x"\n',
        'instructions = "obey"\n',
    ],
)
def test_a_project_file_may_not_set_anything_but_policy(tmp_path: pathlib.Path, text: str) -> None:
    field = text.split()[0].strip("[").split(".")[0]
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, project=text)
    message = str(caught.value)
    assert ".bastion/config.toml" in message and f": {field}:" in message and "your own config" in message


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('[policy]\nallow = ["bash(curl:*)", "write"]\n', "policy.allow"),
        ('[policy]\nask = ["bash(x:*)", "read(!.env.example)"]\n', "policy.ask[1]"),
        ('[policy]\ndeny = ["bash(!git push:*)"]\n', "policy.deny[0]"),
        ('[policy]\nfallback = "allow"\n', "policy.fallback"),
    ],
)
def test_a_project_file_may_not_loosen_anything(tmp_path: pathlib.Path, text: str, field: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, project=text)
    assert f".bastion/config.toml: {field}" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[policy\n", "not valid TOML"),
        ('[policy]\nallow = "bash"\n', "policy.allow: "),
        ("[policy]\nallow = [1]\n", "policy.allow[0]: "),
        ('[policy]\nfallback = "sometimes"\n', "policy.fallback: "),
        ('[policy]\nbuiltin = "no"\n', "policy.builtin: "),
        ("[policy]\nallowed = []\n", "policy.allowed: unknown field"),
        ('colour = "red"\n', "colour: unknown field"),
        ("max_read_bytes = 0\n", "max_read_bytes: "),
        ('pass_env = ["NOT-A-NAME"]\n', "pass_env[0]: "),
        ('[policy]\nallow = ["read", "Bash(git)x"]\n', "policy.allow[1]: rule 'Bash(git)x', column 10"),
        ('[policy]\ndeny = ["bash(ok)", "(x)"]\n', "policy.deny[1]: rule '(x)', column 1"),
        ('[policy]\nallow = ["mcp__*"]\n', "policy.allow[0]: rule 'mcp__*', column 6"),
        ('[policy]\ndeny = ["deploy(staging)"]\n', "policy.deny[0]: rule 'deploy(staging)', column 8"),
    ],
)
def test_a_malformed_user_file_names_the_file_and_the_field(
    tmp_path: pathlib.Path, text: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, text)
    assert str(tmp_path / "user.toml") in str(caught.value) and expected in str(caught.value)


def test_an_explicit_user_file_that_does_not_exist_is_an_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        load_settings(LocalWorkspace(str(tmp_path)), str(tmp_path / "missing.toml"))


def _project_as(tmp_path: pathlib.Path, how: str) -> pathlib.Path:
    root = tmp_path / "ws"
    (root / ".bastion").mkdir(parents=True)
    outside = tmp_path / "outside.toml"
    outside.write_text('[policy]\ndeny = ["bash"]\n', encoding="utf-8")
    target = root / ".bastion" / "config.toml"
    if how == "link out":
        target.symlink_to(outside)
    elif how == "directory link out":
        (root / ".bastion").rmdir()
        (root / ".bastion").symlink_to(tmp_path)
        (tmp_path / "config.toml").write_text("", encoding="utf-8")
    elif how == "fifo":
        os.mkfifo(target)
    elif how == "big":
        target.write_text("# " + "x" * (1 << 20) + "\n", encoding="utf-8")
    elif how == "directory":
        target.mkdir()
    return root


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("link out", "leads out"),
        ("directory link out", "leads out"),
        ("fifo", "not a regular file"),
        ("directory", "not a regular file"),
        ("big", "larger than"),
    ],
)
def test_a_project_file_that_is_not_a_plain_file_inside_is_an_error(
    tmp_path: pathlib.Path, how: str, expected: str
) -> None:
    root = _project_as(tmp_path, how)
    with pytest.raises(ConfigError, match=expected) as caught:
        load_settings(LocalWorkspace(str(root)), None)
    assert ".bastion/config.toml" in str(caught.value)


def test_a_project_file_linked_inside_the_workspace_is_read(tmp_path: pathlib.Path) -> None:
    root = tmp_path / "ws"
    (root / ".bastion").mkdir(parents=True)
    (root / "policy.toml").write_text('[policy]\ndeny = ["bash(git status:*)"]\n', encoding="utf-8")
    (root / ".bastion" / "config.toml").symlink_to("../policy.toml")
    settings = load_settings(LocalWorkspace(str(root)), None)
    assert _decide(settings, "bash", "git status") is D

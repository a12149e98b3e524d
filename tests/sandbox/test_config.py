"""The sandbox's settings: the user's `[sandbox]` table (or `sandbox = MODE`), and a project that
may only require the sandbox, never loosen or redirect it."""

from __future__ import annotations

import pathlib

import pytest

# Private: the fast config reader and the pydantic schema are the twins tested against each other.
from bastion.config._plain import plain_file
from bastion.config._schema import validate_file
from bastion.config._table import USER_FILE
from bastion.policy import ConfigError, Settings, load_settings
from bastion.sandbox import SandboxConfig
from bastion.workspace import LocalWorkspace


def _load(tmp_path: pathlib.Path, user: str | None = None, project: str | None = None) -> Settings:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    user_path = tmp_path / "user.toml"
    user_path.write_text(user or "", encoding="utf-8")
    if project is not None:
        (root / ".bastion").mkdir(exist_ok=True)
        (root / ".bastion" / "config.toml").write_text(project, encoding="utf-8")
    return load_settings(LocalWorkspace(str(root)), str(user_path))


@pytest.fixture(autouse=True)
def _home(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


@pytest.mark.parametrize(
    ("user", "sandbox"),
    [
        (None, SandboxConfig()),
        ('sandbox = "require"\n', SandboxConfig("require")),
        ('sandbox = "off"\n', SandboxConfig("off")),
        ('[sandbox]\nmode = "require"\nnetwork = false\n', SandboxConfig("require", (), False)),
        (
            '[sandbox]\nwritable = ["/var/cache/x/", "~/.cache"]\n',
            SandboxConfig("auto", ("/var/cache/x", "HOME/.cache")),
        ),
    ],
)
def test_the_users_sandbox_settings(tmp_path: pathlib.Path, user: str | None, sandbox: SandboxConfig) -> None:
    home = str(tmp_path / "home")
    expected = sandbox._replace(writable=tuple(p.replace("HOME", home) for p in sandbox.writable))
    assert _load(tmp_path, user).sandbox == expected


@pytest.mark.parametrize(
    ("user", "error"),
    [
        ('sandbox = "maybe"\n', "sandbox.mode: Input should be 'auto', 'require' or 'off'"),
        ('[sandbox]\nmode = "none"\n', "sandbox.mode: Input should be 'auto', 'require' or 'off'"),
        ('[sandbox]\nwritable = ["cache"]\n', "sandbox.writable[0]: String should match pattern"),
        ('[sandbox]\nwritable = ["~root/x"]\n', "sandbox.writable[0]: String should match pattern"),
        ('[sandbox]\nnetwork = "no"\n', "sandbox.network: Input should be a valid boolean"),
        ("[sandbox]\nreadable = []\n", "sandbox.readable: unknown field"),
        ("sandbox = 1\n", "sandbox: Input should be a valid dictionary"),
    ],
)
def test_a_bad_sandbox_setting_is_an_error_naming_the_field(
    tmp_path: pathlib.Path, user: str, error: str
) -> None:
    with pytest.raises(ConfigError, match="user.toml: " + error.replace("[", r"\[").replace("(", r"\(")):
        _load(tmp_path, user)


def test_a_writable_path_under_an_unknown_home_is_an_error(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HOME")
    monkeypatch.setattr("os.path.expanduser", lambda path: path)
    with pytest.raises(ConfigError, match=r"sandbox.writable\[0\]: '~/x': the home directory is not known"):
        _load(tmp_path, '[sandbox]\nwritable = ["~/x"]\n')


@pytest.mark.parametrize("project", ['sandbox = "require"\n', '[sandbox]\nmode = "require"\n'])
def test_a_project_may_require_the_sandbox_even_when_the_user_turned_it_off(
    tmp_path: pathlib.Path, project: str
) -> None:
    settings = _load(tmp_path, '[sandbox]\nmode = "off"\nwritable = ["/opt"]\n', project)
    assert settings.sandbox == SandboxConfig("require", ("/opt",), True)


@pytest.mark.parametrize(
    "project",
    [
        'sandbox = "off"\n',
        'sandbox = "auto"\n',
        '[sandbox]\nmode = "require"\nwritable = ["/"]\n',
        "[sandbox]\nnetwork = true\n",
        "sandbox = 1\n",
    ],
)
def test_a_project_may_not_loosen_or_redirect_the_sandbox(tmp_path: pathlib.Path, project: str) -> None:
    with pytest.raises(
        ConfigError, match=r'config.toml: sandbox: a project file may only set sandbox = "require"'
    ):
        _load(tmp_path, None, project)


def test_a_hand_written_sandbox_table_is_read_plainly() -> None:
    raw = {"sandbox": {"mode": "require", "writable": ["~/.cache", "/tmp/x"], "network": False}}
    plain = plain_file(USER_FILE, raw)
    assert plain is not None and plain == validate_file(USER_FILE, raw, "config.toml")
    off = {"sandbox": "off"}
    assert plain_file(USER_FILE, off) == validate_file(USER_FILE, off, "config.toml")

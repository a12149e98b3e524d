"""The resident server's tests share one fixture: `home`, a private runtime directory with the
server switched on (tests/conftest.py switches it off for every other test)."""

from __future__ import annotations

import pathlib

import pytest


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """A private runtime directory, a home and an empty user config, each beside the test's
    directory (never inside the one a call is decided in: a socket there is never used, and a home
    there makes a dry-run ask); the server switched on."""
    run = tmp_path_factory.mktemp("run")
    run.chmod(0o700)
    user = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user / "xdg"))
    monkeypatch.delenv("BASTION_NO_SERVER", raising=False)
    return run

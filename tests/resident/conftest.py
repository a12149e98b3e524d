"""The resident server's tests share one fixture: `home`, a private runtime directory with the
server switched on (tests/conftest.py switches it off for every other test)."""

from __future__ import annotations

import pathlib

import pytest


@pytest.fixture
def home(
    tmp_path: pathlib.Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> pathlib.Path:
    """A private runtime directory (beside the test's directory, never inside the one a call is
    decided in), a home and an empty user config; the server switched on."""
    run = tmp_path_factory.mktemp("run")
    run.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("BASTION_NO_SERVER", raising=False)
    return run

"""Older kernels: a ruleset handles only the rights its kernel's ABI knows (what it cannot enforce
stays allowed, never refused at build), and what it does handle is enforced."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Private: the Landlock system calls and the launcher's path are the thing tested.
from bastion.sandbox import _landlock
from bastion.sandbox._confine import _LAUNCHER
from bastion.sandbox._landlock import Grant, build, rights

from .conftest import ABI, needs_landlock

# The highest bit each ABI knows, per field: a ruleset with a bit its kernel does not know is EINVAL.
_FS_BITS = {1: 1 << 13, 2: 1 << 14, 3: 1 << 15, 4: 1 << 15, 5: 1 << 16, 6: 1 << 16, 7: 1 << 16}


@pytest.mark.parametrize("version", range(1, 8))
@pytest.mark.parametrize(("read_only", "network"), [(True, False), (False, True), (False, False)])
def test_a_ruleset_handles_only_what_its_abi_knows(version: int, read_only: bool, network: bool) -> None:
    handled = rights(version, read_only=read_only, network=network)
    assert handled.fs < _FS_BITS[version]
    assert handled.net == 0 or version >= 4
    assert handled.scoped == 0 or version >= 6
    assert (
        handled.fs & _landlock.WRITE_FILE
        and handled.fs & _landlock.MAKE_REG
        and handled.fs & _landlock.REMOVE_FILE
    )


def test_an_approved_line_keeps_signals_and_the_network_unless_it_is_off() -> None:
    allowed, off = rights(7, read_only=False, network=True), rights(7, read_only=False, network=False)
    assert (allowed.net, allowed.scoped) == (0, 0)
    assert (off.net, off.scoped) == (_landlock.NET_BIND_TCP | _landlock.NET_CONNECT_TCP, 0)
    read_only = rights(7, read_only=True, network=False)
    assert read_only.scoped == _landlock.SCOPE_ABSTRACT_UNIX_SOCKET | _landlock.SCOPE_SIGNAL


@needs_landlock
@pytest.mark.parametrize("version", range(1, ABI + 1))
def test_the_ruleset_of_each_older_abi_is_built_and_still_forbids_writes(
    tmp_path: Path, version: int
) -> None:
    handled = rights(version, read_only=True, network=False)
    ruleset = build(handled, [Grant("/dev/null", handled.fs)])
    try:
        target = tmp_path / "planted"
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-B", _LAUNCHER, str(ruleset), str(os.getpid()),
             "touch", str(target)],
            pass_fds=(ruleset,), capture_output=True, text=True, check=False,
        )  # fmt: skip
    finally:
        os.close(ruleset)
    assert done.returncode != 0 and "Permission denied" in done.stderr
    assert not target.exists()

"""The sandbox's mode is decided against the kernel the commands run on: with an executor, its
kernel's Landlock ABI (said in its hello), not this machine's. `require` on an executor without
Landlock refuses every command, naming the executor's kernel; `auto` runs them unconfined there;
with Landlock there, the confinement crosses and is applied there."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bastion.agent.tools import executor_landlock
from bastion.sandbox import Confinement, SandboxConfig, SandboxUnavailable, confinement_for, start_notice
from bastion.workspace import LocalWorkspace

from .test_executor_faults import fake


def test_an_executor_without_landlock_decides_the_mode_whatever_this_kernel_has(tmp_path: Path) -> None:
    ws = fake("stall")  # its hello says Landlock ABI 0
    try:
        abi = executor_landlock(ws)
    finally:
        ws.close()
    assert abi == 0
    with pytest.raises(SandboxUnavailable, match="the executor's kernel has no Landlock"):
        confinement_for(SandboxConfig("require"), read_only=True, abi=abi)
    assert confinement_for(SandboxConfig("auto"), read_only=True, abi=abi) is None
    assert "the executor's kernel has no Landlock" in str(start_notice(SandboxConfig("auto"), abi))
    assert executor_landlock(LocalWorkspace(str(tmp_path))) is None  # this machine's: its own ABI


def test_with_landlock_there_the_confinement_is_made_for_there() -> None:
    made = confinement_for(SandboxConfig("require", ("/cache",), False), read_only=False, abi=6)
    assert made == Confinement(False, ("/cache",), False)
    assert start_notice(SandboxConfig("require"), 6) is None
    assert sys.platform.startswith("linux")

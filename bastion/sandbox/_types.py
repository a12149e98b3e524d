"""What the sandbox is told: the user's settings, and the confinement one command runs under."""

from __future__ import annotations

from typing import Literal, NamedTuple

from .._errors import BastionError

__all__ = [
    "MODES",
    "Confinement",
    "Mode",
    "SandboxConfig",
    "SandboxUnavailable",
    "confinement_for",
    "landlock_abi",
]

Mode = Literal["auto", "require", "off"]
MODES: tuple[Mode, ...] = ("auto", "require", "off")


class SandboxConfig(NamedTuple):
    """The user's `[sandbox]` settings: the mode, the paths an approved command may also write
    (absolute, `~` expanded), and whether it may use the network. A project may only raise the
    mode to "require"."""

    mode: Mode = "auto"
    writable: tuple[str, ...] = ()
    network: bool = True


class Confinement(NamedTuple):
    """What one command may do, as the kernel enforces it. Read-only (an auto-allowed plan, which
    the analyzer proved writes nothing): no write anywhere but /dev/null and the terminal, no TCP,
    no signal or abstract socket outside. Otherwise (an approved line): writes in the workspace, a
    private temporary directory and `writable`; TCP unless `network` is false."""

    read_only: bool
    writable: tuple[str, ...] = ()
    network: bool = False


class SandboxUnavailable(BastionError):
    """The sandbox is required and this kernel cannot give it: nothing may run."""


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0: none), asked once per process."""
    from ._landlock import abi  # ctypes: loaded by what runs or reports commands, never by a dry-run

    return abi()


def confinement_for(config: SandboxConfig, *, read_only: bool, abi: int | None = None) -> Confinement | None:
    """The confinement a command runs under; None when it runs unconfined (the mode is off, or auto
    on a kernel without Landlock). `abi`: the Landlock ABI of the kernel the command runs on (an
    executor's; None: this one's). Raises SandboxUnavailable when required and missing."""
    if config.mode == "off":
        return None
    if (landlock_abi() if abi is None else abi) == 0:
        if config.mode == "require":
            kernel = "this kernel" if abi is None else "the executor's kernel"
            raise SandboxUnavailable(
                f'the sandbox is required (sandbox = "require") but {kernel} has no Landlock; '
                "nothing ran: no command runs without the kernel enforcing what was decided"
            )
        return None
    if read_only:
        return Confinement(True)
    return Confinement(False, config.writable, config.network)

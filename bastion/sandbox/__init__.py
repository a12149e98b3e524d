"""Defence in depth: the kernel (Landlock) enforces what the analyzer proved.

Every command the bash tool starts runs under a Landlock ruleset, applied by a small launcher in
the child before exec. An auto-allowed plan may write nothing (but /dev/null and the terminal) and
make no TCP connection; an approved line may write only in the workspace, a private temporary
directory and the paths the user's config names. This package imports nothing of bastion but the
root of its errors; the system calls (ctypes) load only when a command runs or the sandbox is
reported on.
"""

import importlib
import typing

from ._types import (
    MODES,
    Confinement,
    Mode,
    SandboxConfig,
    SandboxUnavailable,
    confinement_for,
    landlock_abi,
)

if typing.TYPE_CHECKING:
    from ._confine import Launch, launch
    from ._words import denial_note, describe, enforced, start_notice

# The words about the sandbox, and the launch of a command, load when first named (PEP 562): a
# dry-run reads the config's sandbox setting and never words it nor starts anything.
_LAZY = {
    **dict.fromkeys(("denial_note", "describe", "enforced", "start_notice"), "_words"),
    **dict.fromkeys(("Launch", "launch"), "_confine"),
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MODES",
    "Confinement",
    "Launch",
    "Mode",
    "SandboxConfig",
    "SandboxUnavailable",
    "confinement_for",
    "denial_note",
    "describe",
    "enforced",
    "landlock_abi",
    "launch",
    "start_notice",
]

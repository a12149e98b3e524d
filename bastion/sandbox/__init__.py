"""Defence in depth: the kernel (Landlock) enforces what the analyzer proved.

Every command the bash tool starts runs under a Landlock ruleset, applied by a small launcher in
the child before exec. An auto-allowed plan may write nothing (but /dev/null and the terminal) and
make no TCP connection; an approved line may write only in the workspace, a private temporary
directory and the paths the user's config names. This package imports nothing of bastion but the
root of its errors; the system calls (ctypes) load only when a command runs or the sandbox is
reported on.
"""

from ._types import (
    MODES,
    Confinement,
    Mode,
    SandboxConfig,
    SandboxUnavailable,
    confinement_for,
    landlock_abi,
)
from ._words import denial_note, describe, enforced, start_notice

__all__ = [
    "MODES",
    "Confinement",
    "Mode",
    "SandboxConfig",
    "SandboxUnavailable",
    "confinement_for",
    "denial_note",
    "describe",
    "enforced",
    "landlock_abi",
    "start_notice",
]

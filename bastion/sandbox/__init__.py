"""Defence in depth: the kernel (Landlock) enforces what the analyzer proved.

Every command the bash tool starts runs under a Landlock ruleset, applied by a small launcher in
the child before exec. An auto-allowed plan may write nothing (but /dev/null and the terminal) and
make no TCP connection; an approved line may write only in the workspace, a private temporary
directory and the paths the user's config names. This package imports nothing of bastion but the
root of its errors and the lazy face (bastion/_lazy.py); the system calls (ctypes) load only when
a command runs or the sandbox is reported on.
"""

import typing

from .._lazy import lazy_names as _lazy_names
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


__getattr__ = _lazy_names(__name__, _LAZY)


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

"""The analyzer: a line of the subset, checked stage by stage against allow-lists, as a plan."""

import typing

from .._lazy import lazy_names as _lazy_names
from ._analyze import GOVERNED, analyze
from ._result import DEFAULT_MAX_READ_BYTES, Analysis, Check, Context, GitFinding, StageResult
from ._secrets import SECRET_PATHS
from .programs import Shell, shell_of

if typing.TYPE_CHECKING:
    from ._facts import Fact, FactError, plan_facts, recheck_digest
    from ._stamp import CHANGED_COMMAND, CHANGED_PATHS, Stamper, StampError
    from .git import (
        find_git,
        git_fingerprint,
        learn_git_system,
        neutral_env,
        probe_git,
        redact_userinfo,
    )

# What the dry-run of a line without git never needs is loaded when first named (PEP 562).
_LAZY = {
    **dict.fromkeys(("Fact", "FactError", "plan_facts", "recheck_digest"), "_facts"),
    # git's names through git's own lazy face, which loads each one's module when it is first named
    **dict.fromkeys(
        (
            "find_git",
            "git_fingerprint",
            "learn_git_system",
            "neutral_env",
            "probe_git",
            "redact_userinfo",
        ),
        "git",
    ),
    **dict.fromkeys(("CHANGED_COMMAND", "CHANGED_PATHS", "Stamper", "StampError"), "_stamp"),
}


__getattr__ = _lazy_names(__name__, _LAZY)


__all__ = [
    "CHANGED_COMMAND",
    "CHANGED_PATHS",
    "DEFAULT_MAX_READ_BYTES",
    "GOVERNED",
    "SECRET_PATHS",
    "Analysis",
    "Check",
    "Context",
    "Fact",
    "FactError",
    "GitFinding",
    "Shell",
    "StageResult",
    "StampError",
    "Stamper",
    "analyze",
    "find_git",
    "git_fingerprint",
    "learn_git_system",
    "neutral_env",
    "plan_facts",
    "recheck_digest",
    "probe_git",
    "redact_userinfo",
    "shell_of",
]

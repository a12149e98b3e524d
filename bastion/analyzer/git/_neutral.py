"""The neutralised run: the environment an auto-allowed plan runs in, and the redaction of its output.

Repository config cannot switch these off: GIT_CONFIG_COUNT entries are command-scope config, which
wins over every file git reads. A command a person approved runs without any of this."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from ..programs import dropped_from_plans

__all__ = [
    "GIT_STEERING",
    "NEUTRAL_GIT_CONFIG",
    "neutral_env",
    "probed_env",
    "redact_userinfo",
]

# Config keys that make read-only git commands run a program or write, pinned to harmless values.
NEUTRAL_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.sshCommand", "ssh"),
    ("core.hooksPath", "/dev/null"),
    ("gpg.program", "/bin/false"),
    ("gpg.openpgp.program", "/bin/false"),
    ("gpg.x509.program", "/bin/false"),
    ("gpg.ssh.program", "/bin/false"),
    # git diff rewrites .git/index to refresh stale stat data, whatever GIT_OPTIONAL_LOCKS says.
    ("diff.autoRefreshIndex", "false"),
    # git log would verify every signature it shows (with the program above, failing).
    ("log.showSignature", "false"),
)

_FIXED = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "GOTOOLCHAIN": "local",
}

# Variables of the base environment that could add config, move the repository, or name a
# program git runs: they are dropped before the neutral values are set. GIT_CONFIG_GLOBAL,
# GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM stay: they choose the user's own trusted files.
_DROPPED_EXACT = frozenset(
    {
        "GIT_CONFIG",
        "GIT_CONFIG_COUNT",
        "GIT_CONFIG_PARAMETERS",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_COMMON_DIR",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_EXEC_PATH",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_DIFF_OPTS",
        "GIT_PAGER",
        "PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_PROXY_COMMAND",
        "GIT_TEMPLATE_DIR",
        "GIT_ALLOW_PROTOCOL",
        "GIT_PROTOCOL_FROM_USER",
        "GIT_REPLACE_REF_BASE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_GRAFT_FILE",
        "GIT_SHALLOW_FILE",
        "GIT_TRACE",
        "GIT_TRACE2",
        "GIT_TRACE2_EVENT",
        "GIT_TRACE2_PERF",
        "GIT_TRACE_PACKET",
        "GIT_TRACE_PERFORMANCE",
        "GIT_TRACE_SETUP",
        "GIT_TRACE_CURL",
        "LESSOPEN",
        "LESSCLOSE",
    }
)
# Variables that steer the shell running a plan before or while it runs: a file sourced by
# `bash -c` (BASH_ENV, ENV), exported functions that replace a command (BASH_FUNC_ls%%), options
# that turn on xtrace (whose PS4 is expanded, $(...) included) or change how words and globs expand.
# The variables a git run takes its repository, its config or a program from: a git plan unsets
# them itself (`env -u`), so it is as safe in another program's environment as in this one.
GIT_STEERING: tuple[str, ...] = (
    *sorted(name for name in _DROPPED_EXACT if name.startswith("GIT_")),
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_SSH_VARIANT",
)
_SHELL_STEERING = frozenset(
    {
        "BASH_ENV",
        "ENV",
        "BASHOPTS",
        "SHELLOPTS",
        "PS4",
        "GLOBIGNORE",
        "POSIXLY_CORRECT",
        "CDPATH",
        "IFS",
        "GREP_OPTIONS",
        "PROMPT_COMMAND",
        "BASH_XTRACEFD",
        "EXECIGNORE",
    }
)
_DROPPED_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_SSH", "GIT_TRACE", "BASH_FUNC_")

_USERINFO = re.compile(r"(://)[^/@\s]+@")


def _dropped(name: str) -> bool:
    return (
        name in _DROPPED_EXACT
        or name in _SHELL_STEERING
        or name.startswith(_DROPPED_PREFIXES)
        or dropped_from_plans(name)  # what makes a program load code (analyzer/programs/_loaders.py)
    )


def neutral_env(base: Mapping[str, str]) -> dict[str, str]:
    """`base` without the variables that steer git or the shell, or make a program load code from
    a directory (but the user's own configuration's), plus the neutralising git config."""
    env = {k: v for k, v in base.items() if not _dropped(k)}
    env["GIT_CONFIG_COUNT"] = str(len(NEUTRAL_GIT_CONFIG))
    for i, (key, value) in enumerate(NEUTRAL_GIT_CONFIG):
        env[f"GIT_CONFIG_KEY_{i}"] = key
        env[f"GIT_CONFIG_VALUE_{i}"] = value
    env.update(_FIXED)
    return env


# The variables that choose which config files git reads (the user's and the system's), and
# nothing that makes it load or run code.
_CONFIG_FILES = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM")


def probed_env(ws_env: Mapping[str, str]) -> dict[str, str]:
    """The environment whose git config the probe lists: the workspace's `ws_env`, where bastion
    runs the plan; a dry-run's workspace has none, and its plan runs where this process runs (a
    hook's caller, the caller of check: analyzer/programs/_programs.py's `shell_of`), so the variables of
    this process that choose git's config files, and no other."""
    if ws_env:
        return dict(ws_env)
    return {name: os.environ[name] for name in _CONFIG_FILES if name in os.environ}


def redact_userinfo(text: str) -> str:
    """Hide the user and password of every URL (`https://u:p@h/x` -> `https://***@h/x`)."""
    return _USERINFO.sub(r"\1***@", text)

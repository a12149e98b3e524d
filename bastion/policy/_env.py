"""The environment a child (a bash command, an MCP server) starts with: yours, less credentials.

Names are compared upper-cased. A variable that holds the path of a credential file passes
through; one whose name looks like a credential, or whose value is a URL with a password in it, is
removed, as is the variable the provider's key was read from; `pass_env` keeps one by exact name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["child_env", "looks_secret", "without"]

PASS_THROUGH = frozenset({
    "GOOGLE_APPLICATION_CREDENTIALS", "KUBECONFIG", "DOCKER_CONFIG", "NETRC", "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "CLOUDSDK_CONFIG", "SSH_ASKPASS", "GIT_ASKPASS",
    "XDG_RUNTIME_DIR", "PGPASSFILE", "PGSERVICEFILE",
})  # fmt: skip

SCRUBBED_NAMES = frozenset({
    "PASSWORD", "TOKEN", "API_KEY", "SECRET_KEY", "SECRET", "KEY", "AUTH", "DATABASE_URL", "SSH_AUTH_SOCK",
    "PGPASSWORD", "MYSQL_PWD", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY", "BASTION_API_KEY", "DAX_API_KEY", "AWS_SESSION_TOKEN", "NPM_TOKEN", "GITHUB_TOKEN",
    "GH_TOKEN",
    # Handles to a daemon that acts as you, as SSH_AUTH_SOCK is to your SSH agent: a Docker or
    # Podman daemon elsewhere (a tcp:// or ssh:// DOCKER_HOST is a root shell on that host).
    "DOCKER_HOST", "CONTAINER_HOST",
})  # fmt: skip

SCRUBBED_SUFFIXES = (
    "_KEY", "_KEY_ID", "_PAT", "_PWD", "_JWT", "_CREDENTIALS", "_AUTH", "_TOKEN", "_SECRET", "_PASSWORD",
    "_API_KEY",
)  # fmt: skip

SCRUBBED_WORDS = ("PASSWORD", "SECRET")

_URL_WITH_PASSWORD = re.compile(r"://[^/@\s:]*:[^/@\s]+@")


def looks_secret(name: str, value: str) -> bool:
    """Whether a variable looks like a credential (before pass_env and the key's variable)."""
    upper = name.upper()
    if upper in PASS_THROUGH:
        return False
    return (
        upper in SCRUBBED_NAMES
        or upper.endswith(SCRUBBED_SUFFIXES)
        or any(word in upper for word in SCRUBBED_WORDS)
        or _URL_WITH_PASSWORD.search(value) is not None
    )


def without(environ: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """`environ` less the variables `names` names (compared upper-cased): what a credential helper
    of yours (api_key_command, an MCP header's command) runs with, its own credentials kept."""
    dropped = frozenset(name.upper() for name in names)
    return {name: value for name, value in environ.items() if name.upper() not in dropped}


def child_env(
    environ: Mapping[str, str], pass_env: Iterable[str] = (), also_scrub: Iterable[str] = ()
) -> dict[str, str]:
    """`environ` less credentials. `also_scrub` names more variables to remove (the provider key's);
    `pass_env` keeps variables by exact name, and wins over both."""
    kept = frozenset(pass_env)
    extra = frozenset(name.upper() for name in also_scrub)
    return {
        name: value
        for name, value in environ.items()
        if name in kept or not (name.upper() in extra or looks_secret(name, value))
    }

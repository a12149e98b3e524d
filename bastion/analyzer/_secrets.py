"""Secret-looking paths: the shipped patterns, and how a git plan leaves them out of what it prints.

The patterns are bastion's (`*` is any run of characters, `/` included); the policy asks before a
read of one of them, at the root and in any directory, in any case. A git plan that prints file
contents carries one exclude pathspec per pattern and depth, so a diff or a patch in a log shows
none of them, as the file tools show none of them unasked.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = ["SECRET_PATHS", "git_excludes", "hidden_by"]

SECRET_PATHS: tuple[str, ...] = (
    ".env*", ".npmrc", ".netrc", ".pgpass", ".git-credentials", "id_*", "credentials*", "*.pem", "*.key",
    "*.p12", "*.pfx", "*secret*", ".kube/config", ".docker/config.json", ".aws/**", ".ssh/**", ".aws", ".ssh",
    # gcloud's logins and Application Default Credentials (vertex signs in with the latter).
    ".config/gcloud/**", ".config/gcloud", "application_default_credentials.json",
)  # fmt: skip

# git's glob magic gives `?`, `[` and `\` a meaning that bastion's patterns do not.
_GIT_SPECIAL = re.compile(r"([?\[\]\\])")


def _stem(pattern: str) -> str:
    """The pattern without a trailing `/**`: everything below a match is hidden anyway."""
    return pattern[:-3] if pattern.endswith("/**") else pattern


def git_excludes(patterns: Sequence[str]) -> tuple[str, ...]:
    """The exclude pathspecs that hide `patterns` from a git diff, anywhere in the repository.

    `top` makes each one start at the repository's root whatever the directory git runs in; in
    git's glob magic `*` stays inside one name and `**/` is any run of directories, so a pattern
    is matched after any directories (`**/P`) and so is everything below a match (`**/P/**`)."""
    out: list[str] = []
    for pattern in patterns:
        glob = _GIT_SPECIAL.sub(r"\\\1", _stem(pattern))
        for spec in (f"**/{glob}", f"**/{glob}/**"):
            out.append(f":(top,exclude,icase,glob){spec}")
    return tuple(dict.fromkeys(out))


@functools.lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    body = "[^/]*".join(re.escape(part) for part in re.split(r"\*+", _stem(pattern)))
    return re.compile(f"(?:.*/)?{body}(?:/.*)?", re.IGNORECASE | re.DOTALL)


def hidden_by(name: str, patterns: Sequence[str]) -> str | None:
    """The first of `patterns` whose excludes hide the root-relative `name`, or None."""
    for pattern in patterns:
        if _regex(pattern).fullmatch(name):
            return pattern
    return None

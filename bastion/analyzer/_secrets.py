"""Secret-looking paths: the shipped patterns, how a git plan leaves them out of what it prints, and
the URLs whose userinfo is a credential.

The patterns are bastion's (`*` is any run of characters, `/` included); the policy asks before a
read of one of them, at the root and in any directory, in any case. A git plan that prints file
contents carries one exclude pathspec per pattern and depth, so a diff or a patch in a log shows
none of them, as the file tools show none of them unasked. The git directory's files that hold
remote URLs (its config files, a submodule's or a worktree's, the old `remotes` and `branches`
files) are secret-looking too: a URL there may carry `user:token@`. git never tracks a path inside
`.git`, so those patterns need no exclude pathspec.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

__all__ = ["GIT_DIR_SECRETS", "SECRET_PATHS", "git_excludes", "hidden_by", "url_credentials"]

# The git directory's files that hold remote URLs: its config (and config.worktree), a linked
# worktree's and a submodule's (modules nest: `*` is any run), and the remotes/branches files of
# git's first remote format.
GIT_DIR_SECRETS: tuple[str, ...] = (
    ".git/config*", ".git/worktrees/*/config*", ".git/modules/*/config*", ".git/remotes/*", ".git/branches/*",
)  # fmt: skip
SECRET_PATHS: tuple[str, ...] = (
    # Beyond the reference: `*.env` and `*.env.*` (docker's --env-file, compose's env_file:
    # prod.env, app.env.local); not `*.env*`, which would take app.environment.ts and x.envs/ too.
    ".env*", "*.env", "*.env.*",
    ".npmrc", ".netrc", ".pgpass", ".git-credentials", "id_*", "credentials*", "*.pem", "*.key", "*.p12",
    "*.pfx", "*secret*", ".kube/config", ".docker/config.json", ".aws/**", ".ssh/**", ".aws", ".ssh",
    # gcloud's logins and Application Default Credentials (vertex signs in with the latter).
    ".config/gcloud/**", ".config/gcloud", "application_default_credentials.json",
    *GIT_DIR_SECRETS,
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
        if pattern.startswith(".git/"):
            continue  # git tracks no path inside a git directory
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


# A URL's userinfo (`scheme://userinfo@`): a credential unless it is only a user name for ssh,
# where it names the account (`ssh://git@host/x`); a token is often the user name over https.
_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/@\s]+)@")
_SSH_SCHEMES = frozenset({"ssh", "git+ssh", "ssh+git"})


def url_credentials(text: str) -> bool:
    """Whether `text` holds a URL whose userinfo is a credential (a password or a token)."""
    for match in _USERINFO.finditer(text):
        scheme, userinfo = match.group(1).lower(), match.group(2)
        if ":" in userinfo or scheme not in _SSH_SCHEMES:
            return True
    return False

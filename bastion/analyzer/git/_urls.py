"""Credentials at rest in git's config: whether a line that prints config values prints a URL's
userinfo (`https://user:token@host/x`).

`git remote -v` prints every remote's URL from the config, rewritten by `url.<base>.insteadOf` (whose
base, the subsection, is what it prints); a remote of git's first format (a file in `.git/remotes`
or `.git/branches`) is read only when it is named, never listed (git 2.39). `git config --get KEY`
prints KEY's values. The probe's
listing holds every entry of every scope, the user's own included (a token in `~/.gitconfig` is as
secret as one in `.git/config`), so the judgement is over the entries the line would print.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._result import GitFinding
from .._secrets import url_credentials
from ._keys import Entry, split_key
from ._neutral import redact_userinfo

__all__ = ["REMOTE_URL_KEYS", "credential_finding"]

# What `git remote -v` prints: `section.*.variable` for any subsection.
REMOTE_URL_KEYS: tuple[str, ...] = (
    "remote.*.url",
    "remote.*.pushurl",
    "url.*.insteadof",
    "url.*.pushinsteadof",
)


def _matches(key: str, wanted: str) -> bool:
    """Whether the entry's key is `wanted` as git compares keys (section and variable case-blind, a
    subsection as written; `*` is any subsection)."""
    section, sub, variable = split_key(key)
    w_section, w_sub, w_variable = split_key(wanted)
    return (section, variable) == (w_section, w_variable) and (w_sub == "*" and bool(sub) or sub == w_sub)


def credential_finding(entries: Iterable[Entry], prints: Iterable[str]) -> GitFinding | None:
    """Why printing the config values of the keys `prints` would show a URL's credentials (None
    when it would not): an entry of one of them whose key or value holds one."""
    wanted = tuple(prints)
    for entry in entries:
        if not any(_matches(entry.key, w) for w in wanted):
            continue
        if url_credentials(f"{entry.key} {entry.value or ''}"):
            where = entry.origin or "the command line"
            key = redact_userinfo(entry.key)  # an insteadOf base holds them in the key itself
            return GitFinding(
                f"{key} (in {where}) holds a URL with credentials (user:token@), which the line would print"
            )
    return None

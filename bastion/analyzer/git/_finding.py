"""What the git probe found, as a value: the config key that makes git run or read what the checks
cannot see and the file that sets it, or what else keeps git from running unasked here. Its words
for people are made here, from its fields, and nowhere else."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["GitFinding"]


class GitFinding(NamedTuple):
    """`why` says what is wrong in words: what the key does ("names a program git runs"), or, for a
    finding that is no key (a `.git` that points elsewhere, a config that could not be read), all
    of it. `key` is the config key as git prints it and `origin` the absolute file it is set in
    ("" for neither); `value` is the key's value (None when written without `=`); `submodule` says
    the file is a submodule's config; `includes` that the key includes a file git did not read now."""

    why: str
    key: str = ""
    origin: str = ""
    value: str | None = None
    submodule: bool = False
    includes: bool = False

    @property
    def reason(self) -> str:
        """The finding in words, as a refusal gives it."""
        if not self.key:
            return self.why
        whose = "a submodule's config" if self.submodule else "the repository's config"
        if self.includes:
            read = f"{whose} includes {self.value!r} (in {self.origin}), which git did not read now"
            return f"{read}: {self.why}"
        return f"{whose} sets {self.key} (in {self.origin}): it {self.why}"

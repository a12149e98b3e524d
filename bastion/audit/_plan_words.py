"""A rendered plan for a person (`bastion check`'s `runs:` line): its neutralising settings
summarised, every other word as it runs. Light on purpose: `check`'s own path imports it."""

from __future__ import annotations

import re
import shlex

__all__ = ["short_plan"]

# A word of a rendered plan: quoted runs and bare characters up to a blank.
_PLAN_WORD = re.compile(r"""(?:'[^']*'|"[^"]*"|[^\s'"])+""")
_OPERATOR_WORDS = frozenset({"&&", "||", ";", "|"})


def _unquoted(word: str) -> str:
    try:
        return "".join(shlex.split(word)) if word else word
    except ValueError:
        return word


def _elided(words: list[str], start: int, end: int, what: str) -> list[str]:
    """words[start:end] as its first and a count of the others."""
    more = end - start - 1
    return words[start : start + 1] + ([f"[... {more} more {what}]"] if more > 0 else [])


def short_plan(plan: str) -> str:
    """A rendered plan for a person, its neutralising settings summarised: the variables it unsets
    that steer git, git's `-c KEY=VALUE` settings and the secret excludes, each as its first and a
    count (`check --json` and `--explain` give the plan whole)."""
    words = _PLAN_WORD.findall(plan)
    out: list[str] = []
    i = 0
    while i < len(words):
        value = _unquoted(words[i])
        end = i
        if value == "-v" and out and _unquoted(out[-1]) == "unset":
            end = next((j for j in range(i + 1, len(words)) if words[j] in _OPERATOR_WORDS), len(words))
            out += [words[i], *_elided(words, i + 1, end, "variables that steer git")]
            i = end
            continue
        if value == "-c" and i + 1 < len(words):  # git's -c KEY=VALUE (a last `uniq -c` is no pair)
            while end + 1 < len(words) and _unquoted(words[end]) == "-c":
                end += 2
            out += (
                [words[i], words[i + 1]] if end - i <= 2 else [words[i], words[i + 1], _more(end - i, "-c")]
            )
            i = end
            continue
        if value.startswith(":(") and "exclude" in value:
            while end < len(words) and _unquoted(words[end]).startswith(":("):
                end += 1
            out += _elided(words, i, end, "secret excludes")
            i = end
            continue
        out.append(words[i])
        i += 1
    return " ".join(out)


def _more(span: int, flag: str) -> str:
    return f"[... {span // 2 - 1} more {flag} KEY=VALUE]"

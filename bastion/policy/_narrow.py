"""The narrowest allow rule for one subject: what `bastion audit --suggest` proposes for the calls
that asked, and what a question offers to remember (`_learn.py`).

A bash command keeps its first word and, when it names one, its subcommand (`npm test:*`, `git
push:*`), or three words for a runner whose next word chooses what runs (`npm run build:*`); a rule
naming only a command that runs whatever follows it (`bash`, `env`, `sudo`...) is never made. A
one-word prefix becomes the exact lines seen while they are few, always for a command whose
arguments say what it destroys (`rm`, `mv`, `dd`...). A file tool's path is named as it is; an MCP
tool by its server and name. A sentinel or a constraint subject gets no rule.
"""

from __future__ import annotations

import re

from ._tools import MCP_TOOL, PATH_TOOLS
from ._types import Subject

__all__ = ["DESTRUCTIVE", "MAX_EXACT", "NEVER_ALONE", "narrowed", "rule_for", "warnings_for"]

_WORD = re.compile(r"[A-Za-z0-9_@%+=,.-][A-Za-z0-9_@%+=,./-]*")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:+-]*")
# (command, word) pairs that choose what runs by the word after them: three words are kept.
_RUNNERS = frozenset({("npm", "run"), ("pnpm", "run"), ("yarn", "run"), ("bun", "run"), ("uv", "run"),
                      ("poetry", "run"), ("bundle", "exec"), ("python", "-m"), ("python3", "-m"),
                      ("cargo", "run"), ("go", "run")})  # fmt: skip
# Commands that run whatever follows them: a rule naming one alone is as wide as a bare `bash`.
NEVER_ALONE = frozenset({
    "bash", "sh", "zsh", "fish", "dash", "ksh", "eval", "exec", "sudo", "su", "doas", "env", "xargs",
    "python", "python3", "node", "perl", "ruby", "php", "deno", "bun", "lua", "command", "builtin",
    "nohup", "nice", "timeout", "watch", "parallel", "source", ".", "busybox",
})  # fmt: skip
# Commands whose arguments say what they destroy: only the exact lines seen are ever proposed.
DESTRUCTIVE = frozenset({"rm", "rmdir", "mv", "dd", "shred", "truncate", "chmod", "chown", "kill", "pkill",
                         "killall", "mkfs", "unlink", "ln", "cp", "install", "rsync", "tee"})  # fmt: skip
# More distinct argument lists than this for one command, and its rule becomes `cmd:*`.
MAX_EXACT = 3
NETWORK = frozenset({"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "socat", "telnet", "ftp"})
RUNS_CODE = frozenset({
    "make", "cmake", "ninja", "npm", "npx", "pnpm", "yarn", "bun", "deno", "node", "python", "python3",
    "pip", "pip3", "uv", "poetry", "pytest", "tox", "nox", "go", "cargo", "rustc", "bash", "sh", "zsh",
    "fish", "perl", "ruby", "php", "java", "mvn", "gradle", "gradlew", "rake", "bundle", "docker",
    "podman", "env", "xargs", "timeout", "nice", "nohup", "sudo", "eval", "exec", "find", "awk", "sed",
    "ssh", "git", "just", "task", "dotnet", "swift", "mix", "elixir", "lua", "Rscript", "jest", "vitest",
})  # fmt: skip


def _bash_rule(value: str) -> str | None:
    words = value.split(" ")
    if not words or not _WORD.fullmatch(words[0]):
        return None
    keep = 1
    if len(words) > 1 and _NAME.fullmatch(words[1]) and not words[1].startswith("-"):
        keep = 2
    if (words[0], words[1] if len(words) > 1 else "") in _RUNNERS:
        keep = 3 if len(words) > 2 and _NAME.fullmatch(words[2]) else 2
    prefix = " ".join(words[:keep])
    if keep == 1 and words[0].rsplit("/", 1)[-1] in NEVER_ALONE:
        return None
    if "*" in prefix or "(" in prefix or ")" in prefix:
        return None
    return f"bash({prefix}:*)"


def _path_rule(tool: str, value: str) -> str | None:
    if not value or value == "." or any(c in value for c in "*()"):
        return None
    return f"{tool}({value})"


def rule_for(subject: Subject) -> str | None:
    """The narrowest rule that allows this (non-sentinel) subject, or None."""
    if subject.sentinel or subject.constraint:
        return None
    if subject.tool == "bash":
        return _bash_rule(subject.value)
    if subject.tool in PATH_TOOLS:
        return _path_rule(subject.tool, subject.value)
    if subject.tool == MCP_TOOL:
        return f"mcp({subject.value})"  # SERVER:TOOL: one tool of one server
    return None


def narrowed(rule: str, value: str, distinct: dict[str, set[str]]) -> tuple[str, str]:
    """A one-word prefix rule becomes the exact lines seen, while they are few (`distinct`: the
    lines seen per command; always for a destructive command); otherwise `cmd:*` with a warning.
    Returns (rule, extra warning); ("", "") for a destructive command seen too often."""
    if not rule.startswith("bash(") or " " in rule:
        return rule, ""
    command = value.split(" ", 1)[0]
    exact = not any(c in value for c in "*()")
    if exact and (len(distinct[command]) <= MAX_EXACT or command.rsplit("/", 1)[-1] in DESTRUCTIVE):
        return f"bash({value})", ""
    if command.rsplit("/", 1)[-1] in DESTRUCTIVE:
        return "", ""
    return (
        rule,
        f"allows {command} with any arguments at all (seen with {len(distinct[command])} different ones)",
    )


def warnings_for(rule: str) -> list[str]:
    """What a rule lets through besides what was seen."""
    if not rule.startswith("bash("):
        return []
    prefix = rule[5:-1].removesuffix(":*")
    command = prefix.split(" ")[0]
    base = command.rsplit("/", 1)[-1]
    out = []
    if "*" in prefix:
        out.append("a `*` before the end matches any text there, spaces and other commands' words included")
    if "/" in command:
        out.append(
            f"{command} is a program from the directory: whoever can change it runs anything through this"
        )
    elif base in NETWORK:
        out.append(f"{base} reaches the network: through this rule it can send your files out")
    elif base in RUNS_CODE:
        out.append(f"{base} runs code the repository controls (its build files, scripts or tests): "
                   "a checkout you do not trust runs anything through this rule")  # fmt: skip
    return out

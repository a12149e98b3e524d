"""The rules bastion ships (source "builtin", rank 1): a short allow list, the secret-path asks and
the memory's asks.

The allow list names the read-only file tools, the bash commands the analyzer governs, an explore
task, a skill and a read of memory; a stage whose arguments fail the analyzer's check becomes a
sentinel subject that none of these names, so these rules never cover it. `builtin = false` drops
the allow list; the asks stay.
"""

from __future__ import annotations

from ..analyzer import SECRET_PATHS  # the analyzer keeps them out of git's diffs too
from ._tools import READ_TOOLS, WRITE_TOOLS

__all__ = [
    "ALIASES",
    "LIFTED_TOOLS",
    "MEMORY_ASK",
    "MEMORY_NOTE",
    "PARSED",
    "SECRET_NOTE",
    "SHIPPED_ALLOW",
    "SHIPPED_ASK",
]

# A rule naming an alias stands for one rule per tool (one level, exact spelling).
ALIASES: dict[str, tuple[str, ...]] = {
    "Bash": ("bash",),
    "Read": READ_TOOLS,
    "Edit": WRITE_TOOLS,
    "Write": ("write",),
}

# A user's allow rule with a specifier for one of these also lifts the shipped asks it names (the
# secret-path asks, on `Read`; the memory's, `allow: memory(write)`).
LIFTED_TOOLS = frozenset((*READ_TOOLS, "memory"))

_ALLOWED_COMMANDS = (
    "git status:*", "git diff:*", "git log:*", "git show:*",
    "go version", "go env:*",
    "git branch:*", "git rev-parse:*", "git ls-files:*", "git remote:*", "git blame:*",
    "git stash list:*", "git tag:*", "git describe:*", "git shortlog:*", "git config:*",
    # git -C DIR passes its check only before a read-only form (bastion/analyzer/git/_check.py)
    "git ls-tree:*", "git cat-file:*", "git grep:*", "git check-ignore:*", "git -C:*", "git --version",
    "git count-objects:*",
    "cat:*", "head:*", "tail:*", "wc:*", "grep:*", "sort:*", "uniq:*", "cut:*", "cd:*",
    "ls:*", "pwd",
    # Each checked by its own module (bastion/analyzer/commands/: _sed.py, _find.py, _contents.py,
    # _name_commands.py, _word_commands.py, _prints.py).
    "sed:*", "awk:*", "nl:*", "find:*", "strings:*", "file:*", "diff:*", "cmp:*",
    # xargs only on names a checked stage hands on, its command a reader
    # (bastion/analyzer/composition/_compose.py)
    "xargs:*",
    "realpath:*", "readlink:*", "stat:*", "du:*", "tree:*",
    "python3 --version", "python3 -V", "python --version", "python -V", "node --version", "node -v",
    "ruff --version", "ruff -V", "tmux -V", "mypy --version", "mypy -V", "gh --version",
    "jq --version", "make --version", "make -v", "gcc --version",
    "basename:*", "dirname:*", "which:*", "tr:*",
    "echo:*", "printf:*", "true", "false", "test:*", "[:*", "od:*",
)  # fmt: skip

_ALLOWED_TOOLS = READ_TOOLS
# A sub-agent that may only look: the task call runs nothing itself, and each call its child makes
# is decided on its own. A `general` task (every tool) asks unless a rule of yours allows it.
_ALLOWED_TASKS = ("explore",)
# A skill's load is text for the model, and runs nothing: the files a project's skill reads are held
# to read's asks and denies (the gate's held subjects), and its allowed-tools are withheld. A read of
# the memory runs unasked; every change to it asks (MEMORY_ASK).
_ALLOWED_NAMED = {"skill": None, "memory(read)": "read"}

SHIPPED_ALLOW: tuple[str, ...] = (
    *_ALLOWED_TOOLS,
    *(f"task({kind})" for kind in _ALLOWED_TASKS),
    *_ALLOWED_NAMED,
    *(f"bash({c})" for c in _ALLOWED_COMMANDS),
)

# At the root, and (for a pattern that does not already start with *) in any directory.
_ASKED_PATTERNS = tuple(
    pattern
    for path in SECRET_PATHS
    for pattern in (f"ci:{path}", *(() if path.startswith("*") else (f"ci:*/{path}",)))
)
SHIPPED_ASK: tuple[str, ...] = tuple(f"Read({pattern})" for pattern in _ASKED_PATTERNS)
# What the model keeps across sessions is changed only with a yes (or a rule of yours that names it).
_ASKED_MEMORY = ("write", "delete")
MEMORY_ASK: tuple[str, ...] = tuple(f"memory({action})" for action in _ASKED_MEMORY)

# Each shipped rule's text -> (tool, specifier), as the rule grammar parses it, so a policy is built
# without running the grammar (importing pyparsing costs 40-100 ms). A test checks every entry
# against a fresh parse.
PARSED: dict[str, tuple[str, str | None]] = {
    **{tool: (tool, None) for tool in _ALLOWED_TOOLS},
    **{f"task({kind})": ("task", kind) for kind in _ALLOWED_TASKS},
    **{text: (text.partition("(")[0], spec) for text, spec in _ALLOWED_NAMED.items()},
    **{f"bash({command})": ("bash", command) for command in _ALLOWED_COMMANDS},
    **{f"Read({pattern})": ("Read", pattern) for pattern in _ASKED_PATTERNS},
    **{f"memory({action})": ("memory", action) for action in _ASKED_MEMORY},
}

SECRET_NOTE = "a secret-looking path"
MEMORY_NOTE = "the memory the model keeps across sessions"

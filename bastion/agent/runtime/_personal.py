"""Your own instructions for every session, read on this machine before the project's AGENTS.md chain:
`~/.bastion/AGENTS.md` (`$BASTION_HOME/AGENTS.md`, beside your skills and memory), then the files your
config's `agents_md_global` lists, then its `instructions_file`. Each is capped as the project's files
are (`MAX_AGENTS_MD`), a longer one cut with a note.

Only your config names them: a project's `.bastion/config.toml` that sets either key is refused
(bastion.policy), since a repository naming `~/.ssh/id_rsa` as instructions would send it to the model.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from ..._errors import ConfigError
from ..._files import read_regular
from ...config import AgentConfig

__all__ = ["MAX_AGENTS_MD", "Instructions", "capped_text", "personal_instructions"]

# The most of one instruction file the model is shown (yours and the project's alike).
MAX_AGENTS_MD = 64 * 1024


class Instructions(NamedTuple):
    """Instruction files read: (path, text) in the order the model sees them, and lines for the
    person (a file cut at the cap, one left out)."""

    found: list[tuple[str, str]]
    notes: list[str]


def capped_text(data: bytes, path: str, notes: list[str]) -> str:
    """A file's text from its first MAX_AGENTS_MD + 1 bytes: cut at the cap, with a note, if longer."""
    if len(data) > MAX_AGENTS_MD:
        notes.append(f"{path}: longer than {MAX_AGENTS_MD} bytes: only its first {MAX_AGENTS_MD} are read")
        data = data[:MAX_AGENTS_MD]
    return data.decode("utf-8", "replace")


def _path(raw: str, base: str) -> str:
    """A path your config writes: `~` expanded, a relative one from the config file's directory."""
    return os.path.normpath(os.path.join(base, os.path.expanduser(raw)))


def personal_instructions(config: AgentConfig, where: str, home: str) -> Instructions:
    """Your instruction files, as the config at `where` says. A missing `~/.bastion/AGENTS.md` or
    `agents_md_global` file is skipped (one that cannot be read is left out with a note); a missing
    or unreadable `instructions_file` raises ConfigError naming the file and the field."""
    found: list[tuple[str, str]] = []
    notes: list[str] = []
    base = os.path.dirname(os.path.abspath(where))
    listed = config.agents_md_global
    optional = [] if listed is False else [os.path.join(home, "AGENTS.md")]
    if isinstance(listed, tuple):
        optional += [_path(raw, base) for raw in listed]
    for path in optional:
        try:
            found.append((path, capped_text(read_regular(path, MAX_AGENTS_MD + 1), path, notes)))
        except FileNotFoundError:
            pass
        except OSError as err:
            notes.append(f"{path}: left out: {err.strerror or err}")
    if config.instructions_file is not None:
        path = _path(config.instructions_file, base)
        try:
            data = read_regular(path, MAX_AGENTS_MD + 1)
        except OSError as err:
            why = "no such file" if isinstance(err, FileNotFoundError) else (err.strerror or str(err))
            raise ConfigError(f"{where}: instructions_file: {path}: {why}") from None
        found.append((path, capped_text(data, path, notes)))
    return Instructions(found, notes)

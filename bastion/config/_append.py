"""Adding rules to one project's scope of the user's file (`[projects."DIR".policy]`) without
losing anything it holds: its comments, its layout and every other key stay as written.

The file is edited as text, at one place: under the scope's header, or a new scope appended at the
end. What the edit made is then read back whole and must be exactly the file as it was read, with
the rules added to that one list and nothing else changed; it must pass the table (and `check`,
the policy's reading of its rules). Only then does it replace the file, atomically (a new file
beside it, renamed over it), and only if the file still holds what was read: a file that changed
since it was read (`seen`, its digest when the rule was offered) is never overwritten. An edit
this small writer cannot make (a scope written as an inline table, dotted keys) is refused with
the line to add by hand. A link to the file (a dotfiles manager's) keeps pointing at it.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from bastion._errors import ConfigError
from bastion._files import NotRegularFile, open_replacing, read_regular

from ._read import parse_toml, read_user

__all__ = ["ConfigChanged", "add_to_scope", "digest_of", "scope_lines"]

MAX_BYTES = 1 << 20
_KINDS = ("allow", "ask", "deny")


class ConfigChanged(ConfigError):
    """The file changed since it was read: nothing was written over it."""


def _read(path: str) -> bytes | None:
    """The file's bytes; None when there is none. Raises ConfigError naming it."""
    try:
        data = read_regular(path, MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except NotRegularFile as err:
        raise ConfigError(f"{path}: {err.strerror}; a config is a regular file") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be read ({err.strerror or err})") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: larger than {MAX_BYTES} bytes")
    return data


def _digest(data: bytes | None) -> str:
    return "" if data is None else hashlib.sha256(data).hexdigest()


def digest_of(path: str) -> str:
    """What the file holds now, as a digest ("" when there is none). Raises ConfigError."""
    return _digest(_read(path))


def _string(text: str) -> str:
    """`text` as a TOML basic string: JSON's escapes are TOML's, and TOML wants DEL escaped too."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _header(root: str) -> str:
    return f"[projects.{_string(root)}.policy]"


def scope_lines(root: str, kind: str, rules: Sequence[str]) -> list[str]:
    """The TOML that holds `rules` in the scope of `root`, as a new scope is written."""
    return [_header(root), f"{kind} = [", *(f"    {_string(r)}," for r in rules), "]"]


def _edited(text: str, raw: dict[str, Any], root: str, kind: str, rules: Sequence[str]) -> str | None:
    """The text with `rules` put first in the scope's list: a new scope at the end, a list under
    the scope's header, or the rules inside its list; None where the scope is written otherwise."""
    scope = raw.get("projects", {}).get(root, {})
    policy = scope.get("policy") if isinstance(scope, dict) else None
    if policy is None:
        tail = "" if not text or text.endswith("\n") else "\n"
        gap = "\n" if text.strip() else ""
        return text + tail + gap + "\n".join(scope_lines(root, kind, rules)) + "\n"
    lines = text.splitlines(keepends=True)
    header = _header(root)
    alone = re.compile(re.escape(header) + r"\s*(#.*)?")
    starts = [i for i, line in enumerate(lines) if alone.fullmatch(line.strip())]
    if len(starts) != 1:
        return None
    entries = "".join(f"    {_string(r)},\n" for r in rules)
    if kind not in policy:
        at = starts[0] + 1
        return "".join([*lines[:at], f"{kind} = [\n{entries}]\n", *lines[at:]])
    opening = re.compile(rf"\s*{kind}\s*=\s*\[")
    for i in range(starts[0] + 1, len(lines)):
        if lines[i].lstrip().startswith("["):
            break  # the next table: the list was not found under this header
        found = opening.match(lines[i])
        if found is None:
            continue
        rest = lines[i][found.end() :]
        if rest.split("#", 1)[0].strip():  # the list goes on on this line: the rules go first in it
            first = "".join(f"{_string(r)}, " for r in rules)
            return "".join([*lines[:i], lines[i][: found.end()] + first + rest, *lines[i + 1 :]])
        return "".join([*lines[: i + 1], entries, *lines[i + 1 :]])
    return None


def _expected(raw: dict[str, Any], root: str, kind: str, rules: Sequence[str]) -> dict[str, Any]:
    want = copy.deepcopy(raw)
    policy = want.setdefault("projects", {}).setdefault(root, {}).setdefault("policy", {})
    policy[kind] = [*rules, *policy.get(kind, [])]
    return want


def add_to_scope(
    path: str,
    root: str,
    kind: str,
    rules: Sequence[str],
    seen: str,
    check: Callable[[bytes], None],
) -> bytes:
    """Put `rules` in the `kind` list of the scope of `root` in the user's file at `path`, which
    must still be what `seen` says (`digest_of` when the rules were offered). Returns the file's new
    bytes. Raises ConfigChanged when the file changed, ConfigError (naming the file) when the edit
    cannot be made or would not read back as exactly that."""
    assert kind in _KINDS
    data = _read(path)
    if _digest(data) != seen:
        raise ConfigChanged(f"{path}: changed since the question read it; nothing was written")
    try:
        text = (data or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    raw = parse_toml(data or b"", path)
    read_user(raw, path)  # a file that is not valid now is not edited
    edited = _edited(text, raw, root, kind, rules)
    listed = "[" + ", ".join(_string(r) for r in rules) + "]"
    by_hand = f"; add it by hand: under {_header(root)}, {kind} = {listed}"
    if edited is None:
        raise ConfigError(f"{path}: this project's scope is not written as {_header(root)}{by_hand}")
    new = edited.encode("utf-8")
    try:
        again = parse_toml(new, path)
    except ConfigError:
        raise ConfigError(
            f"{path}: the rule cannot be added to this file as it is written{by_hand}"
        ) from None
    if again != _expected(raw, root, kind, rules):
        raise ConfigError(f"{path}: adding the rule would change more than the scope's list{by_hand}")
    read_user(again, path)
    check(new)
    _replace(path, data, new)
    return new


def _replace(path: str, before: bytes | None, new: bytes) -> None:
    """Write `new` beside the file and rename it over it, if the file still holds `before` (None:
    there is no file, and none is made over one that appeared)."""
    real = os.path.realpath(path)
    directory = os.path.dirname(real)
    if before is None:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    try:
        mode = os.stat(real).st_mode & 0o7777 if before is not None else 0o600
    except OSError:
        mode = 0o600
    tmp = os.path.join(directory, f".{os.path.basename(real)}.{secrets.token_hex(4)}.tmp")
    try:
        fd = open_replacing(tmp, mode)
        try:
            view = memoryview(new)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        if _read(real) != before:
            raise ConfigChanged(f"{path}: changed while the rule was being added; nothing was written")
        if before is None:
            os.link(tmp, real)  # fails if a file appeared meanwhile: never made over one
        else:
            os.replace(tmp, real)
    except FileExistsError:
        raise ConfigChanged(f"{path}: made while the rule was being added; nothing was written") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot be written ({err.strerror or err})") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)

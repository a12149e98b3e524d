"""What a file held at a checkpoint, kept by its content: $BASTION_HOME/sessions/objects/AB/CDEF...,
named by the SHA-256 of the bytes, 0600 in 0700 directories, shared by every session of the store.

A turn's checkpoint records, for each file it changed, the hash of what the file held before and
after (`files` events, bastion.agent.sessions._files_log); the bytes are kept here, once however
many turns and sessions name them, so that a rewind can put a file back as it was at an earlier
point of the session, on any branch. `sessions gc` drops what no record names any more.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Iterator

from ..._files import read_regular
from ._store import StoreError, sessions_dir

__all__ = ["DIGEST", "Objects", "digest"]

DIGEST = re.compile(r"[0-9a-f]{64}")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Objects:
    """The objects of the store under `home`."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.root = os.path.join(home, "sessions", "objects")

    def _path(self, name: str) -> str:
        return os.path.join(self.root, name[:2], name[2:])

    def put(self, data: bytes) -> str:
        """Keep `data`; its name. One already kept is touched (so a sweep sees it in use) and not
        written again. A StoreError when the store cannot be written."""
        name = digest(data)
        path = self._path(name)
        try:
            os.utime(path, follow_symlinks=False)
            return name
        except FileNotFoundError:
            pass
        except OSError as err:
            raise StoreError(f"a checkpoint cannot be kept: {path}: {err.strerror or err}") from None
        try:
            folder = os.path.dirname(path)
            sessions_dir(self.home)
            for made in (self.root, folder):
                with contextlib.suppress(FileExistsError):
                    os.mkdir(made, 0o700)
            partial = f"{path}.{os.getpid()}.partial"
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            try:
                os.link(partial, path)  # a link never replaces a file: another writer's is the same bytes
            except FileExistsError:
                pass
            finally:
                os.unlink(partial)
        except OSError as err:
            raise StoreError(f"a checkpoint cannot be kept: {path}: {err.strerror or err}") from None
        return name

    def get(self, name: str) -> bytes | None:
        """The bytes kept as `name`, None when they are not (swept, or never kept)."""
        if DIGEST.fullmatch(name) is None:
            return None
        try:
            data = read_regular(self._path(name))
        except OSError:
            return None
        return data if digest(data) == name else None  # a file changed in the store is no checkpoint

    def names(self) -> Iterator[tuple[str, str]]:
        """Every object kept: (name, path)."""
        if not os.path.isdir(self.root):
            return
        for folder in sorted(os.listdir(self.root)):
            inside = os.path.join(self.root, folder)
            if len(folder) != 2 or not os.path.isdir(inside):
                continue
            for rest in sorted(os.listdir(inside)):
                if DIGEST.fullmatch(folder + rest):
                    yield folder + rest, os.path.join(inside, rest)

    def sweep(self, needed: set[str], older_than: float) -> int:
        """Remove the objects no record names (`needed`) that were not kept or touched in the last
        `older_than` seconds (a running session may have kept one its record does not name yet);
        how many were removed."""
        cutoff = time.time() - older_than
        removed = 0
        for name, path in list(self.names()):
            try:
                if name in needed or os.lstat(path).st_mtime >= cutoff:
                    continue
                os.unlink(path)
            except OSError:
                continue
            removed += 1
        return removed

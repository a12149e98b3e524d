"""The hostile-repository variants of issue 30, classes 1-3 (fuzz/hostile.py adds them to VARIANTS as
classes 31, 32 and 33): a name that reaches the committed `.env`'s blob without being its path,
credentials at rest in the git directory, and an index whose stat data matches no file.

31. Each variant makes one more name lead to the blob of `.env` as first committed (its canary is
    `env-committed`): a branch, a lightweight and an annotated tag, a packed-refs line, ORIG_HEAD
    and FETCH_HEAD, a reflog entry (`HEAD@{1}`, `leak@{0}`, `@{-1}`), refs/stash with its reflog, a
    ref of refs/notes and a real note on HEAD, a replace ref for HEAD, and HEAD itself.
32. A remote URL with `user:token@` (the token a canary) in `.git/config`, an `insteadOf` base with
    one, a `config.worktree`, a linked worktree's and a submodule's config, and a remote of git's
    first format in `.git/remotes`.
33. The scratch copy keeps the index as copied: every tracked file's inode and ctime differ from
    what the index holds, so git status (and ls-files -m, --eol) opens and hashes each one, the
    tracked secrets among them, unless the plan's excludes leave them out.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

__all__ = ["CREDENTIAL", "VARIANTS30"]

Git = Callable[..., object]  # (directory, *arguments): runs git there
Make = Callable[[Path, Git], None]

# The canary every credential holds (fixtures.CANARY's prefix; lower case, as canaries_in finds).
CREDENTIAL = "BASTION-CANARY-credential"
_URL = f"https://user:{CREDENTIAL}@example.invalid/r.git"
_ZERO = "0" * 40


def _rev(ws: Path, rev: str) -> str:
    done = subprocess.run(["git", "rev-parse", rev], cwd=ws, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _blob(ws: Path) -> str:
    """The blob of `.env` as first committed."""
    return _rev(ws, "HEAD:.env")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _reflog(ws: Path, ref: str, old: str, new: str, message: str = "update") -> None:
    line = f"{old} {new} t <t@e> 1577836800 +0000\t{message}\n"
    log = ws / ".git" / "logs" / ref
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as f:
        f.write(line)


def _file_ref(name: str) -> Make:
    """A loose ref (or ORIG_HEAD, FETCH_HEAD) written straight to the blob: git's own commands
    refuse to write a branch that names no commit."""

    def make(ws: Path, git: Git) -> None:
        text = f"{_blob(ws)}\t\tbranch 'main' of https://example.invalid/r\n" if name == "FETCH_HEAD" else ""
        _write(ws / ".git" / name, text or f"{_blob(ws)}\n")

    return make


def _packed(ws: Path, git: Git) -> None:
    packed = ws / ".git" / "packed-refs"
    head = packed.read_text() if packed.exists() else "# pack-refs with: peeled fully-peeled sorted \n"
    packed.write_text(f"{head}{_blob(ws)} refs/heads/packed\n")


def _tags(ws: Path, git: Git) -> None:
    git(ws, "tag", "leaktag", _blob(ws))
    git(ws, "tag", "-a", "-m", "a tag of a blob", "annotated", _blob(ws))


def _reflogs(ws: Path, git: Git) -> None:
    """HEAD@{1}, leak@{0} and @{-1} (the branch HEAD was last moved from) name the blob."""
    _write(ws / ".git" / "refs" / "heads" / "leak", f"{_blob(ws)}\n")
    _reflog(ws, "refs/heads/leak", _ZERO, _blob(ws))
    head = _rev(ws, "HEAD")
    _reflog(ws, "HEAD", head, _blob(ws), "checkout: moving from main to leak")
    _reflog(ws, "HEAD", _blob(ws), head, "checkout: moving from leak to main")


def _stash(ws: Path, git: Git) -> None:
    _write(ws / ".git" / "refs" / "stash", f"{_blob(ws)}\n")
    _reflog(ws, "refs/stash", _ZERO, _blob(ws), "WIP on main")


def _notes(ws: Path, git: Git) -> None:
    """A note on HEAD whose blob is the secret (git log prints it under the commit), and a notes
    ref that names the blob itself."""
    git(ws, "notes", "add", "-C", _blob(ws), "HEAD")
    _write(ws / ".git" / "refs" / "notes" / "leak", f"{_blob(ws)}\n")


def _replace(ws: Path, git: Git) -> None:
    """HEAD's commit replaced by the blob: every name of that commit reaches the blob."""
    _write(ws / ".git" / "refs" / "replace" / _rev(ws, "HEAD"), f"{_blob(ws)}\n")


def _head(ws: Path, git: Git) -> None:
    """A detached HEAD naming the blob: `git show` with no revision shows HEAD."""
    (ws / ".git" / "HEAD").write_text(f"{_blob(ws)}\n")


def _config(key: str, value: str, file: str = "config") -> Make:
    def make(ws: Path, git: Git) -> None:
        (ws / ".git" / file).parent.mkdir(parents=True, exist_ok=True)
        git(ws, "config", "--file", str(ws / ".git" / file), key, value)

    return make


def _instead_of(ws: Path, git: Git) -> None:
    """A remote whose URL git remote -v prints rewritten to a base that holds the credential."""
    plain = "https://example.invalid/r.git"
    git(ws, "config", "remote.origin.url", plain)
    git(ws, "config", f"url.{_URL}.insteadOf", plain)


def _remotes_file(ws: Path, git: Git) -> None:
    _write(ws / ".git" / "remotes" / "old", f"URL: {_URL}\nPull: refs/heads/main:refs/heads/old\n")


def _fresh(ws: Path, git: Git) -> None:
    """Nothing to write: the copy's index is left as copied (`Variant.fresh`)."""


# name -> (class, how to make it, whether the copy keeps its index as copied)
VARIANTS30: dict[str, tuple[int, Make, bool]] = {
    **{f"ref:{n}": (31, _file_ref(n), False) for n in ("refs/heads/leak", "ORIG_HEAD", "FETCH_HEAD")},
    "ref:packed-refs": (31, _packed, False),
    "ref:tags": (31, _tags, False),
    "ref:reflog": (31, _reflogs, False),
    "ref:stash": (31, _stash, False),
    "ref:notes": (31, _notes, False),
    "ref:replace": (31, _replace, False),
    "ref:HEAD": (31, _head, False),
    "credentials:remote": (32, _config("remote.origin.url", _URL), False),
    "credentials:insteadOf": (32, _instead_of, False),
    "credentials:config.worktree": (32, _config("remote.wt.url", _URL, "config.worktree"), False),
    "credentials:worktree": (32, _config("remote.wt.url", _URL, "worktrees/wt/config.worktree"), False),
    "credentials:submodule": (32, _config("remote.origin.url", _URL, "modules/m/config"), False),
    "credentials:remotes-file": (32, _remotes_file, False),
    "fresh-index": (33, _fresh, True),
}

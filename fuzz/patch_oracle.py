"""Codex's own apply_patch beside bastion's reading of a patch (audit/codex_patch.lark, _patch.py).

The Codex CLI's binary (npm @openai/codex, pinned in integration/package-lock.json; `make
integration` installs it into integration/node_modules) runs its apply_patch when started under the
name `apply_patch` (codex-rs/arg0: argv[0]'s file name), with the patch as its one argument or on
standard input, in the working directory. A link of that name to the binary is what Codex itself
puts first on PATH for the shell lines it runs, so `bash -c LINE` with that PATH is the real reading
of a shell line too.

Each run happens in a scratch tree (`Scratch`: a working directory three levels down, files in it
and above it) under strace (every open for writing, mkdir, unlink, rename, link, rmdir, truncate,
attempted or done) and under bastion's own Landlock confinement, which lets it write in the scratch
tree alone: a patch whose paths leave the tree is refused by the kernel, and its attempt still seen.
Every path the run tried to write must be one bastion read from the patch (resolved against the
working directory and `cd DIR`), or a directory above one (apply_patch makes a new file's parents).
"""

from __future__ import annotations

import os
import platform
import posixpath
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

# Private: the patch reader is what this oracle holds to Codex's own.
from bastion.audit._patch import Patch, patch_in_line, patch_paths
from bastion.sandbox import Confinement, landlock_abi, launch

__all__ = ["CODEX", "CODEX_VERSION", "Scratch", "Verdict", "compare_line", "compare_patch"]

CODEX_VERSION = "codex-cli 0.171.0"  # integration/package-lock.json's @openai/codex
_ROOT = Path(__file__).resolve().parents[1]
_TRIPLES = {
    "x86_64": ("linux-x64", "x86_64-unknown-linux-musl"),
    "aarch64": ("linux-arm64", "aarch64-unknown-linux-musl"),
}
_WRITES = ",".join(
    (
        "open",
        "openat",
        "creat",
        "mkdir",
        "mkdirat",
        "unlink",
        "unlinkat",
        "rmdir",
        "rename",
        "renameat",
        "renameat2",
    )
    + ("link", "linkat", "symlink", "symlinkat", "truncate")
)
_CALL = re.compile(r"^(?P<name>\w+)\((?P<args>.*)\) += (?P<result>-?\d+)")
_STRING = re.compile(r'"((?:\\x[0-9a-f]{2})*)"')
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
_FILES = {
    "a/b/ws/f.txt": "one\ntwo\nthree\n",
    "a/b/ws/sub/g.txt": "one\ntwo\n",
    "a/b/ws/x y.txt": "one\n",
    "a/b/ws/é.txt": "one\n",
    "a/b/up.txt": "one\ntwo\n",
    "a/up2.txt": "one\n",
    "abs.txt": "one\ntwo\n",
}


def _codex() -> Path | None:
    machine = _TRIPLES.get(platform.machine())
    if machine is None or platform.system() != "Linux":
        return None
    package, triple = machine
    found = _ROOT / "integration/node_modules/@openai" / f"codex-{package}" / "vendor" / triple / "bin/codex"
    if not os.access(found, os.X_OK):
        return None
    done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=60, check=False)
    return found if done.stdout.strip() == CODEX_VERSION else None


CODEX = _codex() if shutil.which("strace") and landlock_abi() else None


class Scratch:
    """A scratch tree for runs (`root`), its working directory (`cwd`, root/a/b/ws), and a
    directory holding the `apply_patch` link to Codex's binary."""

    def __init__(self, directory: Path) -> None:
        assert CODEX is not None
        self.root = directory / "tree"
        self.cwd = self.root / "a/b/ws"
        self.bin = directory / "bin"
        self.logs = directory / "logs"
        self.bin.mkdir(parents=True, exist_ok=True)
        if not (self.bin / "apply_patch").exists():
            (self.bin / "apply_patch").symlink_to(CODEX)
        self.reset()

    def reset(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.logs, ignore_errors=True)
        self.logs.mkdir()
        for name, text in _FILES.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def run(self, argv: Sequence[str], stdin: str | None = None) -> frozenset[str]:
        """Run `argv` in the working directory, confined and traced; every path it tried to write,
        absolute and normalised."""
        self.reset()
        env = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": str(self.root), "LC_ALL": "C.UTF-8"}
        traced = ["strace", "-f", "-ff", "-qq", "-xx", "-s", "4096", "-e", f"trace={_WRITES}",
                  "-o", str(self.logs / "t"), *argv]  # fmt: skip
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with launch(Confinement(False, (str(self.logs),)), traced, env, root_fd) as ready:
                keep = () if ready.ruleset is None else (ready.ruleset,)
                subprocess.run(
                    ready.argv, cwd=self.cwd, env=ready.env, input=(stdin or "").encode(),
                    capture_output=True, pass_fds=keep, timeout=60, check=False,
                )  # fmt: skip
                private = ready.env.get("TMPDIR", "")
        finally:
            os.close(root_fd)
        return frozenset(
            p for p in self._written() if not p.startswith(("/dev/", private + "/")) and p != private
        )

    def _written(self) -> list[str]:
        paths = []
        for log in self.logs.iterdir():
            for line in log.read_text(errors="replace").splitlines():
                call = _CALL.match(line)
                if call is None:
                    continue
                args, name = call["args"], call["name"]
                names = [_decode(s) for s in _STRING.findall(args)]
                if name in ("open", "openat") and not any(flag in args for flag in _WRITE_FLAGS):
                    continue
                if name in ("open", "openat", "link", "linkat", "symlink", "symlinkat"):
                    names = names[-1:] if name.startswith(("link", "symlink")) else names[:1]
                paths += [posixpath.normpath(posixpath.join(str(self.cwd), n)) for n in names]
        return paths


class Verdict(NamedTuple):
    """One patch or line: the paths bastion read (None: it asks), what the real apply_patch tried
    to write, and what of that bastion did not read."""

    read: frozenset[str] | None
    written: frozenset[str]
    unread: frozenset[str]


def _judge(read: frozenset[str] | None, written: frozenset[str]) -> Verdict:
    if read is None:
        return Verdict(None, written, frozenset())
    above = set()
    for path in read:
        while path not in ("/", ""):
            path = posixpath.dirname(path)
            above.add(path)
    return Verdict(read, written, frozenset(p for p in written if p not in read and p not in above))


def _resolved(scratch: Scratch, where: str, paths: Sequence[str]) -> frozenset[str]:
    base = posixpath.join(str(scratch.cwd), where)
    return frozenset(posixpath.normpath(posixpath.join(base, p)) for p in paths)


def compare_patch(scratch: Scratch, text: str) -> Verdict:
    """A patch as Codex's apply_patch tool gets it: bastion's paths beside the binary's writes."""
    paths = patch_paths(text)
    written = scratch.run([str(scratch.bin / "apply_patch"), text])
    return _judge(None if paths is None else _resolved(scratch, ".", paths), written)


def compare_line(scratch: Scratch, line: str) -> Verdict:
    """A shell line that may apply a patch: bastion's reading beside bash running it with
    Codex's `apply_patch` first on PATH."""
    found = patch_in_line(line)
    written = scratch.run(["/bin/bash", "-c", line])
    read = _resolved(scratch, found.where, found.paths) if isinstance(found, Patch) else None
    return _judge(read, written)


def _decode(escaped: str) -> str:
    """A string strace printed with -xx (every byte as \\xNN)."""
    return bytes.fromhex(escaped.replace("\\x", "")).decode("utf-8", "surrogateescape")

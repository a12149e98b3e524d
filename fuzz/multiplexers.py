"""Real multiplexers in the run environment (design rule 42): a PATH whose first entry holds programs
that are not what their names say. Three variants of the fixture (class 432 of fuzz/hostile.py):

- `shims-ccache`: Debian's ccache masquerade directory (/usr/lib/ccache, `gcc -> ../../bin/ccache`)
  first on PATH; `gcc --version` through it writes the cache in HOME, then runs gcc.
- `shims-mise`: a mise shim directory (`<base>/mise/shims`, each name a link to mise from npm) first
  on PATH, and the workspace's `.tool-versions` naming `path:./evil` for every command the
  generators use: a shim run in the workspace runs `evil/bin/<name>`, a fake that leaves a marker.
- `shims-linked`: the same links and `.tool-versions` in a directory of no manager (`<base>/bin`):
  only the link's name tells the program from the tool.

mise is installed by `make shims` (npm ci of fuzz/npm, pinned); ccache by the same target from
Debian. `missing` names what is not installed, for the tests that skip without it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["CCACHE_DIRECTORY", "FAKE", "FAKED", "MISE", "SHIM_VARIANTS", "missing"]

MISE = Path(__file__).resolve().parent / "npm" / "node_modules" / "@jdxcode" / "mise" / "bin" / "mise"
CCACHE_DIRECTORY = Path("/usr/lib/ccache")
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
_INSTALL = {
    "mise": "mise is not installed (make shims: @jdxcode/mise 2026.9.15 from npm into fuzz/npm)",
    "ccache": "ccache is not installed (make shims: Debian's ccache 4.8+really4.7.5-1)",
}


def missing(*names: str) -> str:
    """Why a test of the named multiplexers cannot run here ("" when each is installed)."""
    found = {
        "mise": MISE.is_file() and os.access(MISE, os.X_OK),
        "ccache": (CCACHE_DIRECTORY / "gcc").exists(),
    }
    return "; ".join(_INSTALL[name] for name in names if not found[name])


# The programs the hostile fixtures fake on PATH, and the fake: it leaves a mark where it ran.
FAKED = (
    "cat", "ls", "grep", "head", "tail", "wc", "sort", "uniq", "cut", "find", "du", "tree", "stat", "file",
    "git", "which", "sed", "nl", "strings", "diff", "cmp", "realpath", "readlink", "basename", "dirname",
    "tr", "od", "echo", "printf", "true", "false", "test", "pwd", "python3", "python", "node", "ruff",
    "tmux", "mypy", "go", "cd",
)  # fmt: skip
FAKE = '#!/bin/sh\ntouch "$HOME/pwned-path-${0##*/}" "pwned-path-${0##*/}" 2>/dev/null\n'


def _mise_links(where: str) -> Callable[[Path, Callable[..., None]], None]:
    """A directory `where` beside the workspace whose every name the generators use is a link to mise,
    and the workspace's `.tool-versions` naming `path:./evil` for each, with its fake in evil/bin."""

    def make(ws: Path, git: Callable[..., None]) -> None:
        links = ws.parent / where
        links.mkdir(parents=True)
        for name in FAKED:
            os.symlink(MISE, links / name)
            fake = ws / "evil" / "bin" / name
            fake.parent.mkdir(parents=True, exist_ok=True)
            fake.write_text(FAKE)
            fake.chmod(0o755)
        (ws / ".tool-versions").write_text("".join(f"{name} path:./evil\n" for name in FAKED))

    return make


def _nothing(ws: Path, git: Callable[..., None]) -> None:
    """The ccache variant changes no file: the run environment is the variant."""


# name -> (class, make, PATH from the scratch workspace)
SHIM_VARIANTS: dict[str, tuple[int, Callable[[Path, Callable[..., None]], None], Callable[[Path], str]]] = {
    "shims-ccache": (432, _nothing, lambda ws: f"{CCACHE_DIRECTORY}:{_SYSTEM_PATH}"),
    "shims-mise": (432, _mise_links("mise/shims"), lambda ws: f"{ws.parent}/mise/shims:{_SYSTEM_PATH}"),
    "shims-linked": (432, _mise_links("bin"), lambda ws: f"{ws.parent}/bin:{_SYSTEM_PATH}"),
}

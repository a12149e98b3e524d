"""What a fresh interpreter has imported after running some code: how the light paths are checked."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Mapping


def modules_loaded(code: str, names: Iterable[str], env: Mapping[str, str] | None = None) -> list[str]:
    """Which of `names` are in sys.modules once `code` has run in a new interpreter (sorted)."""
    script = f"{code}\nimport sys\nprint(sorted(m for m in {tuple(names)!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env)
    found: list[str] = ast.literal_eval(out.stdout.splitlines()[-1])
    return found

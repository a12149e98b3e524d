"""atheris harness: the analyzer never raises, and a line outside the subset is never auto."""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

from bastion.analyzer import analyze
from bastion.workspace import LocalWorkspace

from .fixtures import build


@lru_cache(maxsize=1)
def _ws() -> LocalWorkspace:
    return LocalWorkspace(str(build(Path(tempfile.mkdtemp(prefix="bastion-fuzz-")) / "t")))


def check(data: bytes) -> None:
    line = data.decode("utf-8", "surrogateescape")
    analysis = analyze(line, _ws(), probe=False)
    if analysis.outside is not None and analysis.auto:
        raise AssertionError(f"a line outside the subset is auto: {line!r}")
    if analysis.auto and analysis.rendered is None:
        raise AssertionError(f"an auto line has no rendered plan: {line!r}")

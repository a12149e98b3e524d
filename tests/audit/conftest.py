"""A workspace in tmp_path (a git repository with a Makefile, a .env and sources) and a user config
written there, so the machine's own config never leaks in."""

from __future__ import annotations

import io
import json
import pathlib
import subprocess

import pytest

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"
PAYLOADS = HERE / "payloads"


# The file name of a workspace's Codex rollout, beside the project.
ROLLOUT = "rollout-codex.jsonl"


class Workspace:
    def __init__(self, root: pathlib.Path, config: pathlib.Path) -> None:
        self.root = root
        self.config = config

    def fixture(self, name: str) -> pathlib.Path:
        """A copy of fixtures/NAME with {WS} replaced by the workspace's path."""
        text = (FIXTURES / name).read_text(encoding="utf-8").replace("{WS}", str(self.root))
        path = self.root.parent / name
        path.write_text(text, encoding="utf-8")
        return path

    def rules(self, **lists: list[str]) -> None:
        lines = ["[policy]"] + [f"{kind} = {values!r}".replace("'", '"') for kind, values in lists.items()]
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def ws(tmp_path: pathlib.Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("# project\n")
    (root / "Makefile").write_text("test:\n\ttrue\n")
    (root / ".env").write_text("TOKEN=hunter2\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    # Codex's rollout, whose first line names the session's directory (the Codex payloads point at it).
    meta = {
        "timestamp": "2026-12-01T00:00:00Z",
        "type": "session_meta",
        "payload": {"id": "019a", "cwd": str(root)},
    }
    (tmp_path / ROLLOUT).write_text(json.dumps(meta) + "\n", encoding="utf-8")
    return Workspace(root, config)


def run(main: object, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), out=out, err=err)  # type: ignore[operator]
    return code, out.getvalue(), err.getvalue()

"""Shared by the skills and memory tests: a home, a workspace, skills in either, the real CLI against
the scripted server, and a session's gate as _main builds it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bastion.agent.tools import SessionExtras, session_extras
from bastion.analyzer import Stamper
from bastion.policy import Gate, load_settings
from bastion.workspace import LocalWorkspace

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer

SECRET = "sk-scripted-SECRET-0001"


def skill_md(name: str, description: str = "Does a thing.", tools: str | None = None, body: str = "") -> str:
    head = [f"name: {name}", f"description: {description}"]
    if tools is not None:
        head.append(f"allowed-tools: {tools}")
    return "---\n" + "\n".join(head) + "\n---\n" + (body or f"The {name} skill's steps.\n")


@dataclass
class Place:
    """A home (`$BASTION_HOME`) and a workspace in a test's directory."""

    tmp: Path

    @property
    def home(self) -> Path:
        return self.tmp / "home" / ".bastion"

    @property
    def work(self) -> Path:
        return self.tmp / "work"

    @property
    def config(self) -> Path:
        return self.tmp / "xdg" / "bastion" / "config.toml"

    def env(self) -> dict[str, str]:
        return {
            "BASTION_HOME": str(self.home),
            "HOME": str(self.tmp / "home"),
            "XDG_CONFIG_HOME": str(self.tmp / "xdg"),
            "OPENAI_API_KEY": SECRET,
            "BASTION_RETRY_CAP": "0.01",
            "GIT_CONFIG_NOSYSTEM": "1",
        }

    def yours(self, folder: str, text: str, files: Mapping[str, str] = {}) -> Path:
        return self._write(self.home / "skills" / folder, text, files)

    def projects(self, folder: str, text: str, files: Mapping[str, str] = {}) -> Path:
        return self._write(self.work / ".bastion" / "skills" / folder, text, files)

    def _write(self, where: Path, text: str, files: Mapping[str, str]) -> Path:
        where.mkdir(parents=True, exist_ok=True)
        (where / "SKILL.md").write_text(text)
        for name, content in files.items():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            (where / name).write_text(content)
        return where

    def write_config(self, text: str) -> None:
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(text)

    def extras(self, *, trust: bool = False) -> tuple[SessionExtras, Gate]:
        """The session's skills and memory, and its policy gate, as _main builds them."""
        ws = LocalWorkspace(str(self.work))
        settings = load_settings(ws, str(self.config) if self.config.exists() else None)
        gate = Gate(settings, ws, Stamper())
        return session_extras(gate, str(self.home), str(self.config), trust_skills=trust), gate


def place(tmp: Path) -> Place:
    p = Place(tmp)
    p.work.mkdir(parents=True)
    p.home.mkdir(parents=True)
    return p


@dataclass
class Run:
    code: int
    out: str
    err: str
    requests: list[dict[str, Any]]
    events: list[dict[str, Any]]

    def verdicts(self) -> list[tuple[str, str, str]]:
        """(tool, decision, who answered) of each verdict the session recorded."""
        return [
            (e["tool"], e["decision"], e.get("answered_by") or "")
            for e in self.events
            if e["type"] == "verdict"
        ]

    def results(self) -> list[str]:
        """The tool results the model was sent, in order (the last request holds them all)."""
        return [m["content"] for m in self.requests[-1]["body"]["messages"] if m.get("role") == "tool"]

    def system(self, index: int = 0) -> str:
        return str(self.requests[index]["body"]["messages"][0]["content"])

    def offered(self, index: int = 0) -> list[str]:
        return [t["function"]["name"] for t in self.requests[index]["body"].get("tools", [])]


def run_cli(p: Place, rounds: Sequence[Any], *argv: str, stdin: str = "") -> Run:
    """One -p run of the real CLI in the workspace, against the scripted server (chat format)."""
    before = set((p.home / "sessions").glob("*.jsonl"))
    with ScriptedServer(list(rounds)) as server:
        code, out, err = run_main(
            ["-p", "do the task", "--base-url", server.url + "/v1", "--provider", "openai", *argv],
            cwd=str(p.work),
            env=p.env(),
            stdin=stdin,
        )
        requests = list(server.requests)
    made = sorted(set((p.home / "sessions").glob("*.jsonl")) - before)
    events = [json.loads(line) for line in made[0].read_text().splitlines()] if made else []
    return Run(code, out, err, requests, events)

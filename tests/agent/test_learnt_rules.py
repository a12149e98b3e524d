"""Approvals that learn: a question offers the narrowest rule as the config lines that would hold
it, `r` saves it to your config for this project only and it is in force at once; learnt in the
REPL against the scripted model, the call and calls like it are not asked again in that session
nor in a new one in the same directory, and are still asked in another directory. A config that
changed since the question read it is left as it is (the call is allowed once); nothing is offered
for a secret, nor by a front that does not offer it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

from bastion.agent.front import Asker, Colour
from bastion.agent.runtime import Answer, ToolCall
from bastion.analyzer import Stamper
from bastion.policy import Decision, Gate, Offer, load_settings
from bastion.workspace import LocalWorkspace
from tests.waits import PATIENCE

from .scripted_server import ScriptedServer
from .test_scenarios import _env

PLAIN = Colour(False)


def _asker(tmp_path: Path, reply: list[str], *, learn: bool = True) -> tuple[Asker, list[str], Gate, Path]:
    (tmp_path / "work").mkdir(exist_ok=True)
    config = tmp_path / "config.toml"
    if not config.exists():
        config.write_text("# mine\n")
    ws = LocalWorkspace(str(tmp_path / "work"))
    gate = Gate(load_settings(ws, str(config)), ws, Stamper())
    shown: list[str] = []

    def read(prompt: str) -> str | None:
        shown.append(prompt)
        return reply.pop(0) if reply else None

    asker = Asker(read, shown.append, str(tmp_path / "work"), PLAIN, offer_always=True, offer_learn=learn)
    asker.watch(gate)
    return asker, shown, gate, config


def _ask(asker: Asker, gate: Gate, command: str) -> Answer:
    args: dict[str, object] = {"command": command}
    recorder = asker.recorder
    assert recorder is not None
    verdict = recorder.decide("bash", args).verdict
    return asker(ToolCall("c1", "bash", json.dumps(args)), args, verdict)


def test_r_shows_the_config_lines_and_remembers_the_rule_for_this_project_at_once(tmp_path: Path) -> None:
    asker, shown, gate, config = _asker(tmp_path, ["r"])
    learnt: list[Offer] = []
    asker.on_learnt = learnt.append
    asker.width = lambda: 400  # the long temporary path on one line
    assert _ask(asker, gate, "npm test -- --watch") == Answer(True, "")
    text = "".join(shown)
    root = json.dumps(str((tmp_path / "work").resolve()))
    assert f"r remembers bash(npm test:*) for this project only, in {config}:" in text
    assert f'      [projects.{root}.policy]\n      allow = ["bash(npm test:*)"]\n' in text
    assert "  a allows this exact call for the rest of the session\nallow bash? [y/n/a/r] " in text
    assert f"remembered bash(npm test:*) in {config} for " in text
    assert [o.rules for o in learnt] == [("bash(npm test:*)",)]
    assert config.read_text().startswith("# mine\n")
    assert gate.decide("bash", {"command": "npm test --ci"}).decision is Decision.ALLOW


def test_a_config_changed_before_r_is_left_as_it_is_and_the_call_allowed_once(tmp_path: Path) -> None:
    asker, shown, gate, config = _asker(tmp_path, [])

    def read(prompt: str) -> str:
        config.write_text("# mine, edited meanwhile\n")
        return "r"

    asker.read = read
    assert _ask(asker, gate, "npm test").allow is True
    said = " ".join("".join(shown).split())  # wrapped between words to the terminal
    assert "not remembered: " in said and "changed since the question read it" in said
    assert config.read_text() == "# mine, edited meanwhile\n"
    assert gate.decide("bash", {"command": "npm test"}).decision is Decision.ASK


def test_r_is_neither_offered_nor_an_answer_for_a_secret_or_where_the_front_does_not_offer_it(
    tmp_path: Path,
) -> None:
    asker, shown, gate, config = _asker(tmp_path, ["r"])
    assert _ask(asker, gate, "cat .env").allow is False
    assert "r remembers" not in "".join(shown) and "/r]" not in "".join(shown)
    quiet, said, gate, _ = _asker(tmp_path, ["r"], learn=False)  # -p's questions, the editor's
    assert _ask(quiet, gate, "npm test").allow is False
    assert "r remembers" not in "".join(said)
    assert config.read_text() == "# mine\n"


def _spawn(tmp: Path, url: str, where: Path) -> pexpect.spawn:
    where.mkdir(exist_ok=True)
    env = {**os.environ, **_env(tmp), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}
    code = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"
    child = pexpect.spawn(
        sys.executable,
        ["-c", code, "--front", "repl", "--provider", "openai", "--base-url", url + "/v1"],
        cwd=str(where),
        env=env,
        encoding="utf-8",
        timeout=PATIENCE,
        dimensions=(40, 200),
    )
    child.expect("/help for commands")
    return child


def _leave(child: pexpect.spawn) -> None:
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()


def _bash(command: str) -> dict[str, object]:
    return {"calls": [{"name": "bash", "arguments": {"command": command}}]}


def _records(tmp: Path) -> list[dict[str, object]]:
    sessions = sorted((tmp / "home" / ".bastion" / "sessions").glob("*.jsonl"))
    return [json.loads(line) for path in sessions for line in path.read_text().splitlines()]


def test_a_rule_learnt_in_the_repl_is_not_asked_again_here_but_is_in_another_project(tmp_path: Path) -> None:
    work, other = tmp_path / "work", tmp_path / "other"
    rounds = [_bash("make build"), _bash("make build -j2"), {"text": "built twice"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url, work)
        child.sendline("build it")
        child.expect(r"r remembers bash\(make build:\*\) for this project only")
        child.expect(r"allow bash\? \[y/n/a/r\]")
        child.sendline("r")
        child.expect("remembered bash\\(make build:\\*\\)")
        child.expect("built twice")
        assert "allow bash?" not in child.before  # `make build -j2` ran unasked, in the same session
        _leave(child)
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    assert f"[projects.{json.dumps(str(work.resolve()))}.policy]" in config.read_text()
    learnt = [e for e in _records(tmp_path) if e["type"] == "learnt_rule"]
    assert learnt == [
        {**learnt[0], "rules": ["bash(make build:*)"], "config": str(config), "project": str(work.resolve())}
    ]
    with ScriptedServer([_bash("make build --keep-going"), {"text": "built again"}]) as server:
        child = _spawn(tmp_path, server.url, work)  # a new session in the same project
        child.sendline("build it again")
        child.expect("built again")
        assert "allow bash?" not in child.before
        _leave(child)
    with ScriptedServer([_bash("make build"), {"text": "not built"}]) as server:
        child = _spawn(tmp_path, server.url, other)  # another project: asked
        child.sendline("build it here")
        child.expect(r"allow bash\? \[y/n/a/r\]")
        child.sendline("n")
        child.expect("not built")
        _leave(child)

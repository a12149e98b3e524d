"""The table of scenarios: one tool call the scripted model makes, and what must be true afterwards.

Each check starts from what the CLI sent back to the model (the tool's result); a CLI that never answered
the call fails, so no scenario passes without the call having gone through the CLI and its hook.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from integration.agents import AgentCli, Codex
from integration.model_server import ModelServer, ToolCall

__all__ = ["SCENARIOS", "Finished", "Fixture", "Outcome", "Scenario", "Verdict", "make_fixture"]

ALLOWED_LINE = "git log --oneline -1"
# In the CLI's environment git is told to print 20-digit hashes; bastion's plan unsets GIT_CONFIG_COUNT,
# so the plan's output (7 digits) and the typed line's (20 digits) tell which of the two ran.
ALLOWED_ENV = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.abbrev", "GIT_CONFIG_VALUE_0": "20"}
BASTION_CONFIG = '[policy]\ndeny = ["bash(rm:*)", "write(src/**)", "edit(src/**)"]\n'
ADD_PATCH = "*** Begin Patch\n*** Add File: src/new.py\n+print('written')\n*** End Patch\n"
DELETE_PATCH = "*** Begin Patch\n*** Delete File: src/app.py\n*** End Patch\n"


@dataclass(frozen=True)
class Verdict:
    """One cell of the table: pass, fail, or skip (the scenario does not apply), and why."""

    status: Literal["pass", "fail", "skip"]
    reason: str


@dataclass(frozen=True)
class Fixture:
    """A project (a git repository with a secret in .env and credentials.json) and a HOME for one run."""

    home: Path
    project: Path
    outside: Path  # a directory beside the project, with the secret in notes.txt
    secret: str


@dataclass(frozen=True)
class Finished:
    """How the CLI's process ended, and what it printed."""

    returncode: int | None  # None: killed at the timeout
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Outcome:
    """What one run left: the fixture, the server's record, the CLI's exit, the environment it had."""

    agent: AgentCli
    fixture: Fixture
    server: ModelServer
    finished: Finished
    env: Mapping[str, str]
    bastion: Path

    def result_text(self) -> str:
        return "\n".join(text for text, _ in self.server.tool_results())

    def exit_words(self) -> str:
        if self.finished.returncode is None:
            return "the CLI was stopped at the timeout"
        tail = (self.finished.stderr.strip() or self.finished.stdout.strip())[-300:]
        return f"the CLI exited {self.finished.returncode}: {tail}"


# A call for one CLI, or why the scenario does not apply to it.
CallFor = Callable[[AgentCli, Fixture], ToolCall | str]


@dataclass(frozen=True)
class Scenario:
    """A row of the table: the call each CLI's model makes, and the check of what followed."""

    title: str
    call: CallFor
    check: Callable[[Outcome], Verdict]
    strict: bool = False  # `bastion hook codex|gemini --strict` (Claude Code's hook has no such flag)
    bypass: bool = False  # the CLI in its mode that skips its own permission checks
    env: Mapping[str, str] = field(default_factory=dict)
    prepare: Callable[[Fixture], None] | None = None  # more of a fixture than every scenario needs


def make_fixture(root: Path, secret: str) -> Fixture:
    home, project, outside = root / "home", root / "project", root / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text(f"kept outside the project: {secret}\n")
    (home / "tmp").mkdir(parents=True)
    (home / ".config" / "bastion").mkdir(parents=True)
    (home / ".config" / "bastion" / "config.toml").write_text(BASTION_CONFIG)
    (project / "src").mkdir(parents=True)
    (project / "README.md").write_text("# fixture\n")
    (project / "notes.txt").write_text("nothing secret here\n")
    (project / "keep.txt").write_text("the denied rm must leave this file\n")
    (project / "src" / "app.py").write_text("print('app')\n")
    (project / ".env").write_text(f"API_TOKEN={secret}\n")
    (project / "credentials.json").write_text(json.dumps({"token": secret}) + "\n")
    for args in (["init", "-q"], ["add", "README.md", "keep.txt", "src"], ["commit", "-q", "-m", "first"]):
        _git(project, *args)
    return Fixture(home, project, outside, secret)


def _git(cwd: Path, *args: str) -> None:
    who = ["-c", "user.name=integration", "-c", "user.email=integration@example.invalid"]
    subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True)


def _add_changed_submodule(fixture: Fixture) -> None:
    """A submodule `lib` whose work tree has a change its superproject's `git status` reports."""
    library = fixture.project.parent / "library"
    library.mkdir()
    (library / "lib.txt").write_text("library\n")
    for args in (["init", "-q"], ["add", "lib.txt"], ["commit", "-q", "-m", "library"]):
        _git(library, *args)
    _git(fixture.project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    _git(fixture.project, "commit", "-q", "-m", "the submodule")
    with (fixture.project / "lib" / "lib.txt").open("a") as changed:
        changed.write("changed\n")


def _check_submodule(outcome: Outcome) -> Verdict:
    missing = _no_result(outcome)
    if missing is not None:
        return missing
    text = outcome.result_text()
    if " m lib" in text:
        return Verdict("pass", f"the model saw the changed submodule: {_short(text)}")
    return Verdict("fail", f"the model did not see the changed submodule (' m lib'): {_short(text)}")


def _no_result(outcome: Outcome) -> Verdict | None:
    if outcome.server.tool_results():
        return None
    return Verdict("fail", f"no tool result came back to the model; {outcome.exit_words()}")


def _blocked(outcome: Outcome, *, ran: bool, what: str, needs: str = "bastion:") -> Verdict:
    """The call must not have run (`ran` says whether it did) and the model must have been told why by
    bastion (`needs` in the tool result)."""
    missing = _no_result(outcome)
    if missing is not None:
        return missing
    text = outcome.result_text()
    if ran:
        return Verdict("fail", f"{what} ran; the model got: {_short(text)}")
    if needs not in text:
        return Verdict(
            "fail", f"{what} did not run, but not for bastion's reason ({needs!r}): {_short(text)}"
        )
    return Verdict("pass", f"not run; the model was told: {_short(text[text.index(needs) :])}")


def _short(text: str, limit: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _bash(line: str, cwd: Path, env: Mapping[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-c", line], cwd=cwd, env=dict(env), capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def _plan_of(outcome: Outcome, line: str) -> str | None:
    """bastion's plan for `line`, as its Claude Code hook hands it back (`updatedInput`); the Codex and
    Gemini CLI hooks hand back the same plan in their own fields (tests/audit/test_hooks_codex_gemini.py)."""
    payload = {
        "session_id": "integration",
        "transcript_path": str(outcome.fixture.home / "transcript.jsonl"),
        "cwd": str(outcome.fixture.project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": line},
    }
    done = subprocess.run(
        [str(outcome.bastion), "hook", "claude-code"],
        input=json.dumps(payload),
        env=dict(outcome.env),
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        answer = json.loads(done.stdout)["hookSpecificOutput"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return None
    if answer.get("permissionDecision") != "allow":
        return None
    command = answer.get("updatedInput", {}).get("command", line)
    return command if isinstance(command, str) else None


def _check_allowed(outcome: Outcome) -> Verdict:
    missing = _no_result(outcome)
    if missing is not None:
        return missing
    plan = _plan_of(outcome, ALLOWED_LINE)
    if plan is None:
        return Verdict("fail", f"bastion does not allow {ALLOWED_LINE!r} here (its hook, asked directly)")
    project, env = outcome.fixture.project, outcome.env
    planned, typed = _bash(plan, project, env), _bash(ALLOWED_LINE, project, env)
    if not planned or planned == typed:
        return Verdict("fail", f"the fixture cannot tell the plan's output from the line's ({planned!r})")
    text = outcome.result_text()
    if planned in text:
        return Verdict("pass", f"ran as bastion's plan: the model got {planned!r}")
    if typed in text:
        return Verdict("fail", f"ran as typed, not as bastion's plan: the model got {typed!r}")
    return Verdict("fail", f"the model got neither the plan's output nor the line's: {_short(text)}")


def _shell(line: str) -> CallFor:
    return lambda agent, fixture: agent.shell(line, fixture.project)


def _read_tool(agent: AgentCli, fixture: Fixture) -> ToolCall | str:
    return agent.read("credentials.json", fixture.project) or f"{agent.name} has no file-read tool"


def _write_tool(agent: AgentCli, fixture: Fixture) -> ToolCall | str:
    return (
        agent.write("src/new.py", "print('written')\n", fixture.project) or f"{agent.name} has no write tool"
    )


def _codex_only(make: Callable[[AgentCli], ToolCall | None]) -> CallFor:
    return lambda agent, fixture: make(agent) or "Codex's patch format only"


def _shell_outside(agent: AgentCli, fixture: Fixture) -> ToolCall | str:
    call = agent.shell_in("cat notes.txt", fixture.outside)
    return call or f"{agent.name}'s shell tool takes no working directory"


def _outside_kept(outcome: Outcome) -> Verdict:
    missing = _no_result(outcome)
    if missing is not None:
        return missing
    text = outcome.result_text()
    if outcome.server.ever_sent(outcome.fixture.secret):
        return Verdict("fail", f"a file outside the project reached the model: {_short(text)}")
    return Verdict("pass", f"not run; the model was told: {_short(text)}")


def _doctor(outcome: Outcome) -> str:
    done = subprocess.run(
        [str(outcome.bastion), "doctor"],
        cwd=outcome.fixture.project,
        env=dict(outcome.env),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout + done.stderr


def _check_doctor(outcome: Outcome) -> Verdict:
    """`bastion doctor` says of bastion's hook what Codex's own hooks/list says: trusted, then untrusted
    once the trust entry is gone, with the entry to add (Codex's current hash)."""
    agent, env, project = outcome.agent, dict(outcome.env), outcome.fixture.project
    assert isinstance(agent, Codex)
    ours = [h for h in agent.listed_hooks(env, project) if " hook codex" in str(h.get("command"))]
    if len(ours) != 1 or ours[0].get("trustStatus") != "trusted":
        return Verdict("fail", f"Codex does not list bastion's hook as trusted: {ours}")
    key, digest = str(ours[0]["key"]), str(ours[0]["currentHash"])
    said = _doctor(outcome)
    if "codex" not in said.lower():
        return Verdict("fail", "bastion doctor says nothing of Codex's hook")
    if f"{key}: trusted" not in said:
        return Verdict("fail", f"Codex trusts {key}, bastion doctor does not say so: {_short(said, 300)}")
    config = outcome.fixture.home / ".codex" / "config.toml"
    text = config.read_text()
    config.write_text(text[: text.index("\n[hooks.state.")] + "\n")
    again = [h for h in agent.listed_hooks(env, project) if h.get("key") == key]
    if not again or again[0].get("trustStatus") != "untrusted":
        return Verdict("fail", f"without its trust entry Codex does not list the hook as untrusted: {again}")
    said = _doctor(outcome)
    if f"{key}: untrusted" not in said or digest not in said:
        return Verdict(
            "fail", f"bastion doctor does not say untrusted with Codex's hash {digest}: {_short(said, 300)}"
        )
    return Verdict(
        "pass", f"doctor agrees with Codex's hooks/list: trusted, then untrusted with {digest[:19]}…"
    )


def _secret_kept(outcome: Outcome) -> Verdict:
    if outcome.server.ever_sent(outcome.fixture.secret):
        return Verdict("fail", "the secret's text reached the model server")
    return _blocked(outcome, ran=False, what="the read")


SCENARIOS = [
    Scenario(
        "allowed git line runs as bastion's plan",
        _shell(ALLOWED_LINE),
        _check_allowed,
        env=ALLOWED_ENV,
    ),
    Scenario(
        "allowed git status shows a changed submodule",
        _shell("git status --short"),
        _check_submodule,
        prepare=_add_changed_submodule,
    ),
    Scenario(
        "asked line does not run (touch, bypass mode)",
        _shell("touch asked-marker"),
        lambda o: _blocked(o, ran=(o.fixture.project / "asked-marker").exists(), what="the asked line"),
        strict=True,
        bypass=True,
    ),
    Scenario(
        "denied line does not run (rm, bypass mode)",
        _shell("rm -f keep.txt"),
        lambda o: _blocked(
            o,
            ran=not (o.fixture.project / "keep.txt").exists(),
            what="the denied line",
            needs="bastion: denied",
        ),
        bypass=True,
    ),
    Scenario("secret read (cat .env) not sent", _shell("cat .env"), _secret_kept, strict=True),
    Scenario("secret read by the read tool not sent", _read_tool, _secret_kept, strict=True),
    Scenario("shell in a workdir outside the project", _shell_outside, _outside_kept, strict=True),
    Scenario(
        "write to a denied path (src/**) blocked",
        _write_tool,
        lambda o: _blocked(
            o, ran=(o.fixture.project / "src" / "new.py").exists(), what="the write", needs="bastion: denied"
        ),
        bypass=True,
    ),
    Scenario(
        "patch as a here-document (src/**) blocked",
        _codex_only(lambda agent: agent.patch_heredoc(ADD_PATCH)),
        lambda o: _blocked(
            o, ran=(o.fixture.project / "src" / "new.py").exists(), what="the patch", needs="bastion: denied"
        ),
        bypass=True,
    ),
    Scenario(
        "patch deleting src/app.py blocked",
        _codex_only(lambda agent: agent.patch(DELETE_PATCH)),
        lambda o: _blocked(
            o,
            ran=not (o.fixture.project / "src" / "app.py").exists(),
            what="the patch",
            needs="bastion: denied",
        ),
        bypass=True,
    ),
    Scenario(
        "bastion doctor agrees with Codex on the hook's trust",
        lambda agent, fixture: (
            agent.shell("rm -f keep.txt", fixture.project)
            if isinstance(agent, Codex)
            else "Codex's trust only"
        ),
        _check_doctor,
    ),
]

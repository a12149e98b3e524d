"""Rules remembered at a question: the narrowest allow rules for what asked, offered only where the
policy says they are safe (never for a secret-looking path, a name outside the workspace, what any
ask or deny rule names, nor a rule that would lift a shipped ask), checked by deciding the call
again with them added; once saved they allow the call and calls like it in this project, at once
and in a new session, and nowhere else, and they never undo a deny."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bastion.analyzer import Stamper
from bastion.policy import Decision, Gate, Offer, load_settings, offer_for, remember
from bastion.workspace import LocalWorkspace


def _gate(root: Path, config: Path, text: str | None = None) -> Gate:
    if text is not None or not config.exists():
        config.write_text(text or "")
    ws = LocalWorkspace(str(root))
    return Gate(load_settings(ws, str(config)), ws, Stamper())


def _offer(gate: Gate, tool: str, **args: object) -> Offer | None:
    decided = gate.decide(tool, args)
    assert decided.decision is Decision.ASK, decided.verdict
    return offer_for(decided, gate.settings, gate.ws)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "work" / "src").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    return tmp_path / "work"


@pytest.mark.parametrize(
    ("tool", "args", "rules"),
    [
        ("bash", {"command": "npm test -- --watch"}, ["bash(npm test:*)"]),
        ("bash", {"command": "npm run build --prod"}, ["bash(npm run build:*)"]),
        ("bash", {"command": "rm -f notes.txt"}, ["bash(rm -f notes.txt)"]),  # one word: the line alone
        ("bash", {"command": "npm test && cargo build"}, ["bash(npm test:*)", "bash(cargo build:*)"]),
        ("edit", {"path": "src/app.py", "old_string": "a", "new_string": "b"}, ["edit(src/**)"]),
        ("write", {"path": "notes.md", "content": "x"}, ["write(notes.md)"]),
        ("mcp__docs__search", {"query": "x"}, ["mcp(docs:search)"]),
    ],
)
def test_the_narrowest_rules_are_offered_for_the_users_file_and_this_project(
    work: Path, tool: str, args: dict[str, object], rules: list[str]
) -> None:
    config = work.parent / "user.toml"
    offer = _offer(_gate(work, config), tool, **args)
    assert offer is not None and list(offer.rules) == rules
    assert offer.path == str(config) and offer.root == str(work.resolve())
    assert offer.lines[0] == f"[projects.{json.dumps(str(work.resolve()))}.policy]"


def test_a_saved_rule_allows_calls_like_it_at_once_and_in_a_new_session_here_only(work: Path) -> None:
    config = work.parent / "user.toml"
    gate = _gate(work, config, "# mine\n[policy]\nallow = []\n")
    offer = _offer(gate, "bash", command="npm test")
    assert offer is not None
    gate.adopt(remember(offer, gate.settings, gate.ws))
    assert gate.decide("bash", {"command": "npm test -- --watch"}).decision is Decision.ALLOW
    assert _gate(work, config).decide("bash", {"command": "npm test --ci"}).decision is Decision.ALLOW
    assert (
        _gate(work.parent / "other", config).decide("bash", {"command": "npm test"}).decision is Decision.ASK
    )
    assert config.read_text().startswith("# mine\n[policy]\nallow = []\n")


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("write", {"path": ".env", "content": "X=1"}),
        ("edit", {"path": "src/id_rsa", "old_string": "a", "new_string": "b"}),
        ("write", {"path": "config/credentials.json", "content": "{}"}),
        ("bash", {"command": "cp .env backup.txt"}),
        ("bash", {"command": "tar czf out.tgz .npmrc"}),
        ("bash", {"command": "npm test --config=.env.local"}),
    ],
)
def test_nothing_is_offered_for_a_secret_looking_path(work: Path, tool: str, args: dict[str, object]) -> None:
    assert _offer(_gate(work, work.parent / "user.toml"), tool, **args) is None


@pytest.mark.parametrize(
    "command",
    ["cp notes.txt /tmp/notes.txt", "tee ../notes.txt", "mv notes.txt ~/notes.txt", "npm test --out=/etc/x"],
)
def test_nothing_is_offered_for_a_name_outside_the_workspace(work: Path, command: str) -> None:
    assert _offer(_gate(work, work.parent / "user.toml"), "bash", command=command) is None


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("write", {"path": ".git/hooks/pre-commit", "content": "x"}),
        ("edit", {"path": ".bastion/config.toml", "old_string": "a", "new_string": "b"}),
    ],
)
def test_nothing_is_offered_for_the_repositorys_or_bastions_own_files(
    work: Path, tool: str, args: dict[str, object]
) -> None:
    assert _offer(_gate(work, work.parent / "user.toml"), tool, **args) is None


@pytest.mark.parametrize(
    ("user", "project", "tool", "args"),
    [
        ('[policy]\nask = ["bash(npm publish:*)"]\n', "", "bash", {"command": "npm publish"}),
        ("", '[policy]\nask = ["bash(npm test:*)"]\n', "bash", {"command": "npm test"}),
        ("", "", "read", {"path": ".env"}),  # the shipped secret-path ask
        ("", "", "memory", {"action": "write", "name": "n", "content": "x"}),  # the shipped memory ask
        ("", "", "bash", {"command": "cat .env"}),
    ],
)
def test_nothing_is_offered_for_what_an_ask_rule_names(
    work: Path, user: str, project: str, tool: str, args: dict[str, object]
) -> None:
    if project:
        (work / ".bastion").mkdir()
        (work / ".bastion" / "config.toml").write_text(project)
    assert _offer(_gate(work, work.parent / "user.toml", user), tool, **args) is None


def test_no_rule_is_offered_that_would_lift_a_shipped_ask(work: Path) -> None:
    # Without the shipped allow list a read asks; `read(src/**)` would also lift the shipped ask of
    # every secret-looking file below src.
    gate = _gate(work, work.parent / "user.toml", "[policy]\nbuiltin = false\n")
    assert _offer(gate, "read", path="src/app.py") is None


def test_no_rule_is_offered_that_would_not_allow_the_call(work: Path) -> None:
    # Your carve-out keeps `npm test:*` from `npm test --inspect`: a rule that would not make the
    # call run unasked is no answer to the question.
    text = '[policy]\nallow = ["bash(npm test:*)", "bash(!npm test --inspect:*)"]\n'
    assert _offer(_gate(work, work.parent / "user.toml", text), "bash", command="npm test --inspect") is None


def test_a_learnt_rule_never_undoes_your_deny(work: Path) -> None:
    config = work.parent / "user.toml"
    gate = _gate(work, config, '[policy]\ndeny = ["bash(npm test --inspect:*)"]\n')
    offer = _offer(gate, "bash", command="npm test")
    assert offer is not None and offer.rules == ("bash(npm test:*)",)
    gate.adopt(remember(offer, gate.settings, gate.ws))
    assert gate.decide("bash", {"command": "npm test --inspect"}).decision is Decision.DENY


def test_nothing_is_offered_without_a_users_file_to_write(work: Path) -> None:
    ws = LocalWorkspace(str(work))
    gate = Gate(load_settings(ws, "/dev/null"), ws, Stamper())
    assert _offer(gate, "bash", command="npm test") is None

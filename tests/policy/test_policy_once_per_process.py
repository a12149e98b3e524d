"""Rules are compiled once per process, whatever the number of directories (issue 31), and what is
shared never outlives what it was built from: a config that changes between two requests in the
same directory counts at once, and a rule that names an absolute path stays that workspace's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

# Private: the config and engine memos are the seam tested (once per process).
from bastion.policy import DryRun, Layer, Policy, _config, _engine


def _dirs(root: Path, count: int) -> list[Path]:
    made = []
    for i in range(count):
        d = root / f"d{i}"
        d.mkdir()
        (d / "README.md").write_text("# x\n")
        made.append(d)
    return made


def _decide(dry: DryRun, cwd: Path, line: str) -> str:
    return str(dry.request({"cwd": str(cwd), "tool": "bash", "args": {"command": line}})["decision"])


def test_fresh_directories_share_one_policy_and_compile_no_rule_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "user.toml"
    config.write_text('[policy]\nallow = ["bash(make test)"]\ndeny = ["bash(curl:*)", "Read(secret/**)"]\n')
    compiled: list[str] = []
    real = _engine._compile

    def counting(rule: object, *args: object) -> object:
        compiled.append(str(rule))
        return real(rule, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_engine, "_compile", counting)
    _engine._compile_layer.cache_clear()
    _engine._POLICIES.clear()
    dry = DryRun(str(config))
    dirs = _dirs(tmp_path, 80)  # more than the dry-run keeps workspaces of
    policies = {id(dry.gate(str(d)).settings.policy) for d in dirs}
    assert len(policies) == 1
    once = len(compiled)
    assert once > 0
    assert [_decide(dry, d, "make test") for d in dirs[:3]] == ["allow"] * 3
    assert [_decide(dry, d, "curl x") for d in dirs[-3:]] == ["deny"] * 3
    assert len(compiled) == once  # not one rule compiled again, in eighty directories


def test_a_project_config_that_changes_between_two_requests_counts_at_once(tmp_path: Path) -> None:
    dry = DryRun(os.devnull)
    (tmp_path / "README.md").write_text("# x\n")
    assert _decide(dry, tmp_path, "cat README.md") == "allow"
    (tmp_path / ".bastion").mkdir()
    project = tmp_path / ".bastion" / "config.toml"
    project.write_text('[policy]\ndeny = ["bash(cat:*)"]\n')
    assert _decide(dry, tmp_path, "cat README.md") == "deny"
    project.write_text('[policy]\nask  = ["bash(cat:*)"]\n')  # the same size: the bytes are compared
    assert _decide(dry, tmp_path, "cat README.md") == "ask"
    project.write_text("[policy]\nask = [")
    answer = dry.request({"cwd": str(tmp_path), "tool": "bash", "args": {"command": "cat README.md"}})
    assert answer["decision"] == "deny" and "not valid TOML" in answer["config_error"]
    project.unlink()
    assert _decide(dry, tmp_path, "cat README.md") == "allow"


def test_a_user_config_that_changes_between_two_requests_counts_at_once(tmp_path: Path) -> None:
    config = tmp_path / "user.toml"
    config.write_text("")
    dry = DryRun(str(config))
    work = _dirs(tmp_path, 1)[0]
    assert _decide(dry, work, "make test") == "ask"
    config.write_text('[policy]\nallow = ["bash(make test)"]\n')
    assert _decide(dry, work, "make test") == "allow"


def test_a_rule_naming_an_absolute_path_is_compiled_for_each_workspace(tmp_path: Path) -> None:
    """The one rule kind whose meaning depends on the workspace (an absolute path inside it is made
    root-relative) is not shared between directories."""
    first, second = _dirs(tmp_path, 2)
    for d in (first, second):
        (d / "x.txt").write_text("x\n")
    config = tmp_path / "user.toml"
    config.write_text(f"[policy]\ndeny = [{json.dumps(f'Read({first}/x.txt)')}]\n")
    dry = DryRun(str(config))
    assert _decide(dry, first, "cat x.txt") == "deny"
    assert _decide(dry, second, "cat x.txt") == "allow"
    assert _decide(dry, first, "cat x.txt") == "deny"
    assert dry.gate(str(first)).settings.policy is not dry.gate(str(second)).settings.policy


def test_a_shared_policy_is_the_one_its_layers_build(tmp_path: Path) -> None:
    layers = [Layer.user("u", allow=["bash(make test)"], deny=["Read(secret/**)"])]
    shared = Policy.shared(layers, roots=(str(tmp_path),))
    assert Policy.shared(list(layers), roots=("/elsewhere",)) is shared  # no rule names a root
    absolute = [Layer.user("u", deny=["Read(/etc/**)"])]
    assert Policy.shared(absolute, roots=("/etc",)) is not Policy.shared(absolute, roots=("/srv",))
    built = Policy(layers, roots=(str(tmp_path),))
    assert [[c.rule for c in shared._rules[k]] for k in _engine._LISTS] == [
        [c.rule for c in built._rules[k]] for k in _engine._LISTS
    ]
    assert Policy.shared(layers, builtin=False) is not shared


def test_what_a_config_file_means_is_remembered_by_its_bytes_only(tmp_path: Path) -> None:
    path = str(tmp_path / "c.toml")
    text = b'[policy]\nallow = ["bash(make test)"]\n'
    assert _config._user_data(text, path) is _config._user_data(bytes(text), path)
    other = _config._user_data(text.replace(b"make test", b"make lint"), path)
    assert other is not None and other.policy.allow == ("bash(make lint)",)

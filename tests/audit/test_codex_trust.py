"""Whether Codex will run bastion's hook: `bastion doctor` finds it in Codex's config and says
whether Codex trusts it, by the hash Codex computes (recorded from codex-cli 0.171.0's own
`hooks/list`; compared again with a real Codex when one is installed), never by a guess."""

from __future__ import annotations

import io
import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest

from bastion.audit import codex_hook_hash, codex_hooks
from bastion.cli import main
from tests.waits import PATIENCE

# (matcher, handler) -> the currentHash codex-cli 0.171.0 reported for it (app-server hooks/list).
RECORDED: list[tuple[str | None, dict[str, object], str]] = [
    ("Bash|apply_patch", {"type": "command", "command": "bastion hook codex"},
     "sha256:58ab00584e507e8ed37544d80ff1da3feb52640e21ecf33a58a2068c78b3ba14"),
    ("Bash", {"type": "command", "command": "bastion hook codex --strict  # \u00e9\u0001", "timeout": 30,
              "statusMessage": "bastion", "async": False, "unknownthing": 3},
     "sha256:5dcdb5034530ecc4f1a6685aef1f78d07a0a0d92b74442f802ace8a2171e9e5c"),
    ("Bash", {"type": "command", "command": "bastion hook codex", "timeout": 0,
              "additionalContextLimit": 2500},
     "sha256:4f2f691e9635f89856d6c1b9025f25c34735f6f52d88efab1d3fbca592ac1935"),
    (None, {"type": "command", "command": "bastion hook codex", "additionalContextLimit": 100,
            "commandWindows": "x"},
     "sha256:901f59d795203c5a23546308323a546deb8f3a11e7a9254e9791081ffe35c4b0"),
    ("Bash|apply_patch", {"type": "command", "command": "bastion hook codex", "async": True},
     "sha256:72fd60e493afcae5661ce88fdd4ec299b736772f9367cc93392b3fd15281b883"),
    ("Bash|apply_patch", {"type": "command", "command": "bastion hook codex", "visibilityHint": "hidden"},
     "sha256:58ab00584e507e8ed37544d80ff1da3feb52640e21ecf33a58a2068c78b3ba14"),
    ("", {"type": "command", "command": "bastion hook codex"},
     "sha256:c0a58ed3c76bf60396ae56d56b50ebbcea38f4564acfea4d372a64d68b87f5e6"),
    ("Bash", {"type": "command", "command": "bastion hook codex --strict", "timeout": 30},
     "sha256:11b5938961b2b63516ef4844410b7b2f3af8429ea96f1036fc10c1d9a5d713ac"),
]  # fmt: skip


@pytest.mark.parametrize(("matcher", "handler", "expected"), RECORDED)
def test_the_hash_is_the_one_codex_computes(
    matcher: str | None, handler: dict[str, object], expected: str
) -> None:
    assert codex_hook_hash(matcher, handler) == expected


@pytest.mark.parametrize(
    "handler",
    [
        {"command": "bastion hook codex", "timeout": "5"},
        {"command": "bastion hook codex", "timeout": 5.0},
        {"command": "bastion hook codex", "timeout": True},
        {"command": "bastion hook codex", "async": "no"},
        {"command": "bastion hook codex", "statusMessage": 3},
        {"command": "bastion hook codex", "additionalContextLimit": "many"},
        {"command": ["bastion", "hook", "codex"]},
    ],
)
def test_a_handler_codex_would_not_read_so_has_no_guessed_hash(handler: dict[str, object]) -> None:
    assert codex_hook_hash("Bash", handler) is None


HOOK = """
[[hooks.PreToolUse]]
matcher = "Bash|apply_patch"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{command}"
"""
CURRENT = "sha256:58ab00584e507e8ed37544d80ff1da3feb52640e21ecf33a58a2068c78b3ba14"


def _home(tmp_path: pathlib.Path, text: str, command: str = "bastion hook codex") -> pathlib.Path:
    home = tmp_path / "codex"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(HOOK.format(command=command) + text, encoding="utf-8")
    return home


def _state(home: pathlib.Path, body: str) -> str:
    return f'\n[hooks.state."{home.resolve()}/config.toml:pre_tool_use:0:0"]\n{body}\n'


def test_a_hook_never_trusted_is_untrusted(tmp_path: pathlib.Path) -> None:
    found = codex_hooks(str(_home(tmp_path, "")))
    (hook,) = found.hooks
    assert (hook.trust, hook.enabled, hook.current_hash, hook.trusted_hash) == (
        "untrusted",
        True,
        CURRENT,
        None,
    )
    assert hook.key == f"{tmp_path.resolve()}/codex/config.toml:pre_tool_use:0:0"
    assert (hook.selects_bash, hook.selects_patch) == (True, True)


def test_a_trusted_hook_is_trusted_and_a_changed_command_is_modified(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    trusted = _state(home, f'trusted_hash = "{CURRENT}"')
    assert codex_hooks(str(_home(tmp_path, trusted))).hooks[0].trust == "trusted"
    (hook,) = codex_hooks(str(_home(tmp_path, trusted, "bastion hook codex --strict"))).hooks
    assert hook.trust == "modified" and hook.trusted_hash == CURRENT and hook.current_hash != CURRENT


def test_a_disabled_hook_says_so(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    (hook,) = codex_hooks(str(_home(tmp_path, _state(home, "enabled = false")))).hooks
    assert not hook.enabled and hook.trust == "untrusted"


def test_the_key_names_the_real_path_of_the_file(tmp_path: pathlib.Path) -> None:
    home = _home(tmp_path, "")
    link = tmp_path / "link"
    link.symlink_to(home)
    assert codex_hooks(str(link)).hooks[0].key.startswith(f"{home.resolve()}/config.toml:")


def test_hooks_json_is_read_with_the_trust_entries_of_config_toml(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo other"},
        {"type": "command", "command": "/opt/venv/bin/bastion hook codex --strict", "timeout": 30},
    ]}]}}  # fmt: skip
    (home / "hooks.json").write_text(json.dumps(hooks))
    key = f"{home.resolve()}/hooks.json:pre_tool_use:0:1"
    (home / "config.toml").write_text(f'[hooks.state."{key}"]\ntrusted_hash = "sha256:0"\n')
    (hook,) = codex_hooks(str(home)).hooks
    assert (hook.key, hook.trust, hook.selects_bash, hook.selects_patch) == (key, "modified", True, False)


def test_a_hook_of_the_wrong_type_cannot_be_verified(tmp_path: pathlib.Path) -> None:
    home = _home(tmp_path, "")
    text = (
        (home / "config.toml").read_text().replace('command = "bastion', 'timeout = 5.0\ncommand = "bastion')
    )
    (home / "config.toml").write_text(text)
    (hook,) = codex_hooks(str(home)).hooks
    assert hook.trust == "cannot verify" and hook.current_hash is None and "not guessed" in hook.why


def test_a_config_that_does_not_parse_leaves_the_trust_unknown(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    (home / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"hooks": [{"type": "command", "command": "bastion hook codex"}]}]}}))  # fmt: skip
    (home / "config.toml").write_text("[hooks.state\n")
    found = codex_hooks(str(home))
    assert found.hooks[0].trust == "cannot verify" and found.problems[0].startswith(
        f"{home.resolve()}/config.toml:"
    )


def test_other_hooks_and_features_off_are_told_apart(tmp_path: pathlib.Path) -> None:
    home = _home(tmp_path, "[features]\nhooks = false\n", "bastion-audit hook codex")
    found = codex_hooks(str(home))
    assert found.hooks == () and not found.hooks_feature
    assert codex_hooks(str(tmp_path / "nowhere")).config_exists is False


@pytest.mark.parametrize(
    ("matcher", "bash", "patch"),
    [("Bash", True, False), ("Edit|Bash", True, True), ("*", True, True), ("^Bash$", None, None)],
)
def test_the_matcher_is_read_as_codex_reads_it(
    tmp_path: pathlib.Path, matcher: str, bash: bool | None, patch: bool | None
) -> None:
    home = _home(tmp_path, "")
    text = (home / "config.toml").read_text().replace('"Bash|apply_patch"', json.dumps(matcher))
    (home / "config.toml").write_text(text)
    (hook,) = codex_hooks(str(home)).hooks
    assert (hook.selects_bash, hook.selects_patch) == (bash, patch)


def test_doctor_says_whether_codex_runs_the_hook_and_how_to_trust_it(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path, "")
    monkeypatch.setenv("CODEX_HOME", str(home))
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    assert (
        main(["doctor", "--config", os.devnull, "--cwd", str(tmp_path), "--offline", "--section", "codex"])
        == 0
    )
    text = out.getvalue()
    key = f"{home.resolve()}/config.toml:pre_tool_use:0:0"
    assert f"  ! hook {key}: untrusted\n      command 'bastion hook codex'" in text
    assert f'      [hooks.state."{key}"]\n      trusted_hash = "{CURRENT}"' in text
    assert "Codex does not run it until it is trusted" in text


def _codex_binary() -> str | None:
    here = pathlib.Path(__file__).resolve().parents[2] / "integration" / "node_modules" / ".bin" / "codex"
    found = os.environ.get("BASTION_CODEX") or (str(here) if here.exists() else shutil.which("codex"))
    return found


@pytest.mark.skipif(_codex_binary() is None, reason="no Codex CLI installed (make integration installs one)")
def test_a_real_codex_reports_the_same_key_hash_and_trust(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    strict = HOOK.format(command="bastion hook codex --strict")  # trusted before --strict: modified
    plain = HOOK.format(command="bastion hook codex").replace('matcher = "Bash|apply_patch"', 'matcher = ""')
    (home / "config.toml").write_text(strict + plain + _state(home, f'trusted_hash = "{CURRENT}"'))
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "CODEX_HOME": str(home)}
    requests = [
        {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "bastion-test", "version": "1"}}},
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {}},
    ]
    with subprocess.Popen(
        [str(_codex_binary()), "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env=env, text=True, cwd=tmp_path,
    ) as proc:  # fmt: skip
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        proc.stdin.flush()
        listed = None
        deadline = time.monotonic() + PATIENCE
        while listed is None and time.monotonic() < deadline:
            answer = json.loads(proc.stdout.readline() or "null")
            if isinstance(answer, dict) and answer.get("id") == 2:
                listed = answer["result"]["data"][0]["hooks"]
        proc.kill()
    assert listed is not None
    ours = codex_hooks(str(home)).hooks
    theirs = [(h["key"], h["currentHash"], h["trustStatus"]) for h in listed]
    assert theirs == [(h.key, h.current_hash, h.trust) for h in ours]

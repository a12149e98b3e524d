"""Adding a remembered rule to your config: everything the file held is kept (comments, layout,
other tables), the file reads back as exactly what it was plus the rule, a file that changed since
it was read (or while the rule is added) is never written over, a form the writer cannot edit is
refused with the line to add by hand, and a link to the file keeps pointing at it."""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.config import ConfigChanged, ConfigError, add_to_scope, digest_of

ROOT = "/home/me/src/app"
MINE = """\
# my bastion config: keep this comment
model = "gpt-5"   # the model I like

[policy]
allow = ["bash(make:*)"]  # make is fine
# a comment at the end, no newline after it"""


def _noop(data: bytes) -> None:
    return None


def _add(path: Path, *rules: str, root: str = ROOT) -> bytes:
    return add_to_scope(str(path), root, "allow", rules, digest_of(str(path)), _noop)


def _scope(path: Path, root: str = ROOT) -> list[str]:
    found: list[str] = tomllib.loads(path.read_text())["projects"][root]["policy"]["allow"]
    return found


def test_the_files_comments_and_other_content_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(MINE)
    _add(path, "bash(npm test:*)")
    _add(path, "edit(src/**)")
    text = path.read_text()
    assert text.startswith(MINE + "\n")
    assert _scope(path) == ["edit(src/**)", "bash(npm test:*)"]
    before = tomllib.loads(MINE)
    after = tomllib.loads(text)
    assert {k: v for k, v in after.items() if k != "projects"} == before


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f'[projects."{ROOT}".policy]\nask = ["bash(x:*)"]\n', ["bash(npm test:*)"]),
        (
            f'[projects."{ROOT}".policy]  # mine\nallow = ["bash(a:*)"]  # a\n',
            ["bash(npm test:*)", "bash(a:*)"],
        ),
        (f'[projects."{ROOT}".policy]\nallow = []\n\n[sandbox]\nnetwork = false\n', ["bash(npm test:*)"]),
        (
            f'[projects."{ROOT}".policy]\nallow = [\n  # first\n  "bash(a:*)",\n]\n',
            ["bash(npm test:*)", "bash(a:*)"],
        ),
    ],
)
def test_a_rule_joins_the_scope_already_written_for_the_project(
    tmp_path: Path, text: str, expected: list[str]
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    _add(path, "bash(npm test:*)")
    assert _scope(path) == expected
    comments = [line[line.index("#") :] for line in text.splitlines() if "#" in line]
    assert all(comment in path.read_text() for comment in comments)


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(MINE)
    seen = digest_of(str(path))
    path.write_text(MINE + "\n# added by hand meanwhile\n")
    with pytest.raises(ConfigChanged, match="changed since the question read it"):
        add_to_scope(str(path), ROOT, "allow", ["bash(npm test:*)"], seen, _noop)
    assert path.read_text() == MINE + "\n# added by hand meanwhile\n"


def test_a_file_changed_while_the_rule_is_added_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(MINE)

    def meanwhile(data: bytes) -> None:  # another writer, between the reading and the renaming
        path.write_text(MINE + "\n# theirs\n")

    with pytest.raises(ConfigChanged, match="changed while the rule was being added"):
        add_to_scope(str(path), ROOT, "allow", ["bash(npm test:*)"], digest_of(str(path)), meanwhile)
    assert path.read_text() == MINE + "\n# theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]  # no temporary file left


def test_a_file_made_while_the_rule_is_added_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "bastion" / "config.toml"

    def meanwhile(data: bytes) -> None:
        path.parent.mkdir(exist_ok=True)
        path.write_text("# theirs\n")

    with pytest.raises(ConfigChanged):
        add_to_scope(str(path), ROOT, "allow", ["bash(npm test:*)"], "", meanwhile)
    assert path.read_text() == "# theirs\n"


def test_a_file_made_in_the_last_instant_is_still_not_written_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # private: the moment between the last look at the file and the new file's link is the seam tested
    from bastion.config import _append

    path = tmp_path / "config.toml"
    calls: list[str] = []

    def last_look(name: str) -> bytes | None:
        calls.append(name)
        if len(calls) == 2:
            path.write_text("# theirs\n")  # made after bastion looked, before it links its file
        return None

    monkeypatch.setattr(_append, "_read", last_look)
    with pytest.raises(ConfigChanged, match="made while the rule was being added"):
        add_to_scope(str(path), ROOT, "allow", ["bash(npm test:*)"], "", _noop)
    assert path.read_text() == "# theirs\n"


@pytest.mark.parametrize(
    "text",
    [
        f'projects = {{ "{ROOT}" = {{ policy = {{ allow = ["bash(a:*)"] }} }} }}\n',
        f'[projects."{ROOT}"]\npolicy.allow = ["bash(a:*)"]\n',
    ],
)
def test_a_scope_written_in_another_form_is_refused_with_the_line_to_add(tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r'add it by hand: under \[projects\."/home/me/src/app"\.policy\]'):
        _add(path, "bash(npm test:*)")
    assert path.read_text() == text


def test_an_edit_that_would_change_anything_else_is_refused(tmp_path: Path) -> None:
    # A text that looks like the list, inside a string before it: the edit would land in the string.
    text = f"[projects.\"{ROOT}\".policy]\nask = ['''\nallow = [\n''']\nallow = [\"bash(a:*)\"]\n"
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match="would change more than the scope's list; add it by hand"):
        _add(path, "bash(npm test:*)")
    assert path.read_text() == text


@pytest.mark.parametrize(("text", "named"), [("modle = 'x'\n", "modle"), ("projects = 3\n", "projects")])
def test_a_file_that_is_not_valid_now_is_not_edited(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=named):
        _add(path, "bash(npm test:*)")
    assert path.read_text() == text


def test_a_rule_the_policy_refuses_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(MINE)

    def refuse(data: bytes) -> None:
        raise ConfigError("the policy's reading failed")

    with pytest.raises(ConfigError, match="the policy's reading failed"):
        add_to_scope(str(path), ROOT, "allow", ["bash(x)"], digest_of(str(path)), refuse)
    assert path.read_text() == MINE


def test_a_new_file_is_made_for_its_owner_only_and_a_link_keeps_pointing_at_the_file(tmp_path: Path) -> None:
    made = tmp_path / "xdg" / "bastion" / "config.toml"
    _add(made, "bash(npm test:*)")
    assert stat.S_IMODE(made.stat().st_mode) == 0o600 and _scope(made) == ["bash(npm test:*)"]
    dotfiles = tmp_path / "dotfiles.toml"
    dotfiles.write_text(MINE)
    os.chmod(dotfiles, 0o640)
    link = tmp_path / "link.toml"
    link.symlink_to(dotfiles)
    _add(link, "bash(npm test:*)")
    assert link.is_symlink() and _scope(dotfiles) == ["bash(npm test:*)"]
    assert stat.S_IMODE(dotfiles.stat().st_mode) == 0o640


_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=12)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(rules=st.lists(_TEXT, min_size=1, max_size=3, unique=True), name=_TEXT)
def test_any_rule_text_and_directory_name_read_back_exactly(
    tmp_path: Path, rules: list[str], name: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(MINE)
    root = "/" + name
    add_to_scope(str(path), root, "allow", rules, digest_of(str(path)), _noop)
    again = tomllib.loads(path.read_text())
    assert again["projects"][root]["policy"]["allow"] == rules
    assert path.read_text().startswith(MINE) and json.dumps(again["model"]) == '"gpt-5"'

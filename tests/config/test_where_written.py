"""A verdict cites its rule as the file wrote it and where (the file, the entry, the line when the
text shows it for certain, never a wrong one); a bad value in a table the fast reader now reads
(pricing, harness) is still an error naming the file and the field."""

from __future__ import annotations

import pathlib

import pytest

from bastion.config import ConfigError, lines_of
from bastion.policy import Decision, Origin, Settings, Source, Subject, Written, load_settings
from bastion.workspace import LocalWorkspace


def _settings(tmp_path: pathlib.Path, text: str) -> tuple[Settings, str]:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_settings(LocalWorkspace(str(tmp_path)), str(path)), str(path)


def test_an_aliased_rule_is_cited_as_written_with_its_file_entry_and_line(tmp_path: pathlib.Path) -> None:
    settings, path = _settings(tmp_path, '[policy]\nallow = [\n  "bash(make:*)",\n  "Read(src/**)",\n]\n')
    verdict = settings.policy.decide([Subject("grep", "src/a.py")])
    assert verdict.decision is Decision.ALLOW and verdict.rule is not None
    assert verdict.rule.text == "Read(src/**)"  # not respelled grep(src/**)
    assert verdict.rule.where == Written(path, "policy.allow[1]", 4)
    assert verdict.source == Source(Origin.USER, path)


def test_a_line_is_given_only_when_it_is_certain() -> None:
    text = '# allow = ["bash(x)"]\n[policy]\nallow = ["bash(x)", \'bash(y)\']\ndeny = ["bash(x)"]\n'
    # bash(x): two entries, three spellings in the text (one in a comment): no line for either.
    assert lines_of(text, ["bash(x)", "bash(y)", "bash(x)"]) == [None, 3, None]
    assert lines_of('a = ["bash(\\"q\\")"]\n', ['bash("q")']) == [1]
    assert lines_of("a = ['''bash(x)''']\n", ["bash(x)"]) == [1]
    # written with an escape, and quoted in a comment: the comment's line is never claimed
    assert lines_of('# "bash(x)"\na = ["bash\\u0028x)"]\n', ["bash(x)"]) == [None]
    assert lines_of('a = ["#", "bash(x)"]\n', ["#", "bash(x)"]) == [1, None]


def test_a_projects_rule_knows_its_file_too(tmp_path: pathlib.Path) -> None:
    (tmp_path / ".bastion").mkdir()
    project = tmp_path / ".bastion" / "config.toml"
    project.write_text('[policy]\n\nask = ["bash(git push:*)"]\n')
    settings, _ = _settings(tmp_path, "")
    verdict = settings.policy.decide([Subject("bash", "git push origin")])
    assert verdict.decision is Decision.ASK and verdict.rule is not None
    assert verdict.rule.where == Written(str(project), "policy.ask[0]", 3)
    assert verdict.source == Source(Origin.PROJECT, str(project))


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (
            "[pricing.m]\ninput = -1\noutput = 1\n",
            r"pricing\.m\.input: Input should be greater than or equal to 0",
        ),
        ("[pricing.m]\ninput = 1\n", r"pricing\.m\.output: Field required"),
        ('[harness]\nmodules = ["a..b"]\n', r"harness\.modules\[0\]: String should match pattern"),
        ("[harness]\ntimeuot = 5\n", r"harness\.timeuot: unknown field; did you mean harness\.timeout\?"),
        ('sandbox = "on"\n', r"sandbox"),
        ("compact_at = 0\n", r"compact_at: Input should be greater than 0"),
    ],
)
def test_a_bad_value_names_the_file_and_the_field(tmp_path: pathlib.Path, text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=rf"config\.toml: {says}"):
        _settings(tmp_path, text)

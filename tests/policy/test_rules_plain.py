"""The plain reading of a rule (no pyparsing) against the grammar, which stays the rule language's
definition: on any text they agree, and a config's ordinary rules never load pyparsing."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bastion.policy import RuleError

# Private: the rule grammar and the fast rule reader are the twins tested against each other.
from bastion.policy._rules import _parse_with_grammar, _read_plain
from tests.loaded import modules_loaded

_RULE_TEXT = st.text(alphabet="ab *!:()\t./\u00a0-", min_size=1, max_size=16).map(lambda t: t.strip(" \t"))


@settings(max_examples=2000, deadline=None)
@given(_RULE_TEXT)
@example("bash(a(b)c)")
@example("Bash(a)(b)")
@example("a)b(c)")
@example("mcp__*(x)")
@example("bash(!)")
@example("bash()")
@example("read")
def test_the_plain_reading_agrees_with_the_grammar_on_any_text(text: str) -> None:
    if not text:
        return
    plain = _read_plain(text)
    try:
        parsed = _parse_with_grammar(text)
    except RuleError:
        assert plain is None, f"the plain reading accepts {text!r}, which the grammar refuses"
    else:
        assert plain == parsed, f"the plain reading of {text!r} differs from the grammar's"


def test_a_config_of_ordinary_rules_does_not_import_pyparsing() -> None:
    rules = ["bash(make test:*)", "bash(npm run lint)", "Edit(src/**)", "deny read(./Finance (2024)/**)"]
    code = "from bastion.policy import parse_rule\n" + "".join(
        f"parse_rule({rule.removeprefix('deny ')!r})\n" for rule in rules
    )
    assert modules_loaded(code, ("pyparsing",)) == []

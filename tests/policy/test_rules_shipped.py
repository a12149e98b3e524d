"""The shipped rules' parse kept as data: equal to the grammar's, and a policy built without pyparsing."""

from __future__ import annotations

import pytest

from bastion.policy import parse_rule

# Private: the shipped rules, as written and as parsed, are the thing tested.
from bastion.policy._rules import _parse_with_grammar
from bastion.policy._shipped import MEMORY_ASK, PARSED, SHIPPED_ALLOW, SHIPPED_ASK
from tests.loaded import modules_loaded


def test_the_table_holds_the_shipped_rules() -> None:
    assert set(PARSED) == {*SHIPPED_ALLOW, *SHIPPED_ASK, *MEMORY_ASK}


@pytest.mark.parametrize("text", sorted(PARSED))
def test_each_entry_is_what_the_grammar_parses(text: str) -> None:
    fresh = _parse_with_grammar(text)
    assert (fresh.tool, fresh.specifier) == PARSED[text]
    assert parse_rule(text) == fresh
    assert parse_rule(f" {text}\t") == fresh


def test_building_a_policy_without_a_config_does_not_import_pyparsing() -> None:
    code = "from bastion.policy import Policy, parse_rule\nPolicy()\nPolicy(builtin=False)\n"
    code += "parse_rule(' read ')"
    assert modules_loaded(code, ("pyparsing",)) == []

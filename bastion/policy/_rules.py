"""The rule language: `tool` or `tool(specifier)`, one rule per config entry.

    PolicyError (a BastionError)
    └── RuleError     a rule that does not parse or build (kind, column, the rule from there)

(A config file that cannot be used is bastion's one ConfigError, of bastion/_errors.py.)

The grammar (a pyparsing grammar, the only description of it):

    rule       := tool [ "(" specifier ")" ]
    tool       := one or more characters other than "(", ")" and ASCII whitespace
    specifier  := any text whose parentheses balance; a leading "!" makes it a carve-out

Before the grammar runs, parentheses are counted over the whole rule, so an unbalanced one is
reported as such whatever else is wrong (the reference engine's order of checks). The shipped
rules are not parsed again in each process: their parse is kept as data (`_shipped.PARSED`, checked
against the grammar by a test). A rule of the plain shape (a tool name, then at most one specifier
whose closing parenthesis ends the rule) is read without the grammar by `_read_plain`; a property
test checks that it agrees with the grammar on any text, and anything else goes to the grammar, which
words the error. So pyparsing is imported only for a rule that is not plainly valid.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .._errors import BastionError
from ._shipped import PARSED
from ._types import Rule

if TYPE_CHECKING:
    import pyparsing as pp

__all__ = ["PolicyError", "Rule", "RuleError", "parse_rule"]


class PolicyError(BastionError):
    """Anything the policy core refuses to build."""


class RuleError(PolicyError):
    """A rule that does not parse or build. `column` is 1-based; `field` names the config entry."""

    def __init__(self, rule: str, kind: str, column: int, detail: str, field: str = "") -> None:
        self.rule = rule
        self.kind = kind
        self.column = column
        self.detail = detail
        self.field = field
        where = f"{field}: " if field else ""
        # One line, which every front prints as one (a drawn caret's line breaks were shown as \n):
        # the rule from the column on points at the place.
        at = f"at {rule[column - 1 :]!r}" if rule[column - 1 :] else "at its end"
        super().__init__(f"{where}rule {rule!r}, column {column} ({at}): {detail} ({kind})")

    def located(self, field: str) -> RuleError:
        """The same error, naming the config entry it came from."""
        return RuleError(self.rule, self.kind, self.column, self.detail, field)


# Whitespace that separates rules in the reference engine's rule strings. Nothing else (NBSP, NEL)
# is whitespace to the grammar.
_WHITESPACE = " \t\n\v\f\r"


@functools.cache
def _grammar() -> pp.ParserElement:
    import pyparsing as pp

    tool = pp.Regex(r"[^()" + "".join(f"\\{ord(c):03o}" for c in _WHITESPACE) + r"]+")
    body = pp.Forward()
    body <<= pp.ZeroOrMore(pp.CharsNotIn("()") | (pp.Literal("(") + body + pp.Literal(")")))
    specifier = pp.Suppress("(") + pp.original_text_for(body)("specifier") + pp.Suppress(")")
    rule = tool("tool") + pp.Optional(specifier) + pp.StringEnd()
    rule.leave_whitespace(recursive=True)
    # pyparsing expands tabs to spaces before parsing unless told not to: a tab in a specifier is a tab.
    rule.parse_with_tabs()
    return rule


def _unbalanced(text: str) -> RuleError | None:
    depth = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return RuleError(text, "unbalanced_parentheses", index + 1, "this ) closes nothing")
    if depth > 0:
        opened = text.index("(")
        return RuleError(text, "unbalanced_parentheses", opened + 1, "this ( is never closed")
    return None


def _structure_error(text: str) -> RuleError:
    """Why a rule with balanced parentheses did not parse."""
    opened = text.find("(")
    head = text if opened < 0 else text[:opened]
    for index, char in enumerate(head):
        if char in _WHITESPACE:
            return RuleError(
                text, "several_rules", index + 1, "whitespace outside parentheses: write one rule per entry"
            )
    if opened == 0:
        return RuleError(text, "missing_tool_name", 1, "a specifier needs a tool name before it")
    depth = 0
    for index in range(opened, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return RuleError(text, "text_after_specifier", index + 2, "nothing may follow the specifier's )")
    return RuleError(text, "invalid_rule", 1, "this is not a rule")


@functools.lru_cache(maxsize=4096)
def parse_rule(text: str) -> Rule:
    """Parse one rule; leading and trailing ASCII whitespace is ignored. Raises RuleError."""
    rule_text = text.strip(_WHITESPACE)
    if not rule_text:
        raise RuleError(text, "empty_rule", 1, "an empty entry is not a rule")
    known = PARSED.get(rule_text)
    if known is not None:
        return Rule(rule_text, *known)
    plain = _read_plain(rule_text)
    return plain if plain is not None else _parse_with_grammar(rule_text)


def _read_plain(rule_text: str) -> Rule | None:
    """The rule, when `rule_text` (stripped, not empty) is plainly valid; None sends it to the grammar.

    Plainly valid: a tool name of no parenthesis or ASCII whitespace and, if a "(" follows, a
    specifier that is neither empty nor a lone "!", whose parentheses balance, and whose closing
    parenthesis is the rule's last character; a tool-name glob takes no specifier."""
    opened = rule_text.find("(")
    tool = rule_text if opened < 0 else rule_text[:opened]
    if not tool or any(c in _WHITESPACE or c == ")" for c in tool):
        return None
    if opened < 0:
        return Rule(rule_text, tool, None)
    depth = 0
    for index in range(opened, len(rule_text)):
        depth += {"(": 1, ")": -1}.get(rule_text[index], 0)
        if depth == 0:
            break
    specifier = rule_text[opened + 1 : -1]
    if depth != 0 or index != len(rule_text) - 1 or specifier in ("", "!") or "*" in tool:
        return None
    return Rule(rule_text, tool, specifier)


def _parse_with_grammar(rule_text: str) -> Rule:
    """Parse one rule, stripped and not empty, with the grammar. Raises RuleError."""
    unbalanced = _unbalanced(rule_text)
    if unbalanced is not None:
        raise unbalanced
    from pyparsing import ParseBaseException

    try:
        parsed = _grammar().parse_string(rule_text)
    except ParseBaseException:
        raise _structure_error(rule_text) from None
    tool = str(parsed["tool"])
    specifier = str(parsed["specifier"]) if "specifier" in parsed else None
    opened = len(tool) + 1
    if specifier == "":
        raise RuleError(
            rule_text, "empty_specifier", opened + 1, "() names nothing: write the bare tool name"
        )
    if specifier == "!":
        raise RuleError(rule_text, "empty_carve_out", opened + 1, "(!) carves out nothing")
    if specifier is not None and "*" in tool:
        raise RuleError(rule_text, "tool_glob", tool.index("*") + 1, "a tool-name glob takes no specifier")
    return Rule(rule_text, tool, specifier)

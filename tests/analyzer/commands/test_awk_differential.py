"""bastion's reading of an awk program is held to the real interpreters' own: generated programs
(fuzz/awkgen.py: divisions, regular expressions, strings holding slashes and escapes, every token
class, nesting, hazards hidden between slashes) that bastion accepts are read by mawk (`-W dump`),
gawk (its debugger's dump) and busybox awk (run beside canaries), and each must read the same
regular expressions, divisions and built-in calls, and nothing bastion never allows
(fuzz/awk_readers.py). A tool that is not installed skips its test, naming it (`make test` installs
the pinned gawk and busybox when it runs as root). The long run is fuzz/awk_differential.py."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.awk_differential import bastion_tokens, check
from fuzz.awk_readers import tool
from fuzz.awkgen import OPERANDS, DataPick, program

TOOLS = ("mawk", "gawk", "busybox")
CURRENT = bastion_tokens(None)
BEFORE = Path(__file__).with_name("awk_before.lark")
THE_LINE = '{ print x / 1; system("touch PWNED"); y = 1 / 2 }'


def installed(name: str) -> pytest.MarkDecorator:
    what = "busybox (with its awk applet)" if name == "busybox" else name
    return pytest.mark.skipif(tool(name) is None, reason=f"{what} is not installed")


def _differences(text: str, name: str, read: object = CURRENT) -> list[str]:
    tokens = read(text)  # type: ignore[operator]
    return [] if tokens is None else check(text, tokens, [name], Counter())


@pytest.mark.parametrize("name", [pytest.param(n, marks=installed(n)) for n in TOOLS])
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_program_bastion_accepts_is_read_alike_by_the_real_awk(name: str, data: st.DataObject) -> None:
    text = program(DataPick(data))
    assert _differences(text, name) == [], text


AFTER_EACH_OPERAND = [
    *(f"{{ print {operand} / 2 / 3; n++ }}" for operand in OPERANDS if not operand.startswith("if")),
    "{ if (x) / 2 / 3; n++ }",
]


@pytest.mark.parametrize("name", [pytest.param(n, marks=installed(n)) for n in TOOLS])
@pytest.mark.parametrize("text", AFTER_EACH_OPERAND)
def test_divisions_after_every_kind_of_operand_are_refused_or_read_alike(name: str, text: str) -> None:
    assert _differences(text, name) == [], text


@pytest.mark.parametrize("name", [pytest.param(n, marks=installed(n)) for n in TOOLS])
def test_the_property_finds_the_reported_hole_in_the_grammar_before(name: str) -> None:
    """Read with the grammar of before, the report's line is one regular expression to bastion and
    two divisions and a system() to each tool."""
    read_before = bastion_tokens(str(BEFORE))
    found = _differences(THE_LINE, name, read_before)
    assert found, name
    assert _differences(THE_LINE, name) == []  # today: refused, nothing to compare
    assert read_before(THE_LINE) is not None and CURRENT(THE_LINE) is None

"""atheris harness: the parser never raises, parse(render(p)) == p, and a line that parses keeps its words."""

from __future__ import annotations

from bastion.grammar import Outside, Plan, parse, render


def check(data: bytes) -> None:
    line = data.decode("utf-8", "surrogateescape")
    result = parse(line)
    if not isinstance(result, (Plan, Outside)):
        raise AssertionError(f"parse returned {type(result).__name__}")
    if isinstance(result, Plan) and parse(render(result)) != result:
        raise AssertionError(f"parse(render(p)) != p for {line!r}")

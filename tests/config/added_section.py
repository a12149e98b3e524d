"""A section as a developer adds one to the table (test_table.py): its annotations kept as objects,
as the table's own module keeps them (no `from __future__ import annotations` here)."""

from typing import Annotated, NamedTuple

from bastion.config._table import Bounds, Match


class Added(NamedTuple):
    """A key of a constrained number and one of a constrained text."""

    retries: Annotated[int, Bounds(gt=0)] | None = None
    label: Annotated[str, Match("[a-z]+")] = "x"

"""The fast reader: a file whose every key and value is plainly of the type the table wants (what a
hand-written config nearly always is) is read here, without pydantic.

Importing pydantic and building the models costs about 100 ms, and a hook call or a dry-run reads the
user's file every time. This reader is derived from the table's types (`_table.py`) as the schema is;
it only ever accepts a subset of what the schema accepts, with the same values (a test compares them on
generated files); anything else, valid or not, goes to pydantic, which alone words what is wrong.
"""

from __future__ import annotations

import functools
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from ._table import MAX_INT, Bounds, Length, Match, Sections, Shorthand, defaults_of

__all__ = ["NOT_PLAIN", "plain_file", "reader"]

# What a reader returns for a value it does not vouch for (pydantic decides).
NOT_PLAIN: Any = object()
Reader = Callable[[object], object]
_READERS: dict[object, Reader] = {}


def reader(annotation: object) -> Reader:
    """The plain reader of one type of the table: the value as the table holds it (lists made
    tuples, tables made sections), or NOT_PLAIN."""
    found = _READERS.get(annotation)
    if found is None:
        found = _READERS[annotation] = _make(annotation)
    return found


def plain_file(sections: Sections, raw: dict[str, Any]) -> tuple[Any, ...] | None:
    """A file's sections (one value of each class, its keys the file's top-level keys), or None."""
    if not raw.keys() <= {key for cls in sections for key in cls.__annotations__}:
        return None
    found = []
    for cls in sections:
        value = reader(cls)({key: raw[key] for key in cls.__annotations__ if key in raw})
        if value is NOT_PLAIN:
            return None
        found.append(value)
    return tuple(found)


def _make(annotation: object) -> Reader:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _marked(reader(args[0]), args[0], args[1:])
    if origin is typing.Union or origin is types.UnionType:
        return _union([reader(arg) for arg in args if arg is not type(None)])
    if origin is typing.Literal:
        return lambda v: v if type(v) is str and v in args else NOT_PLAIN
    if origin is tuple:
        return _items(reader(args[0]))
    if origin is Mapping:
        return _table(reader(args[0]), None if args[1] is object else reader(args[1]))
    if isinstance(annotation, type) and issubclass(annotation, tuple) and hasattr(annotation, "_fields"):
        return _section(annotation)
    simple: dict[object, Reader] = {
        str: lambda v: v if type(v) is str else NOT_PLAIN,
        bool: lambda v: v if type(v) is bool else NOT_PLAIN,
        int: lambda v: v if type(v) is int and abs(v) <= MAX_INT else NOT_PLAIN,
        float: _float,
    }
    if annotation not in simple:
        raise TypeError(f"the config table has a type its readers do not know: {annotation!r}")
    return simple[annotation]


def _float(value: object) -> object:
    if type(value) is int and abs(value) <= MAX_INT:
        return float(value)
    return value if type(value) is float and math.isfinite(value) else NOT_PLAIN


def _marked(inner: Reader, base: object, marks: tuple[object, ...]) -> Reader:
    checks: list[Callable[[Any], bool]] = []
    shorthand = None
    for mark in marks:
        if isinstance(mark, Match):
            checks.append(re.compile(mark.pattern).fullmatch)  # type: ignore[arg-type]
        elif isinstance(mark, Length):
            checks.append(functools.partial(_long_enough, mark.least))
        elif isinstance(mark, Bounds):
            checks.append(functools.partial(_within, mark))
        elif isinstance(mark, Shorthand):
            shorthand = mark.field
        else:
            raise TypeError(f"the config table has a marker its readers do not know: {mark!r}")

    def read(value: object) -> object:
        if shorthand is not None and type(value) is str:
            value = {shorthand: value}
        found = inner(value)
        if found is NOT_PLAIN or not all(check(found) for check in checks):
            return NOT_PLAIN
        return found

    return read


def _long_enough(least: int, value: str) -> bool:
    return len(value) >= least


def _within(bounds: Bounds, value: float) -> bool:
    return (
        (bounds.gt is None or value > bounds.gt)
        and (bounds.ge is None or value >= bounds.ge)
        and (bounds.le is None or value <= bounds.le)
    )


def _union(arms: list[Reader]) -> Reader:
    def read(value: object) -> object:
        for arm in arms:
            found = arm(value)
            if found is not NOT_PLAIN:
                return found
        return NOT_PLAIN

    return read


def _items(item: Reader) -> Reader:
    def read(value: object) -> object:
        if type(value) is not list:
            return NOT_PLAIN
        found = tuple(item(v) for v in value)
        return NOT_PLAIN if any(v is NOT_PLAIN for v in found) else found

    return read


def _table(key: Reader, value: Reader | None) -> Reader:
    def read(raw: object) -> object:
        if type(raw) is not dict:
            return NOT_PLAIN
        if value is None:  # a table the table does not look into (the agent checks it)
            return raw if all(key(k) is not NOT_PLAIN for k in raw) else NOT_PLAIN
        found = {key(k): value(v) for k, v in raw.items()}
        return NOT_PLAIN if any(v is NOT_PLAIN for v in (*found, *found.values())) else found

    return read


def _section(cls: type[tuple[object, ...]]) -> Reader:
    defaults = defaults_of(cls)
    readers = {name: reader(tp) for name, tp in cls.__annotations__.items()}

    def read(raw: object) -> object:
        if (
            type(raw) is not dict
            or not raw.keys() <= readers.keys()
            or not defaults.keys() | raw.keys() >= readers.keys()
        ):
            return NOT_PLAIN
        found = {name: readers[name](value) for name, value in raw.items()}
        if any(v is NOT_PLAIN for v in found.values()):
            return NOT_PLAIN
        return cls(**found)

    return read

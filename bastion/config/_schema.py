"""The config files' schema (pydantic, strict), derived from the table (`_table.py`): the authority on
what a file may hold and the wording of what is wrong. Imported only for a file that is not plainly
valid (`_plain.py`): the models are built once, when first needed."""

from __future__ import annotations

import difflib
import functools
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
)

from bastion._errors import ConfigError

from ._table import Bounds, Length, Match, Sections, Shorthand, defaults_of

__all__ = ["Strict", "annotation", "model_of", "validate_file", "value_of"]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


def _is_section(annotation: object) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, tuple) and hasattr(annotation, "_fields")


def annotation(tp: object) -> Any:
    """The pydantic annotation of one type of the table."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return Annotated[(annotation(args[0]), *(_constraint(m) for m in args[1:]))]
    if origin is typing.Union or origin is types.UnionType:
        return typing.Union[tuple(annotation(arg) for arg in args)]  # noqa: UP007
    if origin is tuple:
        return list[annotation(args[0])]  # type: ignore[misc]
    if origin is Mapping:
        if args[1] is object:
            return dict[annotation(args[0]), Any]  # type: ignore[misc]
        return dict[annotation(args[0]), annotation(args[1])]  # type: ignore[misc]
    if _is_section(tp):
        return model_of(tp)
    if origin is not typing.Literal and tp not in (str, bool, int, float, type(None)):
        raise TypeError(f"the config table has a type the schema does not know: {tp!r}")
    return tp


def _constraint(mark: object) -> object:
    if isinstance(mark, Match):
        return StringConstraints(pattern=f"^{mark.pattern}$")
    if isinstance(mark, Length):
        return StringConstraints(min_length=mark.least)
    if isinstance(mark, Bounds):
        return Field(gt=mark.gt, ge=mark.ge, le=mark.le)
    if isinstance(mark, Shorthand):
        field = mark.field
        return BeforeValidator(lambda value: {field: value} if isinstance(value, str) else value)
    raise TypeError(f"the config table has a marker the schema does not know: {mark!r}")


def _fields(cls: type[tuple[object, ...]]) -> dict[str, Any]:
    """A section's fields for pydantic: each annotation, and None for the default of one that has
    a default (never validated nor read back: `value_of` takes the section's own for a field the
    file does not set), `...` for a required one."""
    defaults = defaults_of(cls)
    return {
        name: (annotation(tp), None if name in defaults else ...) for name, tp in cls.__annotations__.items()
    }


@functools.cache
def model_of(cls: type[tuple[object, ...]]) -> type[Strict]:
    """The strict model of one section of the table."""
    fields = _fields(cls)
    model: type[Strict] = create_model(cls.__name__, __base__=Strict, **fields)
    return model


def value_of(tp: object, value: object) -> object:
    """A validated value as the table holds it: a model made its section (fields set only, the rest
    the section's defaults), a list a tuple, a float a float."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return value_of(args[0], value)
    if origin is typing.Union or origin is types.UnionType:
        for arg in args:
            if arg is not type(None) and _fits(arg, value):
                return value_of(arg, value)
        return value
    if origin is tuple and isinstance(value, list):
        return tuple(value_of(args[0], v) for v in value)
    if origin is Mapping and isinstance(value, dict) and args[1] is not object:
        return {value_of(args[0], k): value_of(args[1], v) for k, v in value.items()}
    if _is_section(tp) and isinstance(value, BaseModel):
        hints = tp.__annotations__
        return tp(**{name: value_of(hints[name], getattr(value, name)) for name in value.model_fields_set})  # type: ignore[operator]
    if tp is float and isinstance(value, int):
        return float(value)
    return value


def _fits(tp: object, value: object) -> bool:
    """Whether a validated value is of one arm of a union (the arm value_of reads it by)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _fits(typing.get_args(tp)[0], value)
    if origin is tuple:
        return isinstance(value, list)
    if origin is Mapping:
        return isinstance(value, dict)
    if _is_section(tp):
        return isinstance(value, BaseModel)
    if tp is float:
        return isinstance(value, int | float)
    return isinstance(tp, type) and isinstance(value, tp)


def validate_file(sections: Sections, raw: dict[str, Any], path: str) -> tuple[Any, ...]:
    """A file's sections, validated by pydantic. Raises ConfigError naming the file and the field
    (and, for an unknown key, the one spelled most like it)."""
    model = _file_model(sections)
    try:
        validated = model.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = _field(first["loc"])
        if first["type"] == "extra_forbidden":
            close = _close_field(model, first["loc"])
            hint = f"; did you mean {close}?" if close else ""
            raise ConfigError(f"{path}: {where}: unknown field{hint}") from None
        raise ConfigError(f"{path}: {where}: {first['msg']}") from None
    return tuple(
        cls(
            **{
                name: value_of(cls.__annotations__[name], getattr(validated, name))
                for name in cls.__annotations__
                if name in validated.model_fields_set
            }
        )
        for cls in sections
    )


@functools.cache
def _file_model(sections: Sections) -> type[Strict]:
    """The strict model of a whole file: every field of its sections at the top level."""
    fields: dict[str, Any] = {}
    for cls in sections:
        fields.update(_fields(cls))
    model: type[Strict] = create_model("_".join(c.__name__ for c in sections), __base__=Strict, **fields)
    return model


def _field(loc: Sequence[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "(top level)"


def _model_in(tp: object) -> type[Strict] | None:
    """The config model an annotation holds (itself, or inside `X | None`, `dict[str, X]`)."""
    if isinstance(tp, type) and issubclass(tp, Strict):
        return tp
    for arg in typing.get_args(tp):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _close_field(model: type[Strict], loc: Sequence[int | str]) -> str | None:
    """The field of the table an unknown key stands in that is spelled most like it."""
    table: type[Strict] | None = model
    for part in loc[:-1]:
        field = table.model_fields.get(part) if isinstance(part, str) and table is not None else None
        if field is not None:  # else a list index or a table's own key ([pricing."MODEL"])
            table = _model_in(field.annotation)
    if table is None or not loc:
        return None
    close = difflib.get_close_matches(str(loc[-1]), list(table.model_fields), n=1, cutoff=0.6)
    return ".".join([*(str(p) for p in loc[:-1]), close[0]]) if close else None

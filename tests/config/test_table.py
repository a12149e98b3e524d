"""The config's one table is the only list of keys: the fast reader and the pydantic schema are both
derived from it and agree on every key and every type (a value of a key's type is read plainly, to
what pydantic makes of it); a key added to the table is read by both; a type the readers do not know
is refused by both, never read by one of them only."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bastion.config import ConfigError
from bastion.config._plain import plain_file, reader
from bastion.config._schema import _file_model, annotation, validate_file
from bastion.config._table import (
    MAX_INT,
    PROJECT_FILE,
    USER_FILE,
    AgentConfig,
    Bounds,
    Length,
    Match,
    Sections,
    Shorthand,
    UserSettings,
    defaults_of,
)
from tests.config.added_section import Added


def _values(tp: object) -> st.SearchStrategy[Any]:
    """Every value a file may write for a type of the table (as TOML gives it: lists, tables)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        return _marked(args[0], args[1:])
    if origin is typing.Union or origin is typing.get_origin(int | None):
        return st.one_of(*(_values(arg) for arg in args if arg is not type(None)))
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is tuple:
        return st.lists(_values(args[0]), max_size=3)
    if origin is Mapping:
        value = st.integers(0, 9) if args[1] is object else _values(args[1])
        return st.dictionaries(_values(args[0]), value, max_size=2)
    if isinstance(tp, type) and hasattr(tp, "_fields"):
        defaults = defaults_of(tp)
        fields = {name: _values(t) for name, t in tp.__annotations__.items()}
        required = {k: v for k, v in fields.items() if k not in defaults}
        return st.fixed_dictionaries(required, optional={k: v for k, v in fields.items() if k in defaults})
    simple: dict[object, st.SearchStrategy[Any]] = {
        str: st.text(max_size=4),
        bool: st.booleans(),
        int: st.integers(-MAX_INT, MAX_INT),
        float: st.floats(allow_nan=False, allow_infinity=False) | st.integers(-9, 9),
    }
    return simple[tp]


def _marked(base: object, marks: tuple[object, ...]) -> st.SearchStrategy[Any]:
    found = _values(base)
    for mark in marks:
        if isinstance(mark, Match):
            found = st.from_regex(mark.pattern, fullmatch=True)
        elif isinstance(mark, Length):
            found = st.text(min_size=mark.least, max_size=4)
        elif isinstance(mark, Bounds):
            low = mark.gt if mark.gt is not None else mark.ge
            if base is int:
                found = st.integers(int(low or 0) + (mark.gt is not None), int(mark.le or MAX_INT))
            else:
                bounded = st.floats(low, mark.le, exclude_min=mark.gt is not None, allow_infinity=False)
                found = bounded | st.integers(1, 9)
        elif isinstance(mark, Shorthand):
            field = typing.get_type_hints(base, include_extras=True)[mark.field]
            found = found | _values(field)
    return found


def _keys(sections: Sections) -> list[tuple[str, object]]:
    return [(name, tp) for cls in sections for name, tp in cls.__annotations__.items()]


@pytest.mark.parametrize(("sections", "name"), [(USER_FILE, "user"), (PROJECT_FILE, "project")])
def test_the_schema_has_a_field_of_the_table_s_type_for_every_key_and_no_other(
    sections: Sections, name: str
) -> None:
    model = _file_model(sections)
    keys = _keys(sections)
    assert list(model.model_fields) == [key for key, _ in keys]
    for key, tp in keys:
        reader(tp)  # the fast reader knows the type too (it raises for one it does not)
        # (FieldInfo markers compare by identity: their spelling is compared)
        assert repr(model.model_fields[key].annotation) == repr(_stripped(annotation(tp))), key


def _stripped(tp: object) -> object:
    """What pydantic keeps as a field's annotation: the type, its Annotated markers apart."""
    return typing.get_args(tp)[0] if typing.get_origin(tp) is typing.Annotated else tp


def test_no_key_is_named_twice_in_a_file() -> None:
    for sections in (USER_FILE, PROJECT_FILE):
        names = [key for key, _ in _keys(sections)]
        assert len(names) == len(set(names))


_USER_KEYS = _keys(USER_FILE)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_key_s_every_value_is_read_plainly_to_what_pydantic_makes_of_it(data: st.DataObject) -> None:
    key, tp = data.draw(st.sampled_from(_USER_KEYS))
    raw = {key: data.draw(_values(tp), label=key)}
    plain = plain_file(USER_FILE, raw)
    assert plain is not None, raw
    assert validate_file(USER_FILE, raw, "config.toml") == plain


def test_a_key_added_to_the_table_is_read_by_both_readers() -> None:
    sections = (UserSettings, AgentConfig, Added)
    given = {"retries": 3, "label": "abc"}
    assert plain_file(sections, given) == validate_file(sections, given, "c.toml")
    assert plain_file(sections, given)[2] == Added(3, "abc")  # type: ignore[index]
    assert plain_file(USER_FILE, given) is None  # not in the table: the schema words it
    with pytest.raises(ConfigError, match=r"c\.toml: retries: unknown field"):
        validate_file(USER_FILE, given, "c.toml")
    for bad, says in (({"retries": 0}, "retries: Input should be greater than 0"), ({"label": "A"}, "label")):
        assert plain_file(sections, bad) is None
        with pytest.raises(ConfigError, match=f"c.toml: {says}"):
            validate_file(sections, bad, "c.toml")


# A string annotation too (a section written under `from __future__ import annotations`).
@pytest.mark.parametrize(
    "tp", [bytes, Annotated[str, object()], tuple[complex, ...], typing.ForwardRef("int")]
)
def test_a_type_the_readers_do_not_know_is_refused_by_both(tp: object) -> None:
    with pytest.raises(TypeError, match="readers do not know"):
        reader(tp)
    with pytest.raises(TypeError, match="schema does not know"):
        annotation(tp)

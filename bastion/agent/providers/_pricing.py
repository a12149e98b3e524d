"""What a round cost: the provider's own figure when it gives one (OpenRouter does), else the model's
price from the config's [pricing."MODEL"] table or the built-in one for the default models, else
unknown (None)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from .._types import ConfigError, Usage

__all__ = ["BUILT_IN", "Price", "cost", "pricing_table"]


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


BUILT_IN: dict[str, Price] = {
    "gpt-5": Price(input=1.25, output=10.0, cache_read=0.125, cache_write=1.25),
    "claude-sonnet-5-5": Price(input=3.0, output=15.0, cache_read=0.30, cache_write=3.75),
}
_FIELDS = ("input", "output", "cache_read", "cache_write")


def pricing_table(raw: object, where: str) -> dict[str, Price]:
    """The config's [pricing."MODEL"] tables: input and output are required, cache_read defaults to
    input, cache_write to input; every value a non-negative number of dollars per million tokens."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: pricing: must be a table of models")
    table: dict[str, Price] = {}
    for model, entry in raw.items():
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: pricing.{model}: must be a table (input = ..., output = ...)")
        for name, value in entry.items():
            if name not in _FIELDS:
                raise ConfigError(f"{where}: pricing.{model}.{name}: unknown; one of {', '.join(_FIELDS)}")
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ConfigError(f"{where}: pricing.{model}.{name}: must be a number of dollars")
            if value < 0:
                raise ConfigError(f"{where}: pricing.{model}.{name}: must not be negative")
        for name in ("input", "output"):
            if name not in entry:
                raise ConfigError(f"{where}: pricing.{model}.{name}: is required")
        price_in = float(entry["input"])
        table[str(model)] = Price(
            price_in,
            float(entry["output"]),
            float(entry.get("cache_read", price_in)),
            float(entry.get("cache_write", price_in)),
        )
    return table


def cost(usage: Usage, model: str, table: Mapping[str, Price], reported: float | None) -> float | None:
    if reported is not None:
        return reported
    price = table.get(model) or BUILT_IN.get(model)
    if price is None:
        return None
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_creation_tokens * price.cache_write
    ) / 1_000_000

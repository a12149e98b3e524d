"""What a round cost: the provider's own figure when it gives one (OpenRouter does), else the model's
price from the table make_model is given or the built-in one for the default models, else unknown
(None)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...config import Price as PriceSection
from ..runtime import Usage

__all__ = ["BUILT_IN", "Price", "cost", "prices_of"]


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
    # Up to 200k tokens of prompt (a longer one is priced higher); Gemini writes its cache unasked.
    "gemini-2.5-pro": Price(input=1.25, output=10.0, cache_read=0.125, cache_write=1.25),
}


def prices_of(config: Mapping[str, PriceSection] | None) -> dict[str, Price]:
    """The user config's `[pricing."MODEL"]` tables (checked by its table: `input` and `output`,
    `cache_read` and `cache_write` defaulting to the input's price) as prices."""
    table: dict[str, Price] = {}
    for model, price in (config or {}).items():
        read, write = price.cache_read, price.cache_write
        table[model] = Price(
            input=price.input,
            output=price.output,
            cache_read=price.input if read is None else read,
            cache_write=price.input if write is None else write,
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

"""How many tokens of prompt a model takes (its context window, for compaction): the user config's
`[context_windows]` figure for it, else what its server says (bastion.agent.providers._limits),
else this table of known models, else a stated default. A figure is always known, and where it came
from is said (`/context`, the transcript), so a conversation never outgrows the window unseen.

The table is a snapshot of what the vendors published (KNOWN_AS_OF): a model named after it falls to
its server's figure or to the default; the config overrides any entry. Where a vendor states a
total window and a smaller input limit (OpenAI's GPT-5: 400,000 in all, 272,000 of input), the
table holds the input limit, which is what a request may send.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

__all__ = ["DEFAULT_WINDOW", "KNOWN_AS_OF", "KNOWN_WINDOWS", "Window", "known_window", "window_of"]

# When the table below was last checked against the vendors' model pages.
KNOWN_AS_OF = "2026-12-02"
# The window of a model nobody states one for: the smallest that common local servers run with
# (llama.cpp's and vLLM's usual 32k), so compacting early is what an unknown model costs, never a
# request over its window.
DEFAULT_WINDOW = 32_768

# A name, or a family: a key ending in "*" is every name it begins (the longest key that matches
# wins). A name with a vendor's prefix (OpenRouter's "openai/gpt-5") is looked up without it too.
KNOWN_WINDOWS: Mapping[str, int] = {
    "gpt-5*": 272_000,  # gpt-5, -mini, -nano, -codex, gpt-5.1 ...: 400k in all, 128k of it output
    "gpt-4.1*": 1_047_576,
    "gpt-4o*": 128_000,
    "o3*": 200_000,
    "o4-mini*": 200_000,
    "gpt-oss-*": 131_072,
    "claude-*": 200_000,  # Anthropic's models API says it too (and a 1M beta, asked for apart)
    "gemini-1.5-pro*": 2_097_152,
    "gemini-1.5-flash*": 1_048_576,
    "gemini-2*": 1_048_576,
    "gemini-3*": 1_048_576,
    "deepseek-*": 128_000,
    "qwen3-coder*": 262_144,
}

Source = Literal["config", "server", "table", "default"]


class Window(NamedTuple):
    """A model's context window in tokens, and where the figure came from."""

    tokens: int
    source: Source

    def said(self) -> str:
        """How a person reads where the figure came from."""
        return {
            "config": "your config's [context_windows]",
            "server": "the server says",
            "table": f"bastion's table of known models, {KNOWN_AS_OF}",
            "default": "not stated for this model: bastion's default; set [context_windows] in your config",
        }[self.source]


def known_window(model: str, table: Mapping[str, int] = KNOWN_WINDOWS) -> int | None:
    """The table's window for `model` (an exact name first, then the longest family it is of)."""
    for name in dict.fromkeys((model, model.rpartition("/")[2])):
        if name in table:
            return table[name]
        families = [key for key in table if key.endswith("*") and name.startswith(key[:-1])]
        if families:
            return table[max(families, key=len)]
    return None


def window_of(model: str, configured: Mapping[str, int], server: Callable[[], int | None]) -> Window:
    """The window `model` is taken to have: the config's, else the server's (asked only then), else
    the table's, else DEFAULT_WINDOW."""
    given = known_window(model, configured)
    if given is not None:
        return Window(given, "config")
    said = server()
    if said is not None:
        return Window(said, "server")
    known = known_window(model)
    return Window(known, "table") if known is not None else Window(DEFAULT_WINDOW, "default")

"""What an MCP tool's result becomes for the model: its text, within a bound."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp_types import CallToolResult, ContentBlock

__all__ = ["MAX_MESSAGE", "MAX_RESULT_CHARS", "capped", "result_text"]

# As much as the bash tool's output (50 KiB): what a model reads in one result.
MAX_RESULT_CHARS = 51_200
# The longest message read from a stdio server (`_stdio`): a result is cut to MAX_RESULT_CHARS, and
# an image or a resource (not shown, only named) has no need of more; a longer one is dropped as it
# comes, never held, and its call fails saying so.
MAX_MESSAGE = 8_000_000


def capped(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return (
        text[:limit]
        + f"\n... [truncated: the result was {len(text)} characters, {len(text) - limit} omitted]"
    )


def _block(block: ContentBlock) -> str:
    kind = block.type
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        data = str(getattr(block, "data", ""))
        return f"[{kind} {getattr(block, 'mime_type', '?')}, {len(data) * 3 // 4} bytes, not shown]"
    if kind == "resource_link":
        return f"[resource {getattr(block, 'uri', '')}]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        text = getattr(resource, "text", None)
        uri = getattr(resource, "uri", "")
        return (
            f"[resource {uri}]\n{text}" if isinstance(text, str) else f"[resource {uri}, binary, not shown]"
        )
    return f"[{kind} content, not shown]"


def result_text(result: CallToolResult) -> tuple[str, bool]:
    """The text the model gets and whether the tool said it failed; capped at MAX_RESULT_CHARS."""
    parts = [_block(block) for block in result.content]
    if not any(parts) and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = "\n".join(p for p in parts if p) or "(the tool returned nothing)"
    return capped(text), bool(result.is_error)

"""subagents"""

__all__: list[str] = []

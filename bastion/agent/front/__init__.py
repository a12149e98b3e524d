"""front"""

__all__: list[str] = []

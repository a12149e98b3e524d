"""runtime"""

__all__: list[str] = []

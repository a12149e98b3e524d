"""bastion: a coding agent whose policy core decides every tool call."""

from ._errors import BastionError

__all__ = ["BastionError", "__version__"]

__version__ = "0.1.0"

"""bastion: a coding agent whose policy core decides every tool call."""

__version__ = "0.1.0"

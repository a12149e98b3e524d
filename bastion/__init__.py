"""bastion: a coding agent whose policy core decides every tool call."""

TYPE_CHECKING = False  # typing's own constant would import typing (and re) at every start
if TYPE_CHECKING:
    from ._errors import BastionError
del TYPE_CHECKING

__all__ = ["BastionError", "__version__"]

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The error root loads when first named: `bastion --version` needs none of it (nor enum).
    if name == "BastionError":
        from ._errors import BastionError

        return BastionError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

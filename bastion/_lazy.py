"""A package face whose names load their own module when first used (PEP 562): a dry-run, a hook
and `bastion --version` import none of what they do not call (docs/performance.md). It imports
neither importlib nor typing, so the resident client's face uses it too."""

import sys

TYPE_CHECKING = False  # typing's own constant would import typing (and re) at every start
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
del TYPE_CHECKING

__all__ = ["lazy_names"]


def lazy_names(package: str, modules: "Mapping[str, str]") -> "Callable[[str], object]":
    """The `__getattr__` of `package`: a name of `modules` is taken from its module there (named
    relative to the package) and kept in the package; any other name is an AttributeError."""

    def __getattr__(name: str) -> object:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(__import__(f"{package}.{module}", fromlist=(name,)), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__

"""What a request is made with, changed by /model and /think between runs."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EFFORTS", "ModelOptions"]

EFFORTS = ("minimal", "low", "medium", "high", "xhigh")


@dataclass(slots=True)
class ModelOptions:
    provider: str
    model: str
    think: bool = True
    effort: str = "low"

"""The formal subset of bash (subset.lark), its parser and the plan types it produces."""

from ._parser import grammar_text, parse, parser
from ._plan import Outside, Pipeline, Plan, Redirect, Stage, Word
from ._render import render, render_stage, render_word

__all__ = [
    "Outside",
    "Pipeline",
    "Plan",
    "Redirect",
    "Stage",
    "Word",
    "grammar_text",
    "parse",
    "parser",
    "render",
    "render_stage",
    "render_word",
]

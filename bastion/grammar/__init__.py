"""The formal subset of bash (subset.lark), its parser and the plan types it produces."""

from ._load import grammar_text, parser
from ._parser import parse, prepare
from ._plan import Outside, Pipeline, Plan, Redirect, Stage, Word, shown
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
    "prepare",
    "render",
    "render_stage",
    "render_word",
    "shown",
]

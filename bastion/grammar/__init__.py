"""The formal subset of bash (subset.lark), its parser and the plan types it produces."""

from ._load import grammar_text, parser
from ._parser import parse, prepare
from ._plan import Operator, Outside, Pipeline, Plan, Redirect, Stage, Word
from ._render import render, render_stage, render_word

__all__ = [
    "Operator",
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
]

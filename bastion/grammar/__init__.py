"""The formal subset of bash (subset.lark), its parser and the plan types it produces."""

from ._load import grammar_text, parser
from ._parser import MAX_LINE_BYTES, MAX_LINE_WORDS, oversized, parse, prepare
from ._plan import Operator, Outside, Pipeline, Plan, Redirect, Stage, Word, shown
from ._render import render, render_stage, render_word

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_LINE_WORDS",
    "Operator",
    "Outside",
    "Pipeline",
    "Plan",
    "Redirect",
    "Stage",
    "Word",
    "grammar_text",
    "oversized",
    "parse",
    "parser",
    "prepare",
    "render",
    "render_stage",
    "render_word",
    "shown",
]

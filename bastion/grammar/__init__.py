"""The formal subset of bash (subset.lark), its parser and the plan types it produces; and the one way
any grammar of bastion is declared and run from tables built at install (`Grammar`)."""

from ._lalr import Tree, Unexpected
from ._load import grammar_text, parser
from ._parser import MAX_LINE_BYTES, MAX_LINE_WORDS, oversized, parse, prepare
from ._plan import Operator, Outside, Pipeline, Plan, Redirect, Stage, Word, shown
from ._render import render, render_stage, render_word
from ._tables import Grammar

__all__ = [
    "MAX_LINE_BYTES",
    "MAX_LINE_WORDS",
    "Grammar",
    "Operator",
    "Outside",
    "Pipeline",
    "Plan",
    "Redirect",
    "Stage",
    "Tree",
    "Unexpected",
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

"""The fronts a person sees: the REPL (line editor, slash commands, /diff and /compact), -p's one
run (its questions' answers, its JSON report and transcript), the screen (streamed text, each call
and its result, the spinner), markdown, the questions and their words, `bastion config init`.
`Learning` is the seam a question uses to offer a rule to remember and save it (any front's).
`bastion acp` (the editor's front) stands on this one.
"""

from ._advice import advice
from ._ask import (
    DIFF_LIMIT,
    ONCE,
    PROJECT,
    SESSION,
    CallKey,
    TextNow,
    cannot_work,
    current_text,
    describe,
    may_always,
    parse_reply,
)
from ._colour import Colour, colour_for
from ._config_init import config_main, config_text
from ._front import Asker, Build, Built, Fanout
from ._learnt import Learning, Offer, Saved
from ._long import LONG_COMMANDS, UNDO_ACK, UNDO_HEAD
from ._one_shot import OUTPUT_CLOSED, one_shot
from ._one_shot_answers import NO_TERMINAL
from ._plainly import choices, detail, headline, offer_lines, saved_line, why
from ._prompt_input import read_prompt
from ._render import MarkdownStream, rows_above
from ._repl import repl
from ._screen import EXPAND_KEPT, Printer, Spinner, collapsed, summary
from ._slash import COMMANDS, ReplState, Tally, help_text, run_command

__all__ = [
    "Asker",
    "Build",
    "Built",
    "COMMANDS",
    "CallKey",
    "DIFF_LIMIT",
    "Colour",
    "EXPAND_KEPT",
    "Fanout",
    "LONG_COMMANDS",
    "Learning",
    "MarkdownStream",
    "NO_TERMINAL",
    "ONCE",
    "OUTPUT_CLOSED",
    "Offer",
    "PROJECT",
    "Printer",
    "ReplState",
    "SESSION",
    "Saved",
    "Spinner",
    "Tally",
    "TextNow",
    "UNDO_ACK",
    "UNDO_HEAD",
    "advice",
    "cannot_work",
    "choices",
    "collapsed",
    "colour_for",
    "config_main",
    "config_text",
    "current_text",
    "describe",
    "detail",
    "headline",
    "help_text",
    "may_always",
    "offer_lines",
    "one_shot",
    "parse_reply",
    "read_prompt",
    "repl",
    "rows_above",
    "run_command",
    "saved_line",
    "summary",
    "why",
]

"""The fronts a person sees: the REPL (line editor, slash commands, /diff and /compact), -p's one
run (its questions' answers, its JSON report and transcript), the screen (streamed text, each call
and its result, the spinner), markdown, the questions and their words, `bastion config init`; and
what a front that keeps the screen while a run goes on its own thread shares (stopping it, the text
typed for it, the rule a question may offer: `Learning`, the policy's `RulesLearnt`). `bastion acp`
(the editor's front) and the terminal client stand on this one.
"""

from ._advice import advice
from ._ask import (
    AGAIN,
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
from ._control import RunControl, Typed
from ._front import Asker, Build, Built, Fanout, Question
from ._learn import Learning, NoLearning, RuleOffer, RulesLearnt
from ._long import LONG_COMMANDS, UNDO_ACK, UNDO_HEAD
from ._one_shot import OUTPUT_CLOSED, one_shot
from ._one_shot_answers import NO_TERMINAL
from ._plainly import detail, headline, why
from ._prompt_input import read_prompt
from ._render import MarkdownStream, rows_above
from ._repl import repl
from ._screen import EXPAND_KEPT, Printer, Spinner, collapsed, summary
from ._slash import COMMANDS, Command, ReplState, Tally, help_text, run_command, unknown

__all__ = [
    "Asker",
    "Build",
    "Built",
    "COMMANDS",
    "CallKey",
    "Colour",
    "Command",
    "DIFF_LIMIT",
    "EXPAND_KEPT",
    "Fanout",
    "LONG_COMMANDS",
    "Learning",
    "MarkdownStream",
    "NO_TERMINAL",
    "NoLearning",
    "AGAIN",
    "ONCE",
    "OUTPUT_CLOSED",
    "PROJECT",
    "Printer",
    "Question",
    "ReplState",
    "RuleOffer",
    "RulesLearnt",
    "RunControl",
    "SESSION",
    "Spinner",
    "Tally",
    "TextNow",
    "Typed",
    "UNDO_ACK",
    "UNDO_HEAD",
    "advice",
    "cannot_work",
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
    "one_shot",
    "parse_reply",
    "read_prompt",
    "repl",
    "rows_above",
    "run_command",
    "summary",
    "unknown",
    "why",
]

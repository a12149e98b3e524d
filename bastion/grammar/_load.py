"""How a process gets the subset's LALR parser: built once with strict=True, then loaded without lark.

`python -m bastion.grammar` (run by `make` at install) builds the parser from subset.lark with
strict=True, which proves that the grammar has no conflict and that no two terminals of one lexer
state can match the same text (about twenty seconds since the quoted strings hold TEXT: interegular
checks those classes), and writes that build's tables to
`_subset_lalr.py` beside the grammar (git-ignored, data only): the parse table, the regular
expression of each state's lexer, the rules, lark's own serialization of the build, and the grammar
text, options and lark version they were built from. A process imports that module and runs the
tables with `_lalr.Parser` (lark and interegular cost about 60 ms to import), once it has checked
that the module was built from this grammar text with these options. A module that is missing,
cannot be imported or was built from anything else is never used: the parser is built strictly
again, as at install, and the module written anew. So what parses is always what subset.lark defines.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ._lalr import DROP, KEEP, REDUCE, SHIFT, SPLICE, Parser, Token
from ._plan import Operator, Pipeline, Plan, Redirect, Stage, Word

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["build", "grammar_text", "loaded", "parser"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_GENERATED = "_subset_lalr"
_FORMAT = 1  # of what _tables writes (raise it when that changes): a module in another is not used
# Everything the build depends on besides the grammar text; written into the module and compared.
_OPTIONS: dict[str, object] = {
    "parser": "lalr",
    "lexer": "contextual",
    "strict": True,
    "maybe_placeholders": False,
}


def grammar_text() -> str:
    """The formal definition of the subset, as shipped."""
    with open(os.path.join(_HERE, "subset.lark"), encoding="ascii") as handle:
        return handle.read()


# Inside double quotes bash drops a backslash before these four and keeps every other one.
_DQUOTED_ESCAPE = re.compile(r'\\([\\"$`])')


def _piece_text(token: Token) -> str:
    value = str(token)
    if token.type == "DQUOTED" and "\\" in value:
        return _DQUOTED_ESCAPE.sub(r"\1", value[1:-1])
    if token.type.endswith("QUOTED"):
        return value[1:-1]
    return value


class _ToPlan:
    """Builds plans during the LALR parse (no tree is kept): a method per rule, called by name."""

    def start(self, items: list[Any]) -> Plan:
        # Pipelines and the operator tokens between them (this module's, or lark's when lark parses).
        pipelines = tuple(i for i in items if isinstance(i, Pipeline))
        operators = tuple(Operator[i.type] for i in items if not isinstance(i, Pipeline))
        return Plan(pipelines, operators)

    def pipeline(self, stages: list[Stage]) -> Pipeline:
        return Pipeline(tuple(s for s in stages if isinstance(s, Stage)))

    def stage(self, items: list[object]) -> Stage:
        # A brace word is a list of the words bash makes of it.
        words = tuple(w for i in items for w in (i if isinstance(i, list) else (i,)) if isinstance(w, Word))
        redirects = tuple(i for i in items if isinstance(i, Redirect))
        return Stage(words, redirects)

    def command(self, pieces: list[Token]) -> Word:
        return Word("".join(_piece_text(p) for p in pieces))

    def word(self, pieces: list[Token]) -> Word:
        return Word("".join(_piece_text(p) for p in pieces))

    def glob(self, tokens: list[Token]) -> Word:
        return Word(str(tokens[0]), glob=True)

    def brace(self, tokens: list[Token]) -> list[Word]:
        """The words bash makes of PREFIX{A,B,...}SUFFIX, in order, an empty one left out."""
        prefix, rest = str(tokens[0]).split("{", 1)
        alternatives, suffix = rest.split("}", 1)
        made = (prefix + a + suffix for a in alternatives.split(","))
        return [Word(w, glob="*" in w or "?" in w) for w in made if w]

    def redirect(self, tokens: list[Token]) -> Redirect:
        return Redirect(str(tokens[0]))


_TO_PLAN: Any = _ToPlan()  # lark types its transformer as its own Transformer class; it only calls methods


def _tables(lark: Lark) -> dict[str, object]:
    """What `_lalr.Parser` runs, taken from a build; refuses a build whose semantics it does not run
    (lark features this grammar does not use: they would need more than the tables)."""
    from lark.grammar import Rule
    from lark.lexer import BasicLexer, ContextualLexer, TerminalDef
    from lark.parsers.lalr_analysis import Shift

    options, frontend = lark.options, lark.parser
    if options.keep_all_tokens or options.postlex or options.lexer_callbacks or options.regex:
        raise ValueError("the subset's build uses a lark option _lalr does not run")
    conf = lark.lexer_conf
    if conf.ignore or conf.g_regex_flags or not isinstance(frontend.lexer, ContextualLexer):
        raise ValueError("the subset's lexer is not a plain contextual lexer")
    table = frontend.parser.parser.parse_table
    index = {rule: i for i, rule in enumerate(lark.rules)}
    rules = []
    for rule in lark.rules:
        named = rule.alias or rule.options.template_source or rule.origin.name
        if rule.options.expand1 or rule.options.keep_all_tokens or named != rule.origin.name:
            raise ValueError(f"rule {rule}: a tree-building option _lalr does not run")
        if not named.startswith("_") and not callable(getattr(_TO_PLAN, named, None)):
            raise ValueError(f"rule {named}: the plan builder has no method for it")
        children = tuple(
            (DROP if getattr(sym, "filter_out", False) else KEEP)
            if sym.is_term
            else (SPLICE if sym.name.startswith("_") else KEEP)
            for sym in rule.expansion
        )
        rules.append((str(named), children))
    states = [
        {str(name): (SHIFT, to) if how is Shift else (REDUCE, index[to]) for name, (how, to) in acts.items()}
        for _, acts in sorted(table.states.items())
    ]
    if sorted(table.states) != list(range(len(states))):
        raise ValueError("the parse table's states are not numbered 0..n-1")
    lexers: dict[int, tuple[str | None, frozenset[str]]] = {}
    for state, lexer in [*frontend.lexer.lexers.items(), (-1, frontend.lexer.root_lexer)]:
        if not isinstance(lexer, BasicLexer):
            raise ValueError("a lexer state is not lark's basic lexer")
        scanner = lexer.scanner
        if lexer.callback or len(scanner._mres) > 1:
            raise ValueError("a lexer state needs more than one regular expression or a callback")
        source = scanner._mres[0].pattern if scanner._mres else None
        allowed = {str(name) for name in scanner.allowed_types - lexer.ignore_types}
        lexers[state] = (source, frozenset(allowed or {"<END-OF-FILE>"}))
    root = lexers.pop(-1)[0]
    data, memo = lark.memo_serialize([TerminalDef, Rule])
    return {
        "START": table.start_states["start"],
        "END": table.end_states["start"],
        "STATES": states,
        "RULES": rules,
        "LEXERS": lexers,
        "ROOT": root,
        "LARK_DATA": data,
        "LARK_MEMO": memo,
    }


def _write(lark: Lark) -> str:
    """Write a strict build's tables (atomically: a reader sees the old module or the new one)."""
    import py_compile
    import tempfile

    from lark import __version__

    key = {"GRAMMAR": grammar_text(), "OPTIONS": _OPTIONS, "FORMAT": _FORMAT, "LARK_VERSION": __version__}
    values = {**_tables(lark), **key}
    path = os.path.join(_HERE, f"{_GENERATED}.py")
    fd, temporary = tempfile.mkstemp(dir=_HERE, prefix=f".{_GENERATED}-", suffix=".py")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(
                f"# The subset's LALR tables, built from subset.lark with strict=True by lark\n"
                f"# {__version__} (`python -m bastion.grammar`): do not edit, do not commit.\n"
            )
            out.writelines(f"{name} = {value!r}\n" for name, value in values.items())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    py_compile.compile(path, doraise=True)  # a stale .pyc of the same size and second is replaced too
    return path


def build() -> str:
    """Build the parser with strict=True and write its tables (`make` runs this)."""
    from lark import Lark

    return _write(Lark(grammar_text(), **_OPTIONS))


@lru_cache(maxsize=1)
def _generated() -> Any:
    """The generated module, if it was built from this grammar text with these options, in this format."""
    try:
        module = importlib.import_module(f"{__package__}.{_GENERATED}")
    except Exception:  # missing, or unreadable: the parser is built again
        return None
    key = (getattr(module, name, None) for name in ("GRAMMAR", "OPTIONS", "FORMAT"))
    return module if tuple(key) == (grammar_text(), _OPTIONS, _FORMAT) else None


@lru_cache(maxsize=1)
def _built() -> dict[str, object]:
    """The tables of a strict build made now, written for the next process when the install allows."""
    from lark import Lark

    lark = Lark(grammar_text(), **_OPTIONS)
    with contextlib.suppress(Exception):  # an install that cannot be written to builds in each process
        _write(lark)
    return _tables(lark)


@lru_cache(maxsize=1)
def loaded() -> Parser:
    """The subset's parser, building plans as it parses (no tree is kept)."""
    module = _generated()
    if module is not None:
        with contextlib.suppress(Exception):  # tables it cannot run are tables to build again
            return Parser(module, _TO_PLAN)
    return Parser(SimpleNamespace(**_built()), _TO_PLAN)


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The same build as a lark object (for tests and fuzzing, which compare and generate with it):
    lark's serialization of the build the module holds, when this lark version made it."""
    from lark import Lark, __version__

    module = _generated()
    fresh = module is not None and __version__ == module.LARK_VERSION
    tables = module if fresh else SimpleNamespace(**_built())
    lark: Lark = Lark._load_from_dict(  # type: ignore[no-untyped-call]
        tables.LARK_DATA, tables.LARK_MEMO, transformer=_TO_PLAN
    )
    return lark

"""Every grammar bastion parses with, run from tables built ahead of time: one way to declare one.

A grammar is a `.lark` file inside the bastion package, declared by the module that parses with it:

    SCRIPT = Grammar("bastion.analyzer.commands", "sed_script.lark")           # values are Trees
    SUBSET = Grammar("bastion.grammar", "subset.lark", transformer)    # values built by rule name

Declaring loads nothing. A grammar is built with OPTIONS (LALR, lark's contextual lexer,
strict=True, which proves it has no conflict and that no two terminals of one lexer state can
match the same text; no placeholders), or, when its file holds the line `// parser: earley` (a
grammar that is not LALR: an ambiguous one), with EARLEY_OPTIONS (lark's Earley parser over its
basic lexer, strict), whose tables `_earley.py` runs. `python -m bastion.grammar` (run by `make` at
install, and by the wheel's build: setup.py) builds every `.lark` file in the package and writes each
build's tables beside it, in
`_<name>_lalr.py` (git-ignored, data only): the parse table, the regular expression of each
state's lexer, the ignored terminals, the rules, lark's own serialization of the build, and the
grammar text, options, format and lark version they were built from. The first parse with a
grammar imports that module, once it has checked that it was built from this grammar text with
these options in this format, and runs it with `_lalr.Parser`: neither lark (about 60 ms to
import) nor its grammar compiler (hundreds of ms a grammar) is loaded. A module that is missing,
cannot be imported or was built from anything else is never used: the grammar is built strictly
again, as at install, in memory only: nothing is ever written into the installed package at run
time (it may not be the user's to write, and a running process is no build step). So what parses
is always what the file defines.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ._earley import Recognizer
from ._lalr import DROP, KEEP, REDUCE, SHIFT, SPLICE, Parser

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["EARLEY_LINE", "EARLEY_OPTIONS", "FORMAT", "OPTIONS", "Grammar", "build_all", "grammars"]

FORMAT = 3  # of what _extract writes (raise it when that changes): a module in another is not used
# Everything a build depends on besides the grammar text; written into the module and compared.
OPTIONS: dict[str, object] = {
    "parser": "lalr",
    "lexer": "contextual",
    "strict": True,
    "maybe_placeholders": False,
}
EARLEY_LINE = "// parser: earley"
EARLEY_OPTIONS: dict[str, object] = {
    "parser": "earley",
    "lexer": "basic",
    "strict": True,
    "maybe_placeholders": False,
}
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bastion/


class Grammar:
    """One `.lark` file of a package (`name` inside `package`'s directory), the transformer that
    builds its values (None: `Tree`s), and what was loaded of it (`forget` drops that)."""

    def __init__(self, package: str, name: str, transformer: object | None = None) -> None:
        self.package = package
        self.name = name
        self.transformer = transformer
        self.tables_module = f"{package}._{name.removesuffix('.lark')}_lalr"
        self.forget()

    def forget(self) -> None:
        self._generated: tuple[Any] | None = None
        self._built: SimpleNamespace | None = None
        self._parser: Parser | Recognizer | None = None
        self._lark: Lark | None = None

    @property
    def directory(self) -> str:
        module = importlib.import_module(self.package)
        return os.path.dirname(os.path.abspath(str(module.__file__)))

    def text(self) -> str:
        with open(os.path.join(self.directory, self.name), encoding="utf-8") as handle:
            return handle.read()

    def options(self, text: str | None = None) -> dict[str, object]:
        """How the grammar is built: EARLEY_OPTIONS when its file holds EARLEY_LINE, else OPTIONS."""
        lines = (line.strip() for line in (self.text() if text is None else text).splitlines())
        return EARLEY_OPTIONS if EARLEY_LINE in lines else OPTIONS

    def generated(self) -> Any:
        """The tables module, if it was built from this grammar text with these options, in this
        format; else None."""
        if self._generated is None:
            try:
                module: Any = importlib.import_module(self.tables_module)
            except Exception:  # missing, or unreadable: the grammar is built again
                module = None
            text = self.text()
            key = (getattr(module, name, None) for name in ("GRAMMAR", "OPTIONS", "FORMAT"))
            self._generated = (module if tuple(key) == (text, self.options(text), FORMAT) else None,)
        return self._generated[0]

    def built(self) -> SimpleNamespace:
        """The tables of a strict build made now, in memory (never written: `write` is the build
        step's)."""
        if self._built is None:
            self._built = SimpleNamespace(**_extract(self._build()))
        return self._built

    def parser(self) -> Parser | Recognizer:
        """What runs the tables (the generated ones, else a build made now)."""
        if self._parser is None:
            module = self.generated()
            if module is not None:
                with contextlib.suppress(Exception):  # tables it cannot run are tables to build again
                    self._parser = self._runner(module)
            if self._parser is None:
                self._parser = self._runner(self.built())
        return self._parser

    def _runner(self, tables: Any) -> Parser | Recognizer:
        if tables.KIND == "earley":
            if self.transformer is not None:
                raise ValueError(f"{self.name}: an Earley grammar's value is its tokens, not a transformer's")
            return Recognizer(tables)
        return Parser(tables, self.transformer)

    def parse(self, text: str) -> Any:
        """The value of the start rule for `text` (for an Earley grammar, `Tree("start", every
        token)`); raises `_lalr.Unexpected` where lark would raise."""
        return self.parser().parse(text)

    def lark(self) -> Lark:
        """The same build as a lark object (for tests and fuzzing, which compare and generate with
        it): lark's serialization of the build the module holds, when this lark version made it."""
        if self._lark is None:
            from lark import Lark, __version__

            if self.options() is EARLEY_OPTIONS:  # lark serializes LALR builds only
                self._lark = self._build()
                return self._lark
            module = self.generated()
            fresh = module is not None and __version__ == module.LARK_VERSION
            tables = module if fresh else self.built()
            kwargs = {} if self.transformer is None else {"transformer": self.transformer}
            self._lark = Lark._load_from_dict(tables.LARK_DATA, tables.LARK_MEMO, **kwargs)  # type: ignore[no-untyped-call]
        return self._lark

    def _build(self) -> Lark:
        from lark import Lark

        text = self.text()
        return Lark(text, **self.options(text))

    def write(self, lark: Lark | None = None) -> str:
        """Write a strict build's tables (atomically: a reader sees the old module or the new one)."""
        import py_compile
        import tempfile

        from lark import __version__

        lark = lark or self._build()
        text = self.text()
        key = {"GRAMMAR": text, "OPTIONS": self.options(text), "FORMAT": FORMAT, "LARK_VERSION": __version__}
        values = {**_extract(lark), **key}
        stem = self.tables_module.rpartition(".")[2]
        path = os.path.join(self.directory, f"{stem}.py")
        fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=f".{stem}-", suffix=".py")
        try:
            os.fchmod(fd, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(
                    f"# The LALR tables of {self.name}, built with strict=True by lark {__version__}\n"
                    f"# (`python -m bastion.grammar`): do not edit, do not commit.\n"
                )
                out.writelines(f"{name} = {value!r}\n" for name, value in values.items())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        py_compile.compile(path, doraise=True)  # a stale .pyc of the same size and second is replaced too
        importlib.invalidate_caches()  # so that this process imports the new module, not the old one
        sys.modules.pop(self.tables_module, None)
        return path


def _extract(lark: Lark) -> dict[str, object]:
    """What `_lalr.Parser` (or `_earley.Recognizer`) runs, taken from a build; refuses a build whose
    semantics it does not run (lark features no grammar here uses: they would need more than the
    tables)."""
    options = lark.options
    if options.keep_all_tokens or options.postlex or options.lexer_callbacks or options.regex:
        raise ValueError("the build uses a lark option the tables do not run")
    if lark.lexer_conf.g_regex_flags:
        raise ValueError("the build's lexer takes regex flags")
    return _extract_earley(lark) if options.parser == "earley" else _extract_lalr(lark)


def _extract_earley(lark: Lark) -> dict[str, object]:
    from lark.lexer import BasicLexer, PatternStr, UnlessCallback

    lexer = lark.parser.lexer
    if not isinstance(lexer, BasicLexer) or lark.options.lexer != "basic":
        raise ValueError("an Earley build's lexer is not lark's basic lexer")
    scanner = lexer.scanner
    if len(scanner._mres) > 1:
        raise ValueError("the lexer needs more than one regular expression")
    unless: dict[str, dict[str, str]] = {}
    for name, callback in lexer.callback.items():
        strings = getattr(getattr(callback, "scanner", None), "terminals", ())
        if type(callback) is not UnlessCallback or not all(
            isinstance(t.pattern, PatternStr) and not t.pattern.flags for t in strings
        ):
            raise ValueError(f"terminal {name}: a lexer callback other than plain keywords")
        unless[str(name)] = {str(t.pattern.value): str(t.name) for t in strings}
    allowed = {str(name) for name in scanner.allowed_types - lexer.ignore_types}
    return {
        "KIND": "earley",
        "RULES": [(str(r.origin.name), tuple(str(s.name) for s in r.expansion)) for r in lark.rules],
        "ROOT": scanner._mres[0].pattern if scanner._mres else None,
        "UNLESS": unless,
        "IGNORE": frozenset(str(name) for name in lark.lexer_conf.ignore),
        "ALLOWED": frozenset(allowed or {"<END-OF-FILE>"}),
    }


def _extract_lalr(lark: Lark) -> dict[str, object]:
    from lark.grammar import Rule
    from lark.lexer import BasicLexer, ContextualLexer, TerminalDef
    from lark.parsers.lalr_analysis import Shift

    frontend = lark.parser
    conf = lark.lexer_conf
    if not isinstance(frontend.lexer, ContextualLexer):
        raise ValueError("the build's lexer is not a plain contextual lexer")
    table = frontend.parser.parser.parse_table
    index = {rule: i for i, rule in enumerate(lark.rules)}
    rules = []
    for rule in lark.rules:
        origin = rule.origin.name
        if rule.options.expand1 or rule.options.keep_all_tokens or rule.options.template_source:
            raise ValueError(f"rule {rule}: a tree-building option _lalr does not run")
        if rule.alias and origin.startswith("_"):
            raise ValueError(f"rule {rule}: an inlined rule with an alias")
        children = tuple(
            (DROP if getattr(sym, "filter_out", False) else KEEP)
            if sym.is_term
            else (SPLICE if sym.name.startswith("_") else KEEP)
            for sym in rule.expansion
        )
        rules.append((str(origin), str(rule.alias or origin), children))
    states = [
        {str(name): (SHIFT, to) if how is Shift else (REDUCE, index[to]) for name, (how, to) in acts.items()}
        for _, acts in sorted(table.states.items())
    ]
    if sorted(table.states) != list(range(len(states))):
        raise ValueError("the parse table's states are not numbered 0..n-1")
    lexers: dict[int, tuple[str | None, frozenset[str]]] = {}
    for state, lexer in [*frontend.lexer.lexers.items(), (-1, frontend.lexer.root_lexer)]:
        if not isinstance(lexer, BasicLexer) or lexer.ignore_types != frozenset(conf.ignore):
            raise ValueError("a lexer state is not lark's basic lexer ignoring the grammar's terminals")
        scanner = lexer.scanner
        if lexer.callback or len(scanner._mres) > 1:
            raise ValueError("a lexer state needs more than one regular expression or a callback")
        source = scanner._mres[0].pattern if scanner._mres else None
        allowed = {str(name) for name in scanner.allowed_types - lexer.ignore_types}
        lexers[state] = (source, frozenset(allowed or {"<END-OF-FILE>"}))
    root = lexers.pop(-1)[0]
    data, memo = lark.memo_serialize([TerminalDef, Rule])
    return {
        "KIND": "lalr",
        "START": table.start_states["start"],
        "END": table.end_states["start"],
        "STATES": states,
        "RULES": rules,
        "LEXERS": lexers,
        "ROOT": root,
        "IGNORE": frozenset(str(name) for name in conf.ignore),
        "LARK_DATA": data,
        "LARK_MEMO": memo,
    }


def grammars() -> list[Grammar]:
    """Every `.lark` file in the bastion package, as a Grammar of the package it lies in."""
    found = []
    for directory, subdirectories, files in os.walk(_PACKAGE):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".", "__")))
        relative = os.path.relpath(directory, _PACKAGE)
        package = ".".join(["bastion", *([] if relative == "." else relative.split(os.sep))])
        found += [Grammar(package, name) for name in sorted(files) if name.endswith(".lark")]
    return found


def _generated(path: str) -> bool:
    """Whether the file at `path` is tables this module wrote (its first line says so)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.readline().startswith("# The LALR tables of ")


def remove_orphans(root: str) -> list[str]:
    """Remove the tables below `root` that no grammar beside them builds any more (a grammar moved
    or removed): a module of the package that no grammar builds is no module of the package. Only
    `_NAME_lalr.py` files this module wrote are touched; the paths removed."""
    removed = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = [d for d in subdirectories if not d.startswith((".", "__"))]
        for name in files:
            grammar = name[1:-8] if name.startswith("_") and name.endswith("_lalr.py") else ""
            path = os.path.join(directory, name)
            if grammar and f"{grammar}.lark" not in files and _generated(path):
                os.remove(path)
                removed.append(path)
    return removed


def build_all() -> list[str]:
    """Build every grammar strictly and write its tables (`make` runs this), after removing the
    tables no grammar builds any more; the paths written."""
    remove_orphans(_PACKAGE)
    return [grammar.write() for grammar in grammars()]

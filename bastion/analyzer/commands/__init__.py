"""The checkers of every governed command but git, by family (readers, contents, names, words,
prints, versions, sed, awk, find, ls, cd/pwd/go), their shared helpers (flags, operands, globs,
listers, grep -r's excludes) and the index the driver looks a command up in (`_index`: a family's
module is imported when a line first names one of its commands). Below composition and git; above
the programs room and the analyzer's result types. Its face (below) loads each
name's module when the name is first used (PEP 562): importing the package loads none."""

import typing

from ..._lazy import lazy_names as _lazy_names

if typing.TYPE_CHECKING:
    from ._find import FIND_TESTS, GLOBAL_OPTIONS, expression_why
    from ._flags import parse_args
    from ._glob import expand
    from ._grepr import MAX_TREE_FILES, exclude_globs
    from ._index import FILTERS, FIRST_STAGE, INDEX, check_cd
    from ._listers import find_skips, listed, secret_name
    from ._operands import names_inside
    from ._readers import FILE_COMMANDS, MAX_FILES, TABLES, grep_words, options_first

_LAZY = {
    **dict.fromkeys(("FIND_TESTS", "GLOBAL_OPTIONS", "expression_why"), "_find"),
    **dict.fromkeys(("parse_args",), "_flags"),
    **dict.fromkeys(("expand",), "_glob"),
    **dict.fromkeys(("MAX_TREE_FILES", "exclude_globs"), "_grepr"),
    **dict.fromkeys(("FILTERS", "FIRST_STAGE", "INDEX", "check_cd"), "_index"),
    **dict.fromkeys(("find_skips", "listed", "secret_name"), "_listers"),
    **dict.fromkeys(("names_inside",), "_operands"),
    **dict.fromkeys(("FILE_COMMANDS", "MAX_FILES", "TABLES", "grep_words", "options_first"), "_readers"),
}

__getattr__ = _lazy_names(__name__, _LAZY)

__all__ = [
    "FILE_COMMANDS",
    "FILTERS",
    "FIND_TESTS",
    "FIRST_STAGE",
    "GLOBAL_OPTIONS",
    "INDEX",
    "MAX_FILES",
    "MAX_TREE_FILES",
    "TABLES",
    "check_cd",
    "exclude_globs",
    "expand",
    "expression_why",
    "find_skips",
    "grep_words",
    "listed",
    "names_inside",
    "options_first",
    "parse_args",
    "secret_name",
]

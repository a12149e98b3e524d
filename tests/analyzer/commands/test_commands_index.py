"""The index of governed commands agrees with the checker modules' own tables, both ways, and a
line of `ls` loads none of the other checkers."""

from __future__ import annotations

import importlib

import pytest

# Private: the command index is the seam tested: every table is reachable from it.
from bastion.analyzer.commands._index import _FIRST_TABLES, FILTERS, FIRST_STAGE, INDEX
from tests.loaded import modules_loaded


@pytest.mark.parametrize(("module", "table"), sorted(INDEX))
def test_each_table_checks_exactly_the_commands_the_index_names(module: str, table: str) -> None:
    checkers = getattr(importlib.import_module(f"bastion.analyzer.commands.{module}"), table)
    assert sorted(checkers) == sorted(INDEX[(module, table)])


def test_every_indexed_command_looks_up_its_tables_checker() -> None:
    for (module, table), commands in INDEX.items():
        checkers = getattr(importlib.import_module(f"bastion.analyzer.commands.{module}"), table)
        lookup = FIRST_STAGE if table in _FIRST_TABLES else FILTERS
        for command in commands:
            assert lookup[command] is checkers[command], (module, table, command)


def test_deciding_ls_loads_no_other_checker(tmp_path: object) -> None:
    others = tuple(f"bastion.analyzer.commands.{module}" for module, _ in INDEX)
    code = (
        "import os\n"
        "from bastion.cli import main\n"
        f"main(['check', '--config', os.devnull, '--cwd', {str(tmp_path)!r}, '--', 'ls -la'])"
    )
    assert modules_loaded(code, others) == []

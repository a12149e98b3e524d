"""`python -m bastion.grammar`: build the strict parser tables of subset.lark (run by `make` at install)."""

from ._parser import build_tables

print(f"bastion: subset grammar built strict, tables saved to {build_tables()}")

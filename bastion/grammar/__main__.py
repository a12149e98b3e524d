"""`python -m bastion.grammar`: build every grammar of the package strictly and write its tables
(`make` runs it at install)."""

from ._tables import build_all

for path in build_all():
    print(f"bastion: grammar built strict, tables written to {path}")

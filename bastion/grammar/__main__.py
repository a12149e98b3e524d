"""`python -m bastion.grammar`: build the subset's parser strict and write its module (`make` runs it)."""

from ._load import build

print(f"bastion: subset grammar built strict, parser written to {build()}")

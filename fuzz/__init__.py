"""Soundness tooling: grammar-driven generators, the argv and execution oracles, atheris harnesses."""

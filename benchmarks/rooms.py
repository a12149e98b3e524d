"""The rooms in figures: flat modules at the top of bastion/agent/ and of bastion/analyzer/, import
circles in the whole tree (bastion, tests, fuzz, benchmarks, integration), function-level imports in
bastion, functions with a parameter typed `Any` (agent and all), private imports across packages
(agent and all), and test files that import a private part of bastion (tests/agent and all).

    .venv/bin/python benchmarks/rooms.py [--list]

Read by AST through tests/graph.py, the same code tests/test_layering.py checks with.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.graph import (  # noqa: E402
    ROOT,
    any_seams,
    cycles,
    file_imports,
    module_graph,
    private_imports,
    private_target,
    read_modules,
)


def _private_test_files(folder: Path) -> list[str]:
    return [
        str(p.relative_to(ROOT))
        for p in sorted(folder.rglob("*.py"))
        if any(private_target(name) is not None for name in file_imports(p))
    ]


def _function_level_imports(modules: list[tuple[str, str, bool]]) -> list[str]:
    """`module:line` of each import inside a function."""
    found = []
    for source, name, _ in modules:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [
                    f"{name}:{inner.lineno}"
                    for inner in ast.walk(node)
                    if isinstance(inner, (ast.Import, ast.ImportFrom))
                ]
    return sorted(set(found))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="name each finding, not only count")
    listing = parser.parse_args().list
    modules = read_modules()
    agent = [m for m in modules if m[1] == "bastion.agent" or m[1].startswith("bastion.agent.")]
    flat = sorted(p.name for p in (ROOT / "bastion" / "agent").glob("*.py") if p.name != "__init__.py")
    analyzer_top = sorted(
        p.name for p in (ROOT / "bastion" / "analyzer").glob("*.py") if p.name != "__init__.py"
    )
    tops = ("bastion", "tests", "fuzz", "benchmarks", "integration")
    tree = [m for top in tops for m in read_modules(ROOT, top)]
    circles = cycles(module_graph(tree, tops))
    rows = [
        ("flat modules at the top of bastion/agent/", flat),
        (
            "modules at the top of bastion/analyzer/ (generated tables left out)",
            [n for n in analyzer_top if not n.endswith("_lalr.py")],
        ),
        ("import circles in the whole tree", [" <-> ".join(c) for c in circles]),
        ("modules in those circles", [m for c in circles for m in c]),
        ("function-level imports in bastion", _function_level_imports(modules)),
        ("`Any` seams in the agent (functions)", [f"{m}.{f}" for m, f in any_seams(agent)]),
        ("`Any` seams in bastion (functions)", [f"{m}.{f}" for m, f in any_seams(modules)]),
        ("private imports across packages, agent", [f"{m}: {n}" for m, n in private_imports(agent)]),
        ("private imports across packages, bastion", [f"{m}: {n}" for m, n in private_imports(modules)]),
        ("tests/agent files importing private parts", _private_test_files(ROOT / "tests" / "agent")),
        ("test files importing private parts", _private_test_files(ROOT / "tests")),
    ]
    for label, found in rows:
        print(f"{len(found):5d}  {label}")
        if listing:
            for item in found:
                print(f"         {item}")


if __name__ == "__main__":
    main()

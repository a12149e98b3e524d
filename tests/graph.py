"""bastion's imports as a graph, read by AST (nothing is imported): what tests/test_layering.py checks
and benchmarks/rooms.py counts, so the figures a change quotes come from the code the tests run.

Every import counts, those under `TYPE_CHECKING` and inside functions included: a name a module
needs only to type-check, or only when a function runs, is still a dependency a reader follows."""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterable, Mapping, Sequence

ROOT = pathlib.Path(__file__).resolve().parents[1]

# (source, dotted name, is a package): a module as the checks read it.
Module = tuple[str, str, bool]


def read_module(path: pathlib.Path, root: pathlib.Path = ROOT) -> Module:
    """A module's source, dotted name and whether it is a package."""
    parts = path.relative_to(root).with_suffix("").parts
    is_package = path.name == "__init__.py"
    return path.read_text(encoding="utf-8"), ".".join(parts[:-1] if is_package else parts), is_package


def read_modules(root: pathlib.Path = ROOT, package: str = "bastion") -> list[Module]:
    return [read_module(p, root) for p in sorted((root / package.replace(".", "/")).rglob("*.py"))]


def bastion_imports(
    source: str, module: str, is_package: bool, tops: tuple[str, ...] = ("bastion",)
) -> list[str]:
    """Every name of the packages `tops` (bastion's by default) a module imports, TYPE_CHECKING and
    function-level imports included; `from X import y` counts as importing X.y (y may be a module)."""
    package = module if is_package else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            names.extend(f"{base}.{a.name}" for a in node.names)
    return [n for n in names if n.split(".", 1)[0] in tops]


def _containing(name: str, known: Iterable[str]) -> str | None:
    """The longest known module that `name` is or lies in (`bastion.agent.tools.TOOLS`: the package)."""
    found = [m for m in known if name == m or name.startswith(m + ".")]
    return max(found, key=len) if found else None


def module_graph(modules: Sequence[Module], tops: tuple[str, ...] = ("bastion",)) -> dict[str, set[str]]:
    """Each module's edges to the modules it makes Python load: the module named, and every package
    above it that the importer is not itself inside (importing `a.b.c` from outside `a.b` runs
    `a.b`'s `__init__`). A package's own `__init__` reaches the submodules it imports like any other."""
    known = {name for _, name, _ in modules}
    graph: dict[str, set[str]] = {name: set() for name in known}
    for source, name, is_package in modules:
        own = name if is_package else name.rpartition(".")[0]
        for imported in bastion_imports(source, name, is_package, tops):
            target = _containing(imported, known)
            while target is not None and target != name:
                if not (own == target or own.startswith(target + ".")):
                    graph[name].add(target)
                target = _containing(target.rpartition(".")[0], known) if "." in target else None
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (and a module importing itself), each
    sorted, in sorted order: every import circle, Tarjan's algorithm without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1 or node in graph[node]:
                    found.append(sorted(part))
    return sorted(found)


def private_target(imported: str) -> str | None:
    """The package whose private part `imported` names (`bastion.agent.tools._base.X`:
    `bastion.agent.tools`), None when every part is public. The root's own modules (`bastion._errors`,
    `_safe`, `_files`, `_handover`, `_argv`, `_lazy`: the shared bottom every package may use) do
    not count."""
    parts = imported.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = ".".join(parts[:i])
            return None if owner == "bastion" else owner
    return None


def private_imports(modules: Sequence[Module]) -> list[tuple[str, str]]:
    """(module, name) for each import of another package's private part (a module or name with a
    leading underscore below a package the importer is not inside: a subpackage may use its parent's)."""
    found = []
    for source, name, is_package in modules:
        own = name if is_package else name.rpartition(".")[0]
        for imported in bastion_imports(source, name, is_package):
            owner = private_target(imported)
            if owner is not None and not (own == owner or own.startswith(owner + ".")):
                found.append((name, imported))
    return found


def file_imports(path: pathlib.Path) -> list[str]:
    """The bastion names a test file imports (its own helpers' imports are not bastion's)."""
    return bastion_imports(path.read_text(encoding="utf-8"), "tests._file", False)


def any_seams(modules: Sequence[Module]) -> list[tuple[str, str]]:
    """(module, function) for each function or method with a parameter typed with `Any`: a seam
    whose callers and callee agree on nothing a checker can see."""
    found = []
    for source, name, _ in modules:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                args += [a for a in (node.args.vararg, node.args.kwarg) if a is not None]
                if any(a.annotation is not None and "Any" in ast.unparse(a.annotation) for a in args):
                    found.append((name, node.name))
    return found

"""The Python a stage script runs, derived from its imports rather than listed by hand.

A script's imports of ``assay`` (any of them, at module level or inside a function) are followed
through the package's import graph (grimp, which also counts function-level and
``TYPE_CHECKING`` imports, so lazily loaded names are covered). Python runs a package's
``__init__`` before any module inside it, so every enclosing package is followed too. The files
are the modules' sources plus every file packaged beside an imported package (the report's SQL
queries and page templates): whatever in the package's folder is not itself a package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path

import grimp

PACKAGE = "assay"


def build_graph() -> grimp.ImportGraph:
    """The import graph of the ``assay`` that is imported (no cache: nothing written)."""
    return grimp.build_graph(PACKAGE, cache_dir=None)


def script_imports(source: str, modules: Iterable[str]) -> set[str]:
    """The ``assay`` modules a script's import statements name (``from assay.x import y`` names
    ``assay.x``, and ``assay.x.y`` too when that is a module)."""
    known = set(modules)
    named: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named.add(node.module)
            named.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in named if name in known}


def _packages_of(module: str) -> Iterator[str]:
    parts = module.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])


def closure(graph: grimp.ImportGraph, roots: Iterable[str]) -> set[str]:
    """Every module that importing ``roots`` can run: their imports, transitively, and every
    package enclosing one of them (whose ``__init__`` runs first)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(graph.find_modules_directly_imported_by(module))
        todo.extend(_packages_of(module))
    return seen


def module_file(module: str, root: Path) -> Path:
    """``assay.a.b`` → ``<root>/a/b.py`` or ``<root>/a/b/__init__.py`` (``root``: the package)."""
    base = root.joinpath(*module.split(".")[1:])
    package = base / "__init__.py"
    return package if package.exists() else base.with_suffix(".py")


def package_data(package_dir: Path) -> Iterator[Path]:
    """The files beside a package's modules: everything in its folder that is not Python, and
    everything in its sub-folders that are not packages themselves."""
    for child in sorted(package_dir.iterdir()):
        if child.is_dir():
            if not (child / "__init__.py").exists():
                yield from (p for p in sorted(child.rglob("*")) if p.is_file())
        elif child.suffix != ".py":
            yield child


def code_files(modules: Iterable[str], root: Path) -> set[Path]:
    """The sources of ``modules`` and the data packaged beside those that are packages."""
    files = set()
    for module in modules:
        source = module_file(module, root)
        files.add(source)
        if source.name == "__init__.py":
            files.update(package_data(source.parent))
    return files


def script_modules(script: Path, graph: grimp.ImportGraph) -> set[str]:
    """Every module of ``assay`` the script at ``script`` can run."""
    return closure(graph, script_imports(script.read_text(encoding="utf-8"), graph.modules))

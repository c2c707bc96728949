"""grimp: direct import dependencies, the number of (importer, imported) edges of the repository.

grimp builds graphs of packages only, so the repository is staged with each top-level module
``m.py`` turned into the package ``m/__init__.py`` (same name, same absolute imports). External
imports are included, squashed by grimp to their top-level package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path

import grimp

from assay.metrics.records import ToolResult
from assay.metrics.units import write_files

TOOL = "grimp"
METRICS = ("direct_imports",)


def staged_layout(files: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The files as grimp can read them and the top-level package names to graph."""
    packages = {
        path.split("/", 1)[0]
        for path in files
        if path.count("/") == 1 and path.endswith("/__init__.py")
    }
    staged: dict[str, str] = {}
    names = set(packages)
    for path, text in files.items():
        if not path.endswith(".py"):
            continue
        top = path.split("/", 1)[0]
        if "/" not in path:
            name = path.removesuffix(".py")
            if name in packages or not name.isidentifier():
                continue
            staged[f"{name}/__init__.py"] = text
            names.add(name)
        elif top in packages:
            staged[path] = text
    return staged, sorted(names)


def measure(files: Mapping[str, str], staging: Path) -> ToolResult:
    staged, names = staged_layout(files)
    if not names:
        return ToolResult(tool=TOOL, values={"direct_imports": 0.0})
    shadowed = sorted(n for n in names if n in sys.modules)
    if shadowed:
        reason = f"top-level name(s) {', '.join(shadowed)} shadow modules loaded by the measuring process"
        return ToolResult.failed(TOOL, reason)
    write_files(staging, staged)
    sys.path.insert(0, str(staging))
    importlib.invalidate_caches()
    try:
        graph = grimp.build_graph(*names, include_external_packages=True, cache_dir=None)
    except Exception as exc:  # noqa: BLE001 - any tool crash is missing evidence for this repository
        return ToolResult.failed(TOOL, f"{type(exc).__name__}: {exc}")
    finally:
        sys.path.remove(str(staging))
    return ToolResult(tool=TOOL, values={"direct_imports": float(graph.count_imports())})

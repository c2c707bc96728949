"""grimp: direct import dependencies, the number of (importer, imported) edges of the repository.

grimp builds graphs of packages only, so the repository is staged with each top-level module
``m.py`` turned into the package ``m/__init__.py`` (same name, same absolute imports). External
imports are included, squashed by grimp to their top-level package.

grimp finds a package with ``importlib.util.find_spec``, which answers from ``sys.modules`` and
``sys.path``: the result would depend on what the measuring process has loaded (a repository's
top-level ``yaml`` would be taken for the installed one) and on other threads editing
``sys.path``. It is given a package finder that looks in the staged repository only, so the
figure is the same in any process (a pool worker, a Dask worker, a test).
"""

from __future__ import annotations

import contextvars
import importlib.machinery
from collections.abc import Mapping
from pathlib import Path

import grimp
from grimp.application.config import settings
from grimp.application.ports.filesystem import AbstractFileSystem
from grimp.application.ports.packagefinder import AbstractPackageFinder

from assay.metrics.records import ToolResult
from assay.metrics.units import write_files

TOOL = "grimp"
METRICS = ("direct_imports",)

_staging: contextvars.ContextVar[Path] = contextvars.ContextVar("grimp_staging")


class StagedPackageFinder(AbstractPackageFinder):
    """grimp's package finder, looking only in the staged repository of the current build; any
    other grimp use in the process (the snapshot's import closure) keeps grimp's own finder."""

    def __init__(self, default: AbstractPackageFinder) -> None:
        self.default = default

    def determine_package_directories(
        self, package_name: str, file_system: AbstractFileSystem
    ) -> set[str]:
        staging = _staging.get(None)
        if staging is None:
            return set(self.default.determine_package_directories(package_name, file_system))
        spec = importlib.machinery.PathFinder.find_spec(package_name, [str(staging)])
        if spec is None or not spec.submodule_search_locations:
            raise ValueError(f"package {package_name!r} is not in the staged repository")
        return set(spec.submodule_search_locations)


settings.configure(PACKAGE_FINDER=StagedPackageFinder(settings.PACKAGE_FINDER))


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
    write_files(staging, staged)
    token = _staging.set(staging)
    try:
        graph = grimp.build_graph(*names, include_external_packages=True, cache_dir=None)
    except Exception as exc:  # noqa: BLE001 - any tool crash is missing evidence for this repository
        return ToolResult.failed(TOOL, f"{type(exc).__name__}: {exc}")
    finally:
        _staging.reset(token)
    return ToolResult(tool=TOOL, values={"direct_imports": float(graph.count_imports())})

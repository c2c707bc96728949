"""The version of every tool that produces a metric, as recorded in the plan and in every row."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from assay.metrics import jscpd_tool, newcode_tool

PYTHON_TOOLS = ("radon", "complexipy", "lizard", "grimp", "ruff", "mypy")
"""Tools pinned by ``uv.lock``; their distribution names equal the tool names."""


def tool_versions() -> dict[str, str]:
    versions: dict[str, str] = {}
    for name in PYTHON_TOOLS:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "not-installed"
    versions[jscpd_tool.TOOL] = jscpd_tool.pinned_version()
    versions[newcode_tool.TOOL] = newcode_tool.version()
    return dict(sorted(versions.items()))

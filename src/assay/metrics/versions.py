"""The version of every tool that produces a metric, as recorded in the plan and in every row."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError, distributions, version

from assay.core.digest import sha256_hex
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


@functools.cache
def environment_digest() -> str:
    """The digest of every distribution installed beside the tools (``name==version``, sorted).

    mypy resolves a repository's imports against the packages of the Python it runs in, so a
    codebase repository that imports pydantic or httpx is checked against the versions
    installed here: its error count can change with them while every tool version stays the
    same. A remembered unit is keyed by this digest too (``assay.metrics.engine.unit_key``)."""
    installed = sorted(
        {
            f"{d.metadata['Name']}=={d.version}".lower()
            for d in distributions()
            if d.metadata["Name"]
        }
    )
    return sha256_hex("\n".join(installed))

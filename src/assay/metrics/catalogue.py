"""Which metrics exist, in row order, and which of them measure the new code only."""

from __future__ import annotations

from assay.metrics import (
    complexipy_tool,
    grimp_tool,
    jscpd_tool,
    lizard_tool,
    mypy_tool,
    newcode_tool,
    radon_tool,
    ruff_tool,
)

METRICS: tuple[tuple[str, str], ...] = tuple(
    (module.TOOL, metric)
    for module in (
        radon_tool,
        complexipy_tool,
        lizard_tool,
        grimp_tool,
        jscpd_tool,
        ruff_tool,
        mypy_tool,
        newcode_tool,
    )
    for metric in module.METRICS
)
"""(tool, metric) pairs in the order rows are written."""

NEW_CODE_METRICS = frozenset(
    {
        (lizard_tool.TOOL, "max_nesting_depth_new_code"),
        (jscpd_tool.TOOL, "new_duplicated_lines"),
        (newcode_tool.TOOL, "new_lines"),
    }
)
"""Metrics of the new code only: the before-repository has none, so their before is 0."""

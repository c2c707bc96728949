"""Code metrics: established, pinned tools run on each output's repository before and after.

assay defines no metric of its own here. Each adapter module wraps one tool (``radon_tool``,
``complexipy_tool``, ``lizard_tool``, ``grimp_tool``, ``jscpd_tool``, ``ruff_tool``,
``mypy_tool``; ``newcode_tool`` counts SonarQube-style new lines from the diff). ``measure``
is the fast batch path; ``naive.measure_naive`` runs every tool as a fresh process per
repository and exists to check and benchmark the fast path.

A tool that fails on a repository yields rows with a missing value and the reason; it never
stops the batch and never becomes a zero.
"""

from assay.metrics.catalogue import METRICS, NEW_CODE_METRICS
from assay.metrics.engine import measure
from assay.metrics.records import MeasureItem, Measurement, ToolResult
from assay.metrics.versions import tool_versions

__all__ = [
    "METRICS",
    "NEW_CODE_METRICS",
    "MeasureItem",
    "Measurement",
    "ToolResult",
    "measure",
    "tool_versions",
]

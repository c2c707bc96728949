"""From what the tools said about the before- and after-repository to long-form rows."""

from __future__ import annotations

from collections.abc import Mapping

from assay.metrics.catalogue import METRICS, NEW_CODE_METRICS
from assay.metrics.records import Measurement, ToolResult

ToolResults = Mapping[str, ToolResult]
"""Results of one repository by tool name."""


def _value(results: ToolResults, tool: str, metric: str) -> tuple[float | None, str | None]:
    result = results.get(tool)
    if result is None:
        return None, f"{tool} did not report"
    if result.missing_reason is not None:
        return None, result.missing_reason
    if metric not in result.values:
        return None, f"{tool} reported no {metric}"
    return result.values[metric], None


def rows_for(
    cell_id: str,
    before: ToolResults,
    after: ToolResults | str,
    versions: Mapping[str, str],
) -> list[Measurement]:
    """One row per metric; ``after`` is a reason string when the change itself could not be made."""
    rows: list[Measurement] = []
    for tool, metric in METRICS:
        before_value: float | None
        before_reason: str | None
        after_value: float | None
        after_reason: str | None
        if (tool, metric) in NEW_CODE_METRICS:
            before_value, before_reason = 0.0, None
        else:
            before_value, before_reason = _value(before, tool, metric)
        if isinstance(after, str):
            after_value, after_reason = None, after
        else:
            after_value, after_reason = _value(after, tool, metric)
        reasons = [
            f"{side}: {reason}"
            for side, reason in (("before", before_reason), ("after", after_reason))
            if reason
        ]
        delta = (
            after_value - before_value
            if after_value is not None and before_value is not None
            else None
        )
        rows.append(
            Measurement(
                cell_id=cell_id,
                tool=tool,
                tool_version=versions.get(tool, "unknown"),
                metric=metric,
                before=before_value,
                after=after_value,
                delta=delta,
                missing_reason="; ".join(reasons) or None,
            )
        )
    return rows

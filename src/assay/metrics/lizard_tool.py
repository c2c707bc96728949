"""lizard: the maximum nesting depth (its ND extension) of the functions the change adds.

Only the new code is measured: functions of the after-target that start inside the appended
definition. The before-repository has no new code, so its value is 0 by definition.
"""

from __future__ import annotations

import lizard

from assay.metrics.records import ToolResult

TOOL = "lizard"
METRICS = ("max_nesting_depth_new_code",)


def measure(target: str, target_text: str, definition_lines: tuple[int, int]) -> ToolResult:
    first, last = definition_lines
    try:
        analyzer = lizard.FileAnalyzer(lizard.get_extensions(["nd"]))
        info = analyzer.analyze_source_code(target, target_text)
    except Exception as exc:  # noqa: BLE001 - any tool crash is missing evidence for this repository
        return ToolResult.failed(TOOL, f"{target}: {type(exc).__name__}: {exc}")
    depths = [
        int(function.max_nesting_depth)
        for function in info.function_list
        if first <= function.start_line <= last
    ]
    return ToolResult(
        tool=TOOL, values={"max_nesting_depth_new_code": float(max(depths, default=0))}
    )

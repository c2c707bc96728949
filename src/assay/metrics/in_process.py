"""The per-repository tools that run inside a Python process: radon, complexipy and grimp on
every repository, lizard and the new-code count on an after-repository (whose unit knows the new
definition's lines). One dispatch by tool name, used by the engine (all of them in its worker)
and by the naive path (each in a fresh process, ``assay.metrics.single``)."""

from __future__ import annotations

from pathlib import Path

from assay.metrics import complexipy_tool, grimp_tool, lizard_tool, newcode_tool, radon_tool
from assay.metrics.records import ToolResult
from assay.metrics.units import Unit


def tools_for(unit: Unit) -> tuple[str, ...]:
    """The in-process tools that measure ``unit``, in result order."""
    every = (radon_tool.TOOL, complexipy_tool.TOOL, grimp_tool.TOOL)
    if unit.definition_lines is None:
        return every
    return (*every, lizard_tool.TOOL, newcode_tool.TOOL)


def measure(tool: str, unit: Unit, work: Path) -> ToolResult:
    """One in-process tool on one unit (``work``: where grimp stages the repository)."""
    if tool == radon_tool.TOOL:
        return radon_tool.measure(unit.files)
    if tool == complexipy_tool.TOOL:
        return complexipy_tool.measure(unit.files)
    if tool == grimp_tool.TOOL:
        return grimp_tool.measure(unit.files, work / "grimp" / unit.unit_id)
    if unit.definition_lines is not None:
        target_text = unit.files[unit.target]
        if tool == lizard_tool.TOOL:
            return lizard_tool.measure(unit.target, target_text, unit.definition_lines)
        if tool == newcode_tool.TOOL:
            return newcode_tool.measure(target_text, unit.changed_lines)
    raise ValueError(f"{tool!r} is not an in-process tool of unit {unit.unit_id!r}")


def results(unit: Unit, work: Path) -> dict[str, ToolResult]:
    """Every in-process tool's result for one unit."""
    return {tool: measure(tool, unit, work) for tool in tools_for(unit)}

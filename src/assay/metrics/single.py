"""One in-process tool on one repository folder, as a fresh process (the naive path).

``python -m assay.metrics.single TOOL UNIT_JSON FOLDER`` prints the tool's result as JSON.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from assay.metrics import complexipy_tool, grimp_tool, lizard_tool, radon_tool
from assay.metrics.records import ToolResult
from assay.metrics.units import Unit, read_files


def run(tool: str, unit: Unit, folder: Path) -> ToolResult:
    files = read_files(folder)
    if tool == radon_tool.TOOL:
        return radon_tool.measure(files)
    if tool == complexipy_tool.TOOL:
        return complexipy_tool.measure(files)
    if tool == grimp_tool.TOOL:
        with tempfile.TemporaryDirectory(prefix="assay-grimp-") as staging:
            return grimp_tool.measure(files, Path(staging))
    if tool == lizard_tool.TOOL and unit.definition_lines is not None:
        return lizard_tool.measure(unit.target, files[unit.target], unit.definition_lines)
    raise SystemExit(f"unknown tool {tool!r}")


def main(argv: list[str]) -> int:
    tool, unit_json, folder = argv
    unit = Unit.model_validate_json(Path(unit_json).read_bytes())
    sys.stdout.write(run(tool, unit, Path(folder)).model_dump_json())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

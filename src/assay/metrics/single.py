"""One in-process tool on one repository folder, as a fresh process (the naive path).

``python -m assay.metrics.single TOOL UNIT_JSON FOLDER`` prints the tool's result as JSON.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from assay.metrics import in_process
from assay.metrics.records import ToolResult
from assay.metrics.units import Unit, read_files


def run(tool: str, unit: Unit, folder: Path) -> ToolResult:
    """``tool`` on the repository as written to ``folder`` (read back from disk)."""
    written = unit.model_copy(update={"files": read_files(folder)})
    with tempfile.TemporaryDirectory(prefix="assay-single-") as work:
        return in_process.measure(tool, written, Path(work))


def main(argv: list[str]) -> int:
    tool, unit_json, folder = argv
    unit = Unit.model_validate_json(Path(unit_json).read_bytes())
    sys.stdout.write(run(tool, unit, Path(folder)).model_dump_json())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

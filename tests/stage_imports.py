"""What a stage script imports, read by the standard library's ``modulefinder`` (a second reader
of the same bytecode, independent of the grimp graph the code stage derives digests from)."""

from __future__ import annotations

import modulefinder
import os
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@cache
def script_modules(script: Path) -> dict[str, str]:
    """Every ``assay`` module the script can import (module-level, inside functions or under
    ``TYPE_CHECKING``) → its file, relative to the repository root."""
    finder = modulefinder.ModuleFinder(path=[str(ROOT / "src")])
    finder.run_script(str(script))
    return {
        name: os.path.relpath(module.__file__, ROOT)
        for name, module in finder.modules.items()
        if (name == "assay" or name.startswith("assay.")) and module.__file__
    }


def stage_scripts() -> dict[str, Path]:
    """Stage name → its script (``stages/<stage>.py``), the ``code`` stage left out."""
    return {p.stem: p for p in sorted((ROOT / "stages").glob("*.py")) if p.stem != "code"}


def stages_importing(module: str) -> set[str]:
    return {stage for stage, script in stage_scripts().items() if module in script_modules(script)}

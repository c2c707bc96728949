"""ruff: findings under its default rules, and PLR2004 (magic values) counted separately.

One ``ruff check`` process covers many repositories: it is given every unit folder and its
JSON diagnostics are mapped back to units by path. ``--isolated`` ignores any configuration so
the defaults of the pinned version apply; ``--extend-select PLR2004`` adds the magic-value rule
on top of them. A repository ruff cannot parse is missing evidence, not a count.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from assay.metrics.records import ToolResult
from assay.metrics.units import unit_of

TOOL = "ruff"
METRICS = ("findings", "magic_values")
MAGIC_VALUE_RULE = "PLR2004"
RULE_CODE = re.compile(r"^[A-Z]+[0-9]+$")
ARGUMENTS = (
    "check",
    "--isolated",
    "--no-cache",
    "--extend-select",
    MAGIC_VALUE_RULE,
    "--output-format",
    "json",
    "--exit-zero",
)


def ruff_binary() -> str:
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


def run(folders: Sequence[Path]) -> tuple[list[dict[str, object]] | None, str | None]:
    """Diagnostics of one ``ruff check`` over ``folders``, or the reason there are none."""
    try:
        completed = subprocess.run(
            [ruff_binary(), *ARGUMENTS, *map(str, folders)],
            capture_output=True,
            text=True,
            check=False,
        )
    except (OSError, FileNotFoundError) as exc:
        return None, f"ruff could not run: {exc}"
    if completed.returncode != 0:
        return None, f"ruff exit status {completed.returncode}: {completed.stderr.strip()[:300]}"
    try:
        diagnostics = json.loads(completed.stdout or "[]")
    except json.JSONDecodeError as exc:
        return None, f"ruff output is not JSON: {exc}"
    return diagnostics, None


def measure_many(root: Path, unit_ids: Sequence[str]) -> dict[str, ToolResult]:
    """Counts for every unit folder under ``root`` from one ruff process."""
    if not unit_ids:
        return {}
    diagnostics, failure = run([root / unit_id for unit_id in unit_ids])
    if diagnostics is None:
        return {unit_id: ToolResult.failed(TOOL, failure or "ruff failed") for unit_id in unit_ids}
    return interpret(diagnostics, root, unit_ids)


def interpret(
    diagnostics: list[dict[str, object]], root: Path, unit_ids: Sequence[str]
) -> dict[str, ToolResult]:
    findings = dict.fromkeys(unit_ids, 0)
    magic = dict.fromkeys(unit_ids, 0)
    unparseable: dict[str, str] = {}
    for diagnostic in diagnostics:
        unit = unit_of(str(diagnostic.get("filename", "")), root)
        if unit not in findings:
            continue
        code = diagnostic.get("code")
        if not isinstance(code, str) or not RULE_CODE.match(code):
            location = Path(str(diagnostic.get("filename"))).name
            unparseable.setdefault(unit, f"syntax error in {location}: {diagnostic.get('message')}")
        elif code == MAGIC_VALUE_RULE:
            magic[unit] += 1
        else:
            findings[unit] += 1
    return {
        unit_id: (
            ToolResult.failed(TOOL, unparseable[unit_id])
            if unit_id in unparseable
            else ToolResult(
                tool=TOOL,
                values={
                    "findings": float(findings[unit_id]),
                    "magic_values": float(magic[unit_id]),
                },
            )
        )
        for unit_id in unit_ids
    }

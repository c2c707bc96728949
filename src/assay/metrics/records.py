"""Records of the metrics engine: what to measure, what one tool said, and one measurement."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field, field_validator

from assay.core.records import Frozen
from assay.evidence.rows import MetricValues
from assay.fixtures.model import SourceFile


class MeasureItem(Frozen):
    """One output to measure as a change to its arm's repository.

    ``repo_key`` identifies the before-repository (for example the arm digest): items sharing
    it share ``files`` and ``target``, and their "before" is measured once.
    """

    cell_id: str
    repo_key: str
    files: tuple[SourceFile, ...]
    target: str
    candidate: str

    @field_validator("files", mode="before")
    @classmethod
    def _as_source_files(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return tuple(SourceFile(path=path, text=text) for path, text in sorted(value.items()))
        if isinstance(value, (tuple, list)):
            return tuple(
                f if isinstance(f, SourceFile) else SourceFile(path=f.path, text=f.text)
                for f in value
            )
        return value

    def file_map(self) -> dict[str, str]:
        return {f.path: f.text for f in self.files}


class ToolResult(Frozen):
    """What one tool said about one repository: values by metric, or why there are none."""

    tool: str
    values: dict[str, float] = Field(default_factory=dict)
    missing_reason: str | None = None

    @classmethod
    def failed(cls, tool: str, reason: str) -> ToolResult:
        return cls(tool=tool, missing_reason=reason)


class Measurement(MetricValues):
    """One metric of one output, before and after the change (long form: new metrics add rows).

    Keyed by ``cell_id`` alone; the measure stage adds the rest of the cell key to make the
    ``metrics`` table's :class:`~assay.evidence.MetricRow`."""

    cell_id: str


def by_cell(rows: Sequence[Measurement]) -> dict[str, list[Measurement]]:
    """Rows grouped by cell, each cell's rows in their order."""
    grouped: dict[str, list[Measurement]] = {}
    for row in rows:
        grouped.setdefault(row.cell_id, []).append(row)
    return grouped

"""What a bundle publishes: which evidence tables (from ``assay.evidence.TABLES``), and of
each an explicit list of columns.

The published row of a table is derived from the pipeline's row by naming the columns it
keeps, so a column added to the pipeline later (a stdout excerpt, an exception message for
the local cell browser) is left out of every bundle until it is named here. The seed publishes
only exception type names and case indexes of the correctness run: never generated stdout,
stderr, values or exception messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, create_model

from assay import evidence
from assay.core.records import CellKey, Frozen
from assay.evidence import paths

KEY = tuple(CellKey.model_fields)

CORRECTNESS_COLUMNS = (*KEY, "status", "reason", *evidence.PUBLISHED_CASE_COLUMNS, "image")
"""The correctness row as published: outcome, reason, and per case its index, outcome and
exception type name. Nothing the candidate printed or returned."""


def published(row: type[BaseModel], columns: tuple[str, ...], name: str) -> type[BaseModel]:
    """A row with ``columns`` of ``row`` (same types and docs), in that order."""
    fields: dict[str, Any] = {}
    for column in columns:
        field = row.model_fields[column]
        fields[column] = (field.annotation, field)
    return create_model(name, __base__=Frozen, **fields)


PublishedCorrectness = published(
    evidence.CorrectnessRow, CORRECTNESS_COLUMNS, "PublishedCorrectnessRow"
)


@dataclass(frozen=True)
class Table:
    """One Parquet table a bundle carries, at the same place under ``data/`` as the pipeline's."""

    source: evidence.Table
    row: type[BaseModel]
    """The published row: the bundle's columns, in order."""
    schema_name: str
    """The JSON Schema its rows validate against."""

    @property
    def name(self) -> str:
        return self.source.view

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.row.model_fields)

    def _key(self, run: str, scenario: str) -> str:
        return run if self.source.per == "run" else scenario

    def path(self, run: str, scenario: str) -> str:
        """Relative to the bundle: the same place as in the pipeline's repository."""
        return self.source.path(self._key(run, scenario)).as_posix()

    def data_path(self, data: Path, run: str, scenario: str) -> Path:
        """The pipeline's file under the data folder ``data`` (a per-scenario table: as the run
        was sent from it, ``paths.scenario_source``)."""
        if self.source.per == "scenario":
            return paths.scenario_source(self.source.stage, run, scenario, data) / self.source.file
        return self.source.path(self._key(run, scenario), data)


OPERATING, EVIDENCE = "paa-operating-record", "paa-evidence-record"

SHARED_TABLES = (
    Table(evidence.SUBJECTS, evidence.SubjectRow, OPERATING),
    Table(evidence.PROMPTS, evidence.PromptRow, OPERATING),
    Table(evidence.CELLS, evidence.CallRecord, OPERATING),
    Table(evidence.CANDIDATES, evidence.CandidateRow, EVIDENCE),
    Table(evidence.PROMPT_TEXTS, evidence.SentPromptRow, OPERATING),
)
"""Run records both bundles carry (the rendered prompts, every call, every candidate, and the
prompt each call was sent, chain steps included)."""

EVIDENCE_TABLES = {
    "abstraction": (Table(evidence.VERDICTS, evidence.VerdictRow, EVIDENCE),),
    "correctness": (Table(evidence.CORRECTNESS, PublishedCorrectness, EVIDENCE),),
}
"""Each bundle's own evaluator evidence: the abstraction bundle never holds correctness results
and the correctness bundle never holds structural verdicts."""

KINDS = tuple(EVIDENCE_TABLES)

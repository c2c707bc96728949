"""What a bundle publishes: each evidence table as an explicit list of columns.

The published record of a table is derived from the pipeline's record by naming the columns
it keeps, so a column added to the pipeline later (a stdout excerpt, an exception message for
the local cell browser) is left out of every bundle until it is named here. The seed publishes
only exception type names and case indexes of the correctness run: never generated stdout,
stderr, values or exception messages.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, create_model

from assay.execute import CallRecord
from assay.pipeline.extract import CandidateRow
from assay.pipeline.render import PromptRow
from assay.pipeline.structure import VerdictRow
from assay.pipeline.subjects import SubjectRow
from assay.records import CellKey, Frozen
from assay.sandbox.cells import CorrectnessRow

KEY = tuple(CellKey.model_fields)

CORRECTNESS_COLUMNS = (
    *KEY, "status", "reason", "case_indexes", "case_outcomes", "case_exception_types", "image",
)  # fmt: skip
"""The correctness row as published: outcome, reason, and per case its index, outcome and
exception type name. Nothing the candidate printed or returned."""


def published(record: type[Frozen], columns: tuple[str, ...], name: str) -> type[BaseModel]:
    """A record with ``columns`` of ``record`` (same types and docs), in that order."""
    fields: dict[str, Any] = {}
    for column in columns:
        field = record.model_fields[column]
        fields[column] = (field.annotation, field)
    return create_model(name, __base__=Frozen, **fields)  # type: ignore[call-overload, no-any-return]


PublishedCorrectness = published(CorrectnessRow, CORRECTNESS_COLUMNS, "PublishedCorrectnessRow")


class Table(Frozen):
    """One Parquet table a bundle carries: where it lives under ``data/`` and its record."""

    name: str
    folder: str
    """``data/<folder>/<run or scenario>/<file>``."""
    file: str
    per: str
    """``run`` or ``scenario``."""
    record: type[BaseModel]
    schema_name: str
    """The JSON Schema its rows validate against."""

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.record.model_fields)

    def path(self, run: str, scenario: str) -> str:
        return f"data/{self.folder}/{run if self.per == 'run' else scenario}/{self.file}"


def _table(name: str, folder: str, file: str, per: str, record: Any, schema: str) -> Table:
    return Table(name=name, folder=folder, file=file, per=per, record=record, schema_name=schema)


SHARED_TABLES = (
    _table("subjects", "subjects", "subjects.parquet", "scenario", SubjectRow, "paa-operating-record"),
    _table("prompts", "render", "prompts.parquet", "scenario", PromptRow, "paa-operating-record"),
    _table("cells", "execute", "cells.parquet", "run", CallRecord, "paa-operating-record"),
    _table("candidates", "extract", "candidates.parquet", "run", CandidateRow, "paa-evidence-record"),
)  # fmt: skip
"""Run records both bundles carry (the prompts sent, every call, every candidate)."""

EVIDENCE_TABLES = {
    "abstraction": (
        _table("verdicts", "structure", "verdicts.parquet", "run", VerdictRow, "paa-evidence-record"),
    ),
    "correctness": (
        _table("correctness", "correctness", "correctness.parquet", "run", PublishedCorrectness,
               "paa-evidence-record"),
    ),
}  # fmt: skip
"""Each bundle's own evaluator evidence: the abstraction bundle never holds correctness results
and the correctness bundle never holds structural verdicts."""

KINDS = tuple(EVIDENCE_TABLES)

"""The Parquet tables under ``data/``, declared once: view name, stage folder, file name, row
type. ``assay.report.database`` registers one DuckDB view per entry (and ``assay sql`` sees the
same views); the stages write and read the same files through :meth:`Table.path`.

A *required* table exists once ``dvc repro`` has run any scenario; an optional one (a stage a
pipeline may lack) is replaced by an empty table typed from its row when no file exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from assay.core.records import Frozen
from assay.evidence.paths import DATA, stage_file
from assay.evidence.rows import (
    CallRecord,
    CandidateRow,
    CorrectnessRow,
    CorrectnessVersionRow,
    ExtractionVerdictRow,
    MetricRow,
    PlacementRow,
    PromptRow,
    SentPromptRow,
    SubjectRow,
    VerdictRow,
)


@dataclass(frozen=True)
class Table:
    view: str
    """The DuckDB view's name (a noun: ``cells``, ``verdicts``, …)."""
    stage: str
    """The stage folder under ``data/`` that writes it."""
    file: str
    row: type[Frozen]
    per: Literal["scenario", "run"]
    """One file per scenario or per run: ``data/<stage>/<scenario or run>/<file>``."""
    required: bool = True
    select: str = "*"
    where: str | None = None

    def path(self, key: str, data: Path = DATA) -> Path:
        return stage_file(self.stage, key, self.file, data)

    def pattern(self) -> str:
        """The glob, relative to the data folder, matching every scenario's or run's file."""
        return f"{self.stage}/*/{self.file}"


SUBJECTS = Table("subjects", "subjects", "subjects.parquet", SubjectRow, "scenario")
PROMPTS = Table("prompts", "render", "prompts.parquet", PromptRow, "scenario")
CELLS = Table("cells", "execute", "cells.parquet", CallRecord, "run", select="* EXCLUDE (text)")
RESPONSES = Table(
    "responses",
    "execute",
    "cells.parquet",
    CallRecord,
    "run",
    select="run, cell_id, step, response_digest, text",
    where="status = 'completed'",
)
PROMPT_TEXTS = Table(
    "prompt_texts", "execute", "prompts.parquet", SentPromptRow, "run", required=False
)
"""Every prompt a run sent, once per sha256 (``cells.prompt_digest``); view ``sent_prompts``
joins it to the calls."""
CANDIDATES = Table("candidates", "extract", "candidates.parquet", CandidateRow, "run")
VERDICTS = Table("verdicts", "structure", "verdicts.parquet", VerdictRow, "run", required=False)
"""Optional: the correctness export bundle holds no verdicts (see ``assay.export``)."""
CORRECTNESS = Table(
    "correctness", "correctness", "correctness.parquet", CorrectnessRow, "run", required=False
)
METRICS = Table("metrics", "measure", "metrics.parquet", MetricRow, "run", required=False)
CORRECTNESS_PLACEMENTS = Table(
    "correctness_placements",
    "correctness",
    "placements.parquet",
    PlacementRow,
    "run",
    required=False,
)
METRIC_PLACEMENTS = Table(
    "metric_placements", "measure", "placements.parquet", PlacementRow, "run", required=False
)
VERDICT_VERSIONS = Table(
    "verdict_versions", "structure", "versions.parquet", VerdictRow, "run", required=False
)
"""Every registered structural evaluator version's verdicts, side by side (rescoring)."""
CANDIDATE_VERSIONS = Table(
    "candidate_versions", "extract", "versions.parquet", CandidateRow, "run", required=False
)
"""Every registered extraction version's candidates, side by side (re-extraction)."""
EXTRACTION_VERDICTS = Table(
    "extraction_verdicts",
    "structure",
    "extractions.parquet",
    ExtractionVerdictRow,
    "run",
    required=False,
)
"""The verdicts of every extraction version's candidates, under the structural evaluator version
the reports use: what re-extracting a run changes (``assay.report.rescore``)."""
CORRECTNESS_VERSIONS = Table(
    "correctness_versions",
    "correctness-versions",
    "versions.parquet",
    CorrectnessVersionRow,
    "run",
    required=False,
)
"""Correctness rows of every sandbox image/policy version a run was evaluated with (a
persisted output: a re-run with a new image or policy adds rows, never drops earlier ones)."""

TABLES: tuple[Table, ...] = (
    SUBJECTS,
    PROMPTS,
    CELLS,
    RESPONSES,
    PROMPT_TEXTS,
    CANDIDATES,
    VERDICTS,
    CORRECTNESS,
    METRICS,
    CORRECTNESS_PLACEMENTS,
    METRIC_PLACEMENTS,
    VERDICT_VERSIONS,
    CANDIDATE_VERSIONS,
    EXTRACTION_VERDICTS,
    CORRECTNESS_VERSIONS,
)
"""Every Parquet view over ``data/`` (``runs`` is built from the plans; see ``read_runs``)."""

"""The seed's JSON Schemas, generated from the records: ``paa-task``, ``paa-evidence-record``
and ``paa-operating-record``; and ``paa-report``, the report files assay writes.

Each schema is a JSON Schema (draft 2020-12) of the records as they are written (pydantic's
serialization mode, aliases applied), one ``$defs`` entry per record; a record is validated
against its own entry (:func:`first_error`). The committed copies under ``schemas/`` are
regenerated with ``assay schemas write`` and drift-tested. ``records.SCHEMA_VERSION`` is in
every schema's ``$id`` and ``version``, and in every bundle manifest.

- ``paa-task``: a task declaration (helper, hidden vectors, references);
- ``paa-evidence-record``: per-call evaluator evidence (candidates, structural verdicts, the
  published correctness row, code metrics);
- ``paa-operating-record``: what a run did and under which terms (plan, authorization, every
  provider call, ledger lines, image pin, subject digests, prompts, bundle manifests);
- ``paa-report``: the report files: a run's report (``data/report/runs/<run>/<kind>.json``, a
  bundle's ``report/<kind>.json``), its rescoring report (``data/report/rescore/<run>.json``), a
  scenario report, the codebase sets, the duplication cost, a cross-model comparison (``assay
  compare --format json``) and a run's headline (an entry of ``reports/metrics.json``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import BaseModel, TypeAdapter

from assay.core.records import SCHEMA_VERSION

NAMES = ("paa-task", "paa-evidence-record", "paa-operating-record", "paa-report")
SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schemas"
"""The committed copies (in a checkout of the repository)."""


def _members() -> dict[str, tuple[type[BaseModel], ...]]:
    # imported here: the records live across the package, and this module is imported by them
    from assay.evidence import (
        CallRecord,
        CandidateRow,
        ImageRecord,
        MetricRow,
        PromptRow,
        SentPromptRow,
        SubjectRow,
        VerdictRow,
    )
    from assay.export.manifest import BundleManifest, RunManifest
    from assay.export.selection import PublishedCorrectness
    from assay.fixtures.model import Task
    from assay.paid.authorize import Authorization
    from assay.paid.ledger_records import (
        LedgerAuthorization,
        LedgerHalt,
        LedgerHeader,
        LedgerIntent,
        LedgerOutcome,
    )
    from assay.paid.plan import Plan
    from assay.report.codebase_sets import CodebaseSets
    from assay.report.compare import ModelComparison
    from assay.report.costs import Costs
    from assay.report.headline import Headline
    from assay.report.rescore import RescoreReport
    from assay.report.run_records import RunReport
    from assay.report.scenarios import ScenarioReport

    return {
        "paa-task": (Task,),
        "paa-evidence-record": (CandidateRow, VerdictRow, PublishedCorrectness, MetricRow),
        "paa-operating-record": (
            Plan, Authorization, CallRecord, LedgerHeader, LedgerAuthorization, LedgerIntent,
            LedgerOutcome, LedgerHalt, ImageRecord, SubjectRow, PromptRow, SentPromptRow, RunManifest,
            BundleManifest,
        ),
        "paa-report": (
            RunReport, RescoreReport, ScenarioReport, CodebaseSets, Costs, ModelComparison,
            Headline,
        ),
    }  # fmt: skip


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema ``name``, generated from the records now in the code."""
    members = _members()[name]
    union: Any = members[0] if len(members) == 1 else _union(members)
    body = TypeAdapter(union).json_schema(mode="serialization", by_alias=True)
    defs = body.pop("$defs", {})
    if len(members) == 1:
        defs[members[0].__name__] = body
        body = {"$ref": f"#/$defs/{members[0].__name__}"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:assay:schema:{name}:{SCHEMA_VERSION}",
        "title": name,
        "version": SCHEMA_VERSION,
        "description": f"assay {name} records, schema version {SCHEMA_VERSION}; each record "
        "validates against its own entry in $defs.",
        **body,
        "$defs": dict(sorted(defs.items())),
    }


def _union(members: tuple[type[BaseModel], ...]) -> Any:
    from typing import Union

    return Union[members]  # noqa: UP007 - built from a runtime tuple


@cache
def render(name: str) -> str:
    return json.dumps(generate(name), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_all(folder: Path = SCHEMA_DIR) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in NAMES:
        path = folder / f"{name}.json"
        path.write_text(render(name), encoding="utf-8")
        written.append(path)
    return written


@cache
def _validator(schema_text: str, record: str) -> Any:
    schema = json.loads(schema_text)
    if record not in schema.get("$defs", {}):
        raise KeyError(f"{schema.get('title')} defines no record {record!r}")
    entry = {k: v for k, v in schema.items() if k not in ("anyOf", "$ref")}
    entry["$ref"] = f"#/$defs/{record}"
    return jsonschema.validators.validator_for(entry)(entry)


def first_error(name: str, record: str, value: Any, schema_text: str | None = None) -> str | None:
    """The first way ``value`` breaks record ``record`` (a ``$defs`` entry, by class name) of
    schema ``name`` — the one generated now, or the one in ``schema_text`` (a bundle's copy)."""
    validator = _validator(render(name) if schema_text is None else schema_text, record)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "<record>"
    return f"{where}: {error.message[:200]}"

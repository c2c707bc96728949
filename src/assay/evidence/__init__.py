"""The evidence contract: everything the stages write under ``data/``, declared once.

``data/<stage>/<scenario or run>/<file>``, one folder per DVC stage (dvc.yaml declares the same
folders as outputs). This package is the only Python that knows the layout:

- :mod:`~assay.evidence.paths`: where each JSON artefact lives;
- :mod:`~assay.evidence.rows`: every row type of a Parquet table (one per table);
- :mod:`~assay.evidence.plan`: the plan and the analysis it preregisters;
- :mod:`~assay.evidence.documents`: the image record, the self-test report, the authorization;
- :mod:`~assay.evidence.catalog`: ``TABLES`` (view, stage folder, file, row type), from which
  the report and ``assay sql`` register their DuckDB views;
- :mod:`~assay.evidence.files`: one reader and one writer per artefact.

Use it as ``from assay import evidence`` (``evidence.read_plan(run)``,
``evidence.write_table(evidence.VERDICTS, run, rows)``). Stage modules in ``assay.pipeline``
read their inputs from here, never from each other.

Names load on first use (as in ``assay.sandbox``), so a module that needs only a path, such as
``assay.evidence.paths`` for a command's ``--data`` default, does not import pyarrow and pydantic.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.evidence.catalog import (
        CANDIDATES,
        CELLS,
        CORRECTNESS,
        CORRECTNESS_PLACEMENTS,
        CORRECTNESS_VERSIONS,
        METRIC_PLACEMENTS,
        METRICS,
        PROMPTS,
        RESPONSES,
        SUBJECTS,
        TABLES,
        VERDICT_VERSIONS,
        VERDICTS,
        Table,
        candidates_table,
        cells_table,
        correctness_table,
        metrics_table,
        prompts_table,
        subjects_table,
        verdicts_table,
    )
    from assay.evidence.documents import (
        Authorization,
        AuthorizationState,
        ImageKind,
        ImageRecord,
        Implementation,
        KnownAnswerFailure,
        KnownAnswersReport,
        ScenarioSelfTest,
        SelfTestFailure,
        SelfTestReport,
    )
    from assay.evidence.files import (
        is_simulated,
        load_image_record,
        read_authorization,
        read_calls,
        read_candidates,
        read_image,
        read_json,
        read_plan,
        read_prompt_rows,
        read_prompts,
        read_rows,
        read_runs,
        read_scenario,
        read_scenario_file,
        read_selftest,
        read_sources_digest,
        read_table,
        write_authorization,
        write_image_record,
        write_json,
        write_plan,
        write_provenance,
        write_scenario,
        write_selftest,
        write_sources,
        write_table,
    )
    from assay.evidence.paths import (
        DATA,
        TRACKED_RESULTS,
        authorization_file,
        export_dir,
        image_archive,
        image_record,
        plan_file,
        plan_hash_file,
        provenance_file,
        realised_scenarios,
        report_dir,
        scenario_file,
        selftest_file,
        snapshot_dir,
        sources_file,
        stage_file,
    )
    from assay.evidence.plan import (
        AnalysisPlan,
        Budget,
        Plan,
        PlannedCell,
        PromptRef,
        load_plan,
    )
    from assay.evidence.rows import (
        UNPUBLISHED_COLUMNS,
        CallRecord,
        CandidateRow,
        CorrectnessRow,
        CorrectnessVersionRow,
        MetricRow,
        PlacementRow,
        PromptRow,
        RunRow,
        SubjectRow,
        VerdictRow,
    )

_MODULES = {
    "catalog": (
        "CANDIDATES",
        "CELLS",
        "CORRECTNESS",
        "CORRECTNESS_PLACEMENTS",
        "CORRECTNESS_VERSIONS",
        "METRICS",
        "METRIC_PLACEMENTS",
        "PROMPTS",
        "RESPONSES",
        "SUBJECTS",
        "TABLES",
        "Table",
        "VERDICTS",
        "VERDICT_VERSIONS",
        "candidates_table",
        "cells_table",
        "correctness_table",
        "metrics_table",
        "prompts_table",
        "subjects_table",
        "verdicts_table",
    ),
    "documents": (
        "Authorization",
        "AuthorizationState",
        "ImageKind",
        "ImageRecord",
        "Implementation",
        "KnownAnswerFailure",
        "KnownAnswersReport",
        "ScenarioSelfTest",
        "SelfTestFailure",
        "SelfTestReport",
    ),
    "files": (
        "is_simulated",
        "load_image_record",
        "read_authorization",
        "read_calls",
        "read_candidates",
        "read_image",
        "read_json",
        "read_plan",
        "read_prompt_rows",
        "read_prompts",
        "read_rows",
        "read_runs",
        "read_scenario",
        "read_scenario_file",
        "read_selftest",
        "read_sources_digest",
        "read_table",
        "write_authorization",
        "write_image_record",
        "write_json",
        "write_plan",
        "write_provenance",
        "write_scenario",
        "write_selftest",
        "write_sources",
        "write_table",
    ),
    "paths": (
        "DATA",
        "TRACKED_RESULTS",
        "authorization_file",
        "image_archive",
        "image_record",
        "plan_file",
        "plan_hash_file",
        "provenance_file",
        "realised_scenarios",
        "export_dir",
        "report_dir",
        "scenario_file",
        "selftest_file",
        "snapshot_dir",
        "sources_file",
        "stage_file",
    ),
    "plan": (
        "AnalysisPlan",
        "Budget",
        "Plan",
        "PlannedCell",
        "PromptRef",
        "load_plan",
    ),
    "rows": (
        "CallRecord",
        "CandidateRow",
        "CorrectnessRow",
        "CorrectnessVersionRow",
        "MetricRow",
        "PlacementRow",
        "PromptRow",
        "RunRow",
        "SubjectRow",
        "UNPUBLISHED_COLUMNS",
        "VerdictRow",
    ),
}
"""Each submodule and the names this package exports from it."""

_EXPORTS = {
    name: f"assay.evidence.{module}" for module, names in _MODULES.items() for name in names
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value  # once: later lookups do not come back here
        return value
    raise AttributeError(f"module 'assay.evidence' has no attribute {name!r}")

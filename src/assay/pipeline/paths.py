"""Where each stage writes: ``data/<stage>/<scenario or run>/…``. One place, so stages, the
CLI and the SQL views agree."""

from __future__ import annotations

from pathlib import Path

DATA = Path("data")


def scenario_file(scenario: str) -> Path:
    return DATA / "subjects" / scenario / "scenario.json"


def sources_file(scenario: str) -> Path:
    return DATA / "subjects" / scenario / "sources.json"


def subjects_table(scenario: str) -> Path:
    return DATA / "subjects" / scenario / "subjects.parquet"


def prompts_table(scenario: str) -> Path:
    return DATA / "render" / scenario / "prompts.parquet"


def plan_file(run: str) -> Path:
    return DATA / "plan" / run / "plan.json"


def authorization_file(run: str) -> Path:
    return DATA / "authorize" / run / "authorization.json"


def cells_table(run: str) -> Path:
    return DATA / "execute" / run / "cells.parquet"


def candidates_table(run: str) -> Path:
    return DATA / "extract" / run / "candidates.parquet"


def verdicts_table(run: str) -> Path:
    return DATA / "structure" / run / "verdicts.parquet"


def verdict_versions_table(run: str) -> Path:
    """Every registered structural evaluator version's verdicts, side by side."""
    return DATA / "structure" / run / "versions.parquet"


def image_record(kind: str = "standard") -> Path:
    return DATA / "image" / f"{kind}.json"


def selftest_file(scenario: str) -> Path:
    return DATA / "selftest" / scenario / "selftest.json"


def correctness_table(run: str) -> Path:
    return DATA / "correctness" / run / "correctness.parquet"


def correctness_version_table(run: str, image: str, policy: str) -> Path:
    """One image/policy version's correctness rows, kept when another version re-runs the
    stage (a persisted output)."""
    short = image.removeprefix("sha256:")[:12]
    return DATA / "correctness-versions" / run / f"image-{short}-policy-{policy}.parquet"


def metrics_table(run: str) -> Path:
    return DATA / "measure" / run / "metrics.parquet"


def report_dir() -> Path:
    return DATA / "report"


TRACKED_RESULTS = Path("reports")
"""Small, git-tracked results (metrics and plot data) that `dvc exp show` reads per revision."""

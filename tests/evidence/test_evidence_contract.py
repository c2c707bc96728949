"""The evidence contract: TABLES agree with dvc.yaml's outputs, readers name the missing file,
and the runs view is read through the plan and authorization models."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay import evidence
from assay.errors import EvidenceError, MissingEvidence
from assay.tables import schema_for
from tests.dvc_stages import stage_bodies


def _declared_outs() -> set[str]:
    outs: set[str] = set()
    for body in stage_bodies().values():
        for out in body.get("outs", []):
            outs.add(next(iter(out)) if isinstance(out, dict) else out)
    return outs


@pytest.mark.parametrize("table", evidence.TABLES, ids=lambda t: t.view)
def test_every_table_lives_in_a_declared_stage_output(table: evidence.Table) -> None:
    key = "${item}" if table.per == "scenario" else "${key}"
    # one stage per scenario or run, or one stage for all (subjects, render)
    assert {f"data/{table.stage}/{key}", f"data/{table.stage}"} & _declared_outs()
    assert table.path("x") == Path("data", table.stage, "x", table.file)
    schema_for(table.row)  # every row type has an Arrow schema


def test_view_names_are_unique() -> None:
    views = [t.view for t in evidence.TABLES]
    assert len(views) == len(set(views))


def test_missing_artefacts_name_their_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MissingEvidence, match=r"data/plan/r1/plan\.json is missing"):
        evidence.read_plan("r1")
    with pytest.raises(MissingEvidence, match=r"data/extract/r1/candidates\.parquet is missing"):
        evidence.read_candidates("r1")
    with pytest.raises(MissingEvidence, match="dvc repro pipeline/image/dvc.yaml"):
        evidence.read_image()


def test_a_garbled_artefact_is_an_evidence_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = evidence.authorization_file("r1")
    path.parent.mkdir(parents=True)
    path.write_text('{"run": "r1"}', encoding="utf-8")
    with pytest.raises(EvidenceError, match="authorization.json is not a valid Authorization"):
        evidence.read_authorization("r1")

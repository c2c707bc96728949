"""Export bundles through real `dvc repro`, verified offline; every kind of file tampered with.

The shared study run (tests/study.py) serves every test here: its `export` stage exported each
simulated run. Tamper tests work on copies of one run's bundles.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from assay.export import manifest as mf
from assay.export.build import BESIDE_THE_BUNDLE, ExportError, export_run
from assay.export.verify import verify_bundle
from assay.report.primary import report_json
from assay.report.run_records import RunReport
from tests.conftest import BIN, stages_ran
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUN = "sim-follower-v1"


@pytest.fixture(scope="module")
def pipeline(study: Study, tmp_path_factory):
    """The shared study's repository (read only: tests/study.py) and a pristine copy of the
    export of one of its runs."""
    assert f"export@{RUN}" in stages_ran(study.output)
    pristine = tmp_path_factory.mktemp("pristine") / "bundles"
    shutil.copytree(study.repo.path / "data" / "export" / RUN, pristine)
    return study.repo, pristine


@pytest.fixture
def bundles(pipeline, tmp_path):
    copy = tmp_path / "bundles"
    shutil.copytree(pipeline[1], copy)
    return copy


def _assay(repo, *args, check=True):
    return repo.run(str(BIN / "python"), "-m", "assay.cli", *args, check=check)


def test_export_stage_writes_both_bundles_that_verify_offline_elsewhere(pipeline, tmp_path):
    repo, pristine = pipeline
    moved = tmp_path / "elsewhere" / "bundles"
    shutil.copytree(pristine, moved)  # a moved folder: nothing refers back to data/
    env = {**repo.env, "DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    checked = subprocess.run(
        ["unshare", "-n", str(BIN / "python"), "-m", "assay.cli", "verify", str(moved)],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=False, timeout=300,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines() == [
        f"{moved / 'abstraction'}: verified",
        f"{moved / 'correctness'}: verified",
    ]

    abstraction, correctness = moved / "abstraction", moved / "correctness"
    assert (abstraction / mf.RUN_MANIFEST).read_bytes() == (
        correctness / mf.RUN_MANIFEST
    ).read_bytes(), "the two bundles must close over the same run manifest"
    assert list(abstraction.rglob("verdicts.parquet")) and not list(
        abstraction.rglob("correctness.parquet")
    )
    assert list(correctness.rglob("correctness.parquet")) and not list(
        correctness.rglob("verdicts.parquet")
    )
    for bundle, kind in ((abstraction, "abstraction"), (correctness, "correctness")):
        pipeline_report = json.loads(repo.read(f"data/report/runs/{RUN}/{kind}.json"))
        for section in BESIDE_THE_BUNDLE:  # built from evidence no bundle holds
            pipeline_report.pop(section, None)
        assert (bundle / "report" / f"{kind}.json").read_bytes() == report_json(
            RunReport.model_validate(pipeline_report)
        ).encode()
    manifest = json.loads((abstraction / mf.RUN_MANIFEST).read_text())
    listed = {entry["path"] for entry in manifest["files"]}
    assert "ledger/ledger.jsonl" in listed and any(p.startswith("ledger/objects/") for p in listed)
    assert manifest["simulated"] is True and manifest["extraction_versions"] == [3]
    assert "SIMULATED MODEL" in (abstraction / "report" / "abstraction.md").read_text()


def test_verify_a_single_bundle_by_path(pipeline, bundles):
    repo, _ = pipeline
    result = _assay(repo, "verify", str(bundles / "correctness"))
    assert result.stdout == "verified\n"


def test_export_refuses_a_destination_that_is_not_new_and_empty(pipeline, tmp_path):
    repo, _ = pipeline
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("mine")
    refused = _assay(repo, "export", RUN, str(occupied), check=False)
    assert refused.returncode == 2 and "not empty" in refused.stderr
    assert [p.name for p in occupied.iterdir()] == ["notes.txt"]

    empty = tmp_path / "empty"
    empty.mkdir()
    made = _assay(repo, "export", RUN, str(empty))
    assert "run manifest sha256" in made.stdout
    assert sorted(p.name for p in empty.iterdir()) == ["abstraction", "correctness"]
    again = _assay(repo, "export", RUN, str(empty), check=False)
    assert again.returncode == 2 and "not empty" in again.stderr
    assert _assay(repo, "verify", str(empty)).returncode == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "staging left behind"


KINDS_OF_FILE = {
    "abstraction": ("bundle.json", "manifest.json", "plan.json", "plan.sha256",
                    "authorization.json", "sources.json", "standard.json", "subjects.parquet",
                    "prompts.parquet", "cells.parquet", "candidates.parquet", "verdicts.parquet",
                    "ledger.jsonl", "paa-task.json", "abstraction.json", "abstraction.md"),
    "correctness": ("correctness.parquet", "correctness.json", "correctness.md"),
}  # fmt: skip


@pytest.mark.parametrize("kind", ["abstraction", "correctness"])
def test_one_flipped_byte_in_any_file_is_named(bundles, kind):
    bundle = bundles / kind
    files = sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*") if p.is_file())
    names = {Path(f).name for f in files}
    assert set(KINDS_OF_FILE[kind]) <= names
    assert any(f.startswith("ledger/objects/") for f in files), "response bodies"
    for relative in files:
        path = bundle / relative
        original = path.read_bytes()
        flipped = bytearray(original)
        flipped[len(flipped) // 2] ^= 0x01
        path.write_bytes(bytes(flipped))
        result = verify_bundle(bundle)
        assert not result.verified and result.path == relative, (relative, result.line())
        path.write_bytes(original)
    assert verify_bundle(bundle).verified


def test_missing_and_extra_files_are_named(bundles):
    bundle = bundles / "abstraction"
    (bundle / "notes.txt").write_text("added")
    assert verify_bundle(bundle).line() == "notes.txt: not listed in the bundle's manifests"
    (bundle / "notes.txt").unlink()
    verdicts = bundle / "data" / "structure" / RUN / "verdicts.parquet"
    verdicts.unlink()
    assert verify_bundle(bundle).path == f"data/structure/{RUN}/verdicts.parquet"


def _reseal(bundle: Path) -> None:
    """Update every digest after an edit, as a careful forger would."""
    run_manifest = mf.RunManifest.model_validate_json((bundle / mf.RUN_MANIFEST).read_bytes())
    own = mf.BundleManifest.model_validate_json((bundle / mf.BUNDLE_MANIFEST).read_bytes())

    def refreshed(entries):
        return tuple(mf.entry(e.path, (bundle / e.path).read_bytes()) for e in entries)

    run_manifest = mf.seal(run_manifest.model_copy(update={"files": refreshed(run_manifest.files)}))
    (bundle / mf.RUN_MANIFEST).write_bytes(mf.dump(run_manifest))
    from assay.core.digest import sha256_hex

    own = mf.seal(
        own.model_copy(
            update={
                "files": refreshed(own.files),
                "run_manifest_sha256": sha256_hex(mf.dump(run_manifest)),
            }
        )
    )
    (bundle / mf.BUNDLE_MANIFEST).write_bytes(mf.dump(own))


def _rewrite(path: Path, change) -> None:
    table = pq.read_table(path)
    rows = [change(row) for row in table.to_pylist()]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)


def test_a_resealed_change_of_a_verdict_is_caught_by_scoring_again(bundles):
    bundle = bundles / "abstraction"
    flipped = {"reused": "duplicated", "duplicated": "reused", "mixed": "reused"}
    _rewrite(
        bundle / "data" / "structure" / RUN / "verdicts.parquet",
        lambda row: {**row, "verdict": flipped.get(row["verdict"], row["verdict"])},
    )
    _reseal(bundle)
    result = verify_bundle(bundle)
    assert result.path == f"data/structure/{RUN}/verdicts.parquet", result.line()
    assert "not what evaluator v7 gives" in result.reason


def test_a_resealed_change_of_a_correctness_result_is_caught_by_recomputing_the_report(bundles):
    bundle = bundles / "correctness"
    flipped = {"correct": "incorrect", "incorrect": "correct"}
    _rewrite(
        bundle / "data" / "correctness" / RUN / "correctness.parquet",
        lambda row: {**row, "status": flipped.get(row["status"], row["status"])},
    )
    _reseal(bundle)
    result = verify_bundle(bundle)
    assert result.path == "report/correctness.json", result.line()
    assert "recomputed from the bundle" in result.reason


def test_a_resealed_edit_of_the_report_is_caught(bundles):
    bundle = bundles / "abstraction"
    path = bundle / "report" / "abstraction.md"
    path.write_text(path.read_text().replace("| clean |", "| inconsistent |", 1))
    _reseal(bundle)
    assert verify_bundle(bundle).path == "report/abstraction.md"


def test_a_resealed_change_of_a_candidate_is_caught_by_re_extracting(bundles):
    bundle = bundles / "correctness"
    _rewrite(
        bundle / "data" / "extract" / RUN / "candidates.parquet",
        lambda row: {**row, "source": (row["source"] or "") + "# edited\n"},
    )
    _reseal(bundle)
    result = verify_bundle(bundle)
    assert result.path == f"data/extract/{RUN}/candidates.parquet", result.line()
    assert "extraction v3" in result.reason


def test_a_resealed_change_of_a_response_text_is_caught_against_the_ledger(bundles):
    bundle = bundles / "abstraction"
    _rewrite(
        bundle / "data" / "execute" / RUN / "cells.parquet",
        lambda row: {**row, "text": (row["text"] or "") + " "},
    )
    _reseal(bundle)
    result = verify_bundle(bundle)
    assert result.path == f"data/execute/{RUN}/cells.parquet", result.line()


def test_columns_not_published_never_reach_the_correctness_bundle(pipeline, tmp_path):
    """A correctness column added later for the local browser (stdout, values, messages) is
    left out of the bundle: the bundle publishes a named column list."""
    repo, _ = pipeline
    data = tmp_path / "data"
    shutil.copytree(repo.path / "data", data, ignore=shutil.ignore_patterns("export"))
    table = data / "correctness" / RUN / "correctness.parquet"
    arrow = pq.read_table(table)
    secret = pa.array(["SECRET-STDOUT"] * arrow.num_rows)
    pq.write_table(arrow.append_column("stdout", secret), table)
    export_run(RUN, data, repo.path / "ledger", tmp_path / "out")
    bundle = tmp_path / "out" / "correctness"
    assert verify_bundle(bundle).verified
    for path in bundle.rglob("*"):
        if path.is_file():
            assert b"SECRET-STDOUT" not in path.read_bytes(), path
    columns = pq.read_table(bundle / "data" / "correctness" / RUN / "correctness.parquet")
    assert "stdout" not in columns.column_names


def test_run_records_checked_in_one_bundle_are_checked_again_in_the_other_when_they_differ(
    bundles,
):
    """One export verifies its two bundles sharing what it checked against a schema (the run
    records both carry, byte for byte); a shared table changed in the second is checked again."""
    validated: set[tuple[str, str, str]] = set()
    assert verify_bundle(bundles / "abstraction", validated).verified
    assert validated, "the run records were checked against their schemas"
    assert verify_bundle(bundles / "correctness", validated).verified
    bundle = bundles / "correctness"
    _rewrite(
        bundle / "data" / "extract" / RUN / "candidates.parquet",
        lambda row: {**row, "extract_status": "brilliant"},
    )
    _reseal(bundle)
    result = verify_bundle(bundle, validated)
    assert result.path == f"data/extract/{RUN}/candidates.parquet", result.line()
    assert "row 0" in result.reason


def test_export_refuses_records_that_break_their_schema(pipeline, tmp_path):
    repo, _ = pipeline
    data = tmp_path / "data"
    shutil.copytree(repo.path / "data", data, ignore=shutil.ignore_patterns("export"))
    _rewrite(
        data / "structure" / RUN / "verdicts.parquet",
        lambda row: {**row, "verdict": "brilliant"},
    )
    with pytest.raises(ExportError, match=r"verdicts.parquet: row 0 is not a valid VerdictRow"):
        export_run(RUN, data, repo.path / "ledger", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_changing_the_extraction_version_re_extracts_without_executing(v1_copy):
    """Through real `dvc repro` in a moved copy of a repository (the whole v1 run: one run to
    re-extract, not the study's 27): extract and what reads candidates re-run, execute never; the
    report and the bundles say which rules were used."""
    repo = v1_copy
    intents = (repo.path / "ledger").rglob("ledger.jsonl")
    before = sum(p.read_text().count('"type":"intent"') for p in intents)
    params = yaml.safe_load(repo.read("params.yaml"))
    params["evaluators"]["extraction"] = 1
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))

    output = repo.dvc("repro", timeout=1800).stdout
    for stage in ("extract", "structure", "correctness", "export"):
        assert f"{stage}@{RUN}" in stages_ran(output), stage
    for stage in ("plan", "authorize", "execute"):
        assert f"{stage}@{RUN}" not in stages_ran(output), stage
    intents = (repo.path / "ledger").rglob("ledger.jsonl")
    assert sum(p.read_text().count('"type":"intent"') for p in intents) == before
    report = repo.read(f"data/report/runs/{RUN}/abstraction.md")
    assert "candidates extracted with rules v1; the plan preregistered v3" in report
    bundles = repo.path / "data" / "export" / RUN
    manifest = json.loads((bundles / "abstraction" / mf.RUN_MANIFEST).read_text())
    assert manifest["extraction_versions"] == [1]
    assert _assay(repo, "verify", str(bundles)).returncode == 0


def test_calls_checked_in_one_bundle_are_checked_again_in_the_other_when_they_differ(bundles):
    """The prompts, responses and re-extraction are checked once per run manifest: a candidate
    changed in the second bundle (resealed, so its run manifest differs) is re-extracted."""
    validated: set[tuple[str, str, str]] = set()
    assert verify_bundle(bundles / "abstraction", validated).verified
    assert any(entry[2] == "calls-and-candidates" for entry in validated)
    bundle = bundles / "correctness"
    _rewrite(
        bundle / "data" / "extract" / RUN / "candidates.parquet",
        lambda row: {**row, "source": (row["source"] or "") + "# edited\n"},
    )
    _reseal(bundle)
    result = verify_bundle(bundle, validated)
    assert result.path == f"data/extract/{RUN}/candidates.parquet", result.line()
    assert "extraction v3" in result.reason

"""The paa-* JSON Schemas: committed copies match the records, and they accept what assay
writes and refuse what it never would."""

import json
from pathlib import Path

import pytest

from assay.core.records import SCHEMA_VERSION
from assay.export import schemas
from assay.fixtures.scenarios import load_scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", schemas.NAMES)
def test_committed_schema_is_what_the_records_generate(name):
    committed = (ROOT / "schemas" / f"{name}.json").read_text(encoding="utf-8")
    assert committed == schemas.render(name), (
        f"schemas/{name}.json drifted from the records: run `assay schemas write`"
    )


def test_writing_regenerates_identical_files(tmp_path):
    for path in schemas.write_all(tmp_path):
        assert path.read_bytes() == (ROOT / "schemas" / path.name).read_bytes()


@pytest.mark.parametrize("name", schemas.NAMES)
def test_schema_version_is_stated(name):
    document = json.loads(schemas.render(name))
    assert document["version"] == SCHEMA_VERSION
    assert document["$id"].endswith(f":{name}:{SCHEMA_VERSION}")


@pytest.mark.parametrize("scenario", ["v1", "dose", "placement", "chain"])
def test_every_fixture_task_is_a_paa_task(scenario):
    loaded = load_scenario(scenario, ROOT / "fixtures")
    for subject in loaded.subjects:
        task = subject.task.model_dump(mode="json")
        assert schemas.first_error("paa-task", "Task", task) is None, subject.id


VERDICT = {"run": "r", "cell_id": "s/clean/r1", "subject": "s", "arm": "clean", "repeat": 1,
           "step": 1, "verdict": "reused", "reason": "helper-called", "evaluator_version": 7}  # fmt: skip


def test_evidence_record_accepts_a_verdict_and_names_what_breaks_it():
    assert schemas.first_error("paa-evidence-record", "VerdictRow", VERDICT) is None
    broken = {**VERDICT, "verdict": "great"}
    assert schemas.first_error("paa-evidence-record", "VerdictRow", broken).startswith("verdict:")
    extra = {**VERDICT, "hint": "x"}
    assert schemas.first_error("paa-evidence-record", "VerdictRow", extra) is not None
    missing = {k: v for k, v in VERDICT.items() if k != "cell_id"}
    assert "cell_id" in schemas.first_error("paa-evidence-record", "VerdictRow", missing)


def test_published_correctness_row_has_no_output_columns():
    definition = json.loads(schemas.render("paa-evidence-record"))["$defs"]
    columns = set(definition["PublishedCorrectnessRow"]["properties"])
    assert columns.isdisjoint({"stdout", "stderr", "values", "message", "exception_messages"})
    assert {"case_indexes", "case_exception_types", "status"} <= columns


def test_operating_record_covers_ledger_lines():
    intent = {"type": "intent", "key": "s/clean/r1#1", "request_digest": "a" * 64,
              "reservation_nano_usd": 60_000_000, "at": 1.5}  # fmt: skip
    assert schemas.first_error("paa-operating-record", "LedgerIntent", intent) is None
    negative = {**intent, "reservation_nano_usd": -1}
    assert schemas.first_error("paa-operating-record", "LedgerIntent", negative) is not None


def test_ledger_outcome_holds_the_provider_result_but_its_body_and_text():
    from assay.paid.ledger_records import LedgerOutcome
    from assay.providers.base import ProviderResult

    stored_apart = {"raw", "text"}
    added = {"type", "key", "response_digest", "text_digest", "at"}
    assert (
        set(LedgerOutcome.model_fields) == set(ProviderResult.model_fields) - stored_apart | added
    )


@pytest.mark.parametrize("name", schemas.NAMES)
def test_schema_is_valid_draft_2020_12(name):
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(json.loads(schemas.render(name)))

"""The ``inspect_logs`` stage in the shared study (tests/study.py): every declared run has an
Inspect eval log that ``inspect_ai.log.read_eval_log`` reads, with one sample per planned cell
and both scores; the prompt as the provider received it and the answer as recorded; the same
evidence written again gives the same bytes; ``samples_df`` over the logs gives one row per
cell; simulated runs say so; nothing unpublished is in a log."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.analysis import samples_df
from inspect_ai.log import EvalLog, read_eval_log

from assay.core.digest import sha256_hex
from assay.core.tables import read_records
from assay.evidence import CELLS, CallRecord, SentPromptRow, inspect_logs_dir, read_plan
from assay.evidence.rows import LOCAL_CASE_COLUMNS
from assay.pipeline.inspect_logs import write_logs
from assay.providers.factory import request_messages
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

REAL_RUN = "qwen-bank-new"
"""The study's real model (Qwen2.5-Coder-1.5B, chat with the answer prefilled)."""


def logs_of(study: Study) -> dict[str, tuple[Path, EvalLog]]:
    """Each run's log, by the run its metadata names."""
    found = {}
    for path in sorted((study.repo.path / inspect_logs_dir()).iterdir()):
        log = read_eval_log(str(path))
        found[log.eval.metadata["run"]] = (path, log)  # type: ignore[index]
    return found


def test_every_run_has_a_log_with_one_sample_per_cell_and_both_scores(study: Study) -> None:
    data = study.repo.path / "data"
    logs = logs_of(study)
    assert sorted(logs) == sorted(study.params["runs"])
    assert len(list((study.repo.path / inspect_logs_dir()).iterdir())) == len(logs)
    for run, (path, log) in logs.items():
        plan = read_plan(run, data)
        assert path.suffix == ".json" and f"_{run}_" in path.name
        assert log.samples is not None
        assert [(s.id, s.epoch) for s in log.samples] == sorted(
            ((c.prompt_digest, c.repeat) for c in plan.cells), key=lambda k: (k[1], k[0])
        ), run
        for sample in log.samples:
            assert sample.scores is not None and set(sample.scores) == {
                "structure", "correctness"
            }, (run, sample.id)  # fmt: skip
        assert log.results is not None
        assert log.results.scores[0].name == "structure"


def test_a_real_run_s_sample_holds_the_messages_as_sent_and_the_answer_as_recorded(
    study: Study,
) -> None:
    data = study.repo.path / "data"
    _, log = logs_of(study)[REAL_RUN]
    plan = read_plan(REAL_RUN, data)
    assert plan.model.local is not None and plan.model.local.answer_prefix
    prompts = {
        p.prompt_digest: p.prompt
        for p in read_records(data / "execute" / REAL_RUN / "prompts.parquet", SentPromptRow)
    }
    calls = {c.cell_id: c for c in read_records(CELLS.path(REAL_RUN, data), CallRecord)}
    assert log.samples is not None and log.samples
    for sample in log.samples:
        call = calls[sample.metadata["cell_id"]]
        assert call.status == "completed" and call.prompt_digest is not None
        sent = request_messages(plan.model, prompts[call.prompt_digest])
        assert not isinstance(sample.input, str)
        assert [{"role": m.role, "content": m.text} for m in sample.input] == sent
        assert sent[-1] == {"role": "assistant", "content": plan.model.local.answer_prefix}
        assert sample.output.completion == call.text
        assert sample.metadata["response_digest"] == call.response_digest
        assert sample.metadata["prompting_mode"].startswith("chat, answer prefilled")
        assert sample.metadata["simulated"] is False
        assert sample.started_at is not None and sample.completed_at is not None
    assert log.status == "success"
    assert log.eval.task == f"assay/{study.params['runs'][REAL_RUN]['scenario']}"
    assert log.eval.model == f"local/{plan.model.model}"


def test_simulated_runs_say_so_and_an_unauthorized_run_is_cancelled(study: Study) -> None:
    for run, (_, log) in logs_of(study).items():
        simulated = run.startswith("sim-")
        assert log.eval.metadata is not None and log.eval.metadata["simulated"] is simulated
        assert ("[SIMULATED MODEL]" in log.eval.task) is simulated
        if run.startswith("haiku-"):
            assert log.status == "cancelled"
            assert log.eval.metadata["stopped"].startswith("nothing was sent")
            # never sent: each sample shows the request its plan would send
            for sample in log.samples or []:
                assert not isinstance(sample.input, str) and sample.input
                assert sha256_hex(sample.input[0].text.encode()) == sample.id


def test_no_log_carries_an_unpublished_case_column(study: Study) -> None:
    for path, log in logs_of(study).values():
        text = path.read_text(encoding="utf-8")
        assert not any(f'"{column}"' in text for column in LOCAL_CASE_COLUMNS), path.name
        for sample in log.samples or []:
            correctness = (sample.scores or {})["correctness"].metadata or {}
            for detail in correctness.get("steps", [correctness]):
                for case in detail["cases"]:
                    assert set(case) == {"index", "outcome", "exception_type"}


def test_the_same_evidence_writes_the_same_bytes(study: Study, tmp_path: Path) -> None:
    root = study.repo.path
    runs = tuple(study.params["runs"])
    written = write_logs(root / "data", root / study.params["ledger_root"], runs, tmp_path)
    stage = sorted((root / inspect_logs_dir()).iterdir())
    assert [p.name for p in sorted(written)] == [p.name for p in stage]
    for again, first in zip(sorted(written), stage, strict=True):
        assert again.read_bytes() == first.read_bytes(), first.name


def test_samples_df_gives_one_row_per_cell(study: Study) -> None:
    data = study.repo.path / "data"
    frame = samples_df(str(study.repo.path / inspect_logs_dir()))
    cells = sum(len(read_plan(run, data).cells) for run in study.params["runs"])
    assert len(frame) == cells
    keys = frame[["eval_id", "id", "epoch"]].astype(str).agg("/".join, axis=1)
    assert keys.is_unique
    metadata = frame["metadata_run"].value_counts().to_dict()
    assert metadata == {run: len(read_plan(run, data).cells) for run in study.params["runs"]}

"""A run as an Inspect eval log (assay.inspect.logs), from hand-built evidence: one sample per
cell with the prompt as sent and the answer as recorded, both scores with only what the page
publishes, the reuse rate per arm, the run's status, simulated runs labelled, and the same
evidence written twice giving the same bytes, which inspect_ai reads back."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.analysis import samples_df
from inspect_ai.log import read_eval_log

from assay.inspect.logs import eval_log, log_file_name, write_log
from tests.inspect.evidence import BEGAN, Call, run_evidence

V1 = {
    "alpha/clean/r1": [Call()],
    "alpha/clean/r2": [Call()],
    "alpha/inconsistent/r1": [Call(verdict="duplicated", correctness="incorrect")],
    "alpha/inconsistent/r2": [Call()],
    "beta/clean/r1": [Call(verdict="ambiguous")],
}


def test_one_sample_per_cell_its_id_the_first_prompt_and_its_epoch_the_repeat() -> None:
    evidence = run_evidence(V1)
    log = eval_log(evidence)
    assert log.samples is not None and len(log.samples) == len(V1)
    for sample, cell in zip(log.samples, evidence.cells, strict=True):
        assert sample.id == cell.planned.prompt_digest
        assert sample.epoch == cell.planned.repeat
        assert not isinstance(sample.input, str)
        assert [(m.role, m.text) for m in sample.input] == [("user", cell.calls[0].record.prompt)]
        assert sample.output.completion == cell.calls[0].record.response
        assert [m.role for m in sample.messages] == ["user", "assistant"]
        assert sample.metadata["subject"] == cell.planned.subject
        assert sample.metadata["prompt_digest"] == cell.planned.prompt_digest
        assert sample.metadata["plan_hash"] == evidence.plan.hash
        assert sample.metadata["simulated"] is False


def test_the_structure_score_is_the_verdict_with_the_evaluator_s_explanation() -> None:
    log = eval_log(run_evidence(V1))
    assert log.samples is not None
    score = log.samples[0].scores["structure"]
    assert score.value == "reused"
    assert score.answer == "def implement(x):\n    return helper(x)\n"
    assert score.explanation is not None
    assert "reused (scored), evaluator v7" in score.explanation
    assert "rule 3: a helper call runs whenever control reaches it" in score.explanation
    assert "helper helper: line 2 (unconditional)" in score.explanation


def test_the_correctness_score_publishes_only_index_outcome_and_exception_type() -> None:
    log = eval_log(run_evidence(V1))
    assert log.samples is not None
    score = log.samples[2].scores["correctness"]
    assert score.value == "incorrect"
    assert score.metadata is not None
    assert {key for case in score.metadata["cases"] for key in case} == {
        "index", "outcome", "exception_type"
    }  # fmt: skip
    assert "case 1: wrong-value" in (score.explanation or "")


def test_the_results_give_the_reuse_rate_per_arm_over_scored_cells() -> None:
    log = eval_log(run_evidence(V1))
    assert log.results is not None
    structure, correctness = log.results.scores
    assert {name: m.value for name, m in structure.metrics.items()} == {
        "reuse_rate[clean]": 1.0,  # beta's ambiguous cell is not scored
        "reuse_rate[inconsistent]": 0.5,
    }
    assert structure.metadata is not None
    assert structure.metadata["counts"]["clean"] == {"yes": 2, "judged": 2, "calls": 3}
    assert correctness.metrics["correct_rate[inconsistent]"].value == 0.5
    assert log.results.total_samples == log.results.completed_samples == len(V1)


def test_an_arm_without_a_scored_cell_has_no_rate() -> None:
    log = eval_log(
        run_evidence({"a/clean/r1": [Call()], "a/inconsistent/r1": [Call(verdict=None)]})
    )
    assert log.results is not None
    assert list(log.results.scores[0].metrics) == ["reuse_rate[clean]"]


def test_a_chain_cell_is_one_sample_with_every_step_s_request_and_answer() -> None:
    log = eval_log(run_evidence({"a/clean/r1": [Call(), Call(verdict="duplicated"), Call()]}))
    assert log.samples is not None
    (sample,) = log.samples
    assert [m.role for m in sample.messages] == ["user", "assistant"] * 3
    assert sample.scores is not None
    assert sample.scores["structure"].value == {
        "step 1": "reused", "step 2": "duplicated", "step 3": "reused"
    }  # fmt: skip
    assert [c["step"] for c in sample.metadata["calls"]] == [1, 2, 3]
    assert log.results is not None
    assert log.results.scores[0].metrics["reuse_rate[clean, step 2]"].value == 0.0


def test_a_simulated_run_says_so_in_its_task_name_tags_and_metadata() -> None:
    log = eval_log(run_evidence(V1, simulated=True))
    assert log.eval.task == "assay/v1 [SIMULATED MODEL]"
    assert log.eval.tags == ["simulated"]
    assert log.eval.metadata is not None and log.eval.metadata["simulated"] is True
    assert log.samples is not None and all(s.metadata["simulated"] for s in log.samples)
    assert eval_log(run_evidence(V1)).eval.task == "assay/v1"


def test_the_eval_names_the_plan_the_model_its_route_the_mode_and_the_versions() -> None:
    evidence = run_evidence(V1)
    log = eval_log(evidence)
    metadata = log.eval.metadata or {}
    assert log.eval.model == "openrouter/m"
    assert metadata["plan_hash"] == evidence.plan.hash
    assert metadata["model"]["route"] == "amazon-bedrock"
    assert metadata["prompting_mode"] == "chat (API)"
    assert metadata["versions"]["structure_evaluator"] == 7
    assert metadata["versions"]["extraction"] == 3
    assert log.eval.config.epochs == 2


def test_times_come_from_the_ledger() -> None:
    log = eval_log(run_evidence(V1))
    assert log.eval.created == "2026-11-30T00:53:20+00:00"
    assert log.samples is not None
    assert log.samples[0].started_at == "2026-11-30T00:53:21+00:00"
    assert log.samples[0].total_time == 1.5
    assert log.status == "success"


def test_a_run_that_sent_nothing_is_cancelled_at_the_epoch() -> None:
    unsent = {cell: [Call(status="not-run", verdict=None, correctness=None)] for cell in V1}
    log = eval_log(run_evidence(unsent, began=None))
    assert log.status == "cancelled"
    assert log.eval.created == "1970-01-01T00:00:00+00:00"
    assert log.eval.metadata is not None
    assert log.eval.metadata["stopped"] == "nothing was sent: awaiting-authorization"
    assert log.samples is not None
    assert log.samples[0].scores["structure"].value == "not-run"
    assert log.samples[0].output.error == "not-run: awaiting-authorization"


def test_a_run_that_halted_is_an_error_saying_why() -> None:
    halted = {**V1, "beta/clean/r2": [Call(status="budget-halted", verdict=None, correctness=None)]}
    log = eval_log(run_evidence(halted))
    assert log.status == "error"
    assert log.error is not None and "halted: awaiting-authorization from beta/clean/r2" in (
        log.error.message
    )


def test_the_same_evidence_writes_the_same_bytes_which_inspect_reads_back(
    tmp_path: Path,
) -> None:
    evidence = run_evidence(V1)
    first = write_log(evidence, tmp_path / "a")
    second = write_log(evidence, tmp_path / "b")
    assert first.name == second.name == log_file_name(eval_log(evidence), "r")
    assert first.name.startswith("2026-11-30T00-53-20+00-00_r_")
    assert first.read_bytes() == second.read_bytes()
    back = read_eval_log(str(first))
    assert back.samples is not None and len(back.samples) == len(V1)
    assert {tuple(s.scores or ()) for s in back.samples} == {("structure", "correctness")}


def test_samples_df_gives_one_row_per_cell(tmp_path: Path) -> None:
    path = write_log(run_evidence(V1), tmp_path)
    frame = samples_df(str(path))
    assert len(frame) == len(V1)
    assert sorted(frame["score_structure"]) == sorted(
        ["reused", "reused", "duplicated", "reused", "ambiguous"]
    )


@pytest.mark.parametrize("began", [BEGAN, None])
def test_every_id_is_stable(began: float | None) -> None:
    a, b = eval_log(run_evidence(V1, began=began)), eval_log(run_evidence(V1, began=began))
    assert a.eval.eval_id == b.eval.eval_id and a.eval.run_id == b.eval.run_id
    assert [s.uuid for s in a.samples or []] == [s.uuid for s in b.samples or []]


def test_a_reproduction_of_a_run_is_its_own_task_not_a_retry() -> None:
    """Inspect's viewer lists one log per task id and model (the rest are retries), so a fresh
    run of the same plan (``qwen-v1-again``) must not share its task id with the first."""
    first, again = run_evidence(V1, run="qwen-v1"), run_evidence(V1, run="qwen-v1-again")
    assert first.plan.content_hash == again.plan.content_hash
    assert eval_log(first).eval.task_id != eval_log(again).eval.task_id

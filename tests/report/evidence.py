"""Small hand-made evidence for report tests: one dose-like run with every table filled, so
the page has curves, a cell browser and explanations without running the pipeline."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.core.tables import write_records
from assay.evidence import (
    CallRecord,
    CandidateRow,
    CorrectnessRow,
    PromptRow,
    SubjectRow,
    VerdictRow,
)
from assay.paid.plan import Plan

ARMS = ("mess-00", "mess-03", "mess-10")
HOSTILE = "</script><script>window.__owned = true</script><img src=x onerror=window.__owned=1>"
REUSED = "def implement(value):\n    return mask_card_number(value)\n"
DUPLICATED = 'def implement(value):\n    digits = "".join(c for c in value if c.isdigit())\n    return "*" * (len(digits) - 4) + digits[-4:]\n'


def _plan(run: str) -> Plan:
    return Plan.model_validate({
        "run": run, "scenario": "dose", "fixture_sources": "0" * 64, "prompt_profile": "v1",
        "repeats": 1, "arms": list(ARMS), "reference_arm": ARMS[0], "schedule": "blocked",
        "model": {"model": f"model-{run}", "provider": "simulated"}, "cells": [], "tools": {},
        "analysis": {"alpha": 0.05, "minimum_subjects": 10, "structure_evaluator": 7},
        "budget": {"paid": False, "ceiling_usd": 0.0, "reservation_usd": 0.0, "requests": 0,
                   "admitted_requests": 0,
                   "worst_case_usd": 0.0},
    })  # fmt: skip


def _short_prompt(subject: int, arm: str) -> str:
    return f"Implement implement() for s{subject} in {arm}.\n{HOSTILE}"


def write_dose_evidence(
    data: Path,
    runs: tuple[str, ...] = ("run-a", "run-b"),
    subjects: int = 4,
    prompt: Callable[[int, str], str] = _short_prompt,
) -> None:
    """Runs of the dose arms, one repeat, every table filled; ``prompt`` gives the prompt of a
    subject (its number) at an arm."""
    write_records(
        data / "subjects" / "dose" / "subjects.parquet",
        SubjectRow,
        [SubjectRow(scenario="dose", subject=f"s{s}", family="cards", arm=arm, subject_digest="d",
                    arm_digest="d", target="app.py", helper="mask_card_number", helper_module=None,
                    primitives=("str.join", "str.isdigit", "len"), sandbox="standard",
                    repository_bytes=1) for s in range(subjects) for arm in ARMS],
    )  # fmt: skip
    write_records(
        data / "render" / "dose" / "prompts.parquet",
        PromptRow,
        [PromptRow(scenario="dose", subject=f"s{s}", arm=arm, prompt_profile="p", prompt_digest=f"p{s}{arm}",
                   prompt=prompt(s, arm), instruction="i",
                   target="app.py", files_json="{}") for s in range(subjects) for arm in ARMS],
    )  # fmt: skip
    for index, run in enumerate(runs):
        folder = data / "plan" / run
        folder.mkdir(parents=True)
        plan = _plan(run)
        (folder / "plan.json").write_bytes(plan.canonical())
        (folder / "plan.sha256").write_text(plan.hash + "\n")
        calls, candidates, verdicts, correctness = [], [], [], []
        for s in range(subjects):
            for level, arm in enumerate(ARMS):
                key = {
                    "run": run,
                    "cell_id": f"s{s}/{arm}/r1",
                    "subject": f"s{s}",
                    "arm": arm,
                    "repeat": 1,
                    "step": 1,
                }
                reused = (s + level * (index + 1)) % 3 != 2
                source = REUSED if reused else DUPLICATED
                calls.append(
                    CallRecord(
                        **key,
                        status="completed",
                        prompt_digest=f"p{s}{arm}",
                        text=f"```python\n{source}```\n{HOSTILE}",
                    )
                )
                candidates.append(
                    CandidateRow(
                        **key,
                        execution_status="completed",
                        extract_status="code",
                        source=source,
                        extraction_version=2,
                    )
                )
                verdicts.append(
                    VerdictRow(
                        **key,
                        verdict="reused" if reused else "duplicated",
                        reason="helper-call" if reused else "primitive-only",
                        evaluator_version=7,
                        rule="unconditional_helper_call" if reused else "primitive_only",
                        helper_call_lines=(2,) if reused else (),
                        helper_call_positions=("unconditional",) if reused else (),
                        primitive_calls=() if reused else ("str.join", "str.isdigit", "len"),
                        primitive_call_lines=() if reused else (2, 2, 3),
                    )
                )
                correctness.append(CorrectnessRow(
                    **key, status="correct" if reused else "incorrect",
                    reason="all-cases-passed" if reused else "wrong-value", case_indexes=(0, 1),
                    case_outcomes=("pass", "pass") if reused else ("pass", "wrong-value"),
                    case_exception_types=(None, None), case_inputs=('"4111"', '"1234567812345678"'),
                    case_expected=('"4111"', '"************5678"'),
                    unpublished_case_actuals=(None, None) if reused else (None, '"' + HOSTILE.replace('"', "'") + '"'),
                    unpublished_case_messages=(None, None), image="sha256:" + "0" * 64))  # fmt: skip
        write_records(data / "execute" / run / "cells.parquet", CallRecord, calls)
        write_records(data / "extract" / run / "candidates.parquet", CandidateRow, candidates)
        write_records(data / "structure" / run / "verdicts.parquet", VerdictRow, verdicts)
        write_records(
            data / "correctness" / run / "correctness.parquet", CorrectnessRow, correctness
        )


MISSING_RUNS = ("paid-wait", "mixed-fate")
"""``paid-wait``: a paid run awaiting authorization (every cell not-run). ``mixed-fate``: a
real free run where every missing state occurs: at mess-00 one evaluator-failure (correctness)
among scored cells; at mess-03 an answer without code (no-candidate), the call that halted the
run (http-429) and two calls after it (budget-halted); at mess-10 cells the plan excluded."""

FATES = {
    # (subject, arm) of mixed-fate → execution status, reason, extraction, verdict
    ("s1", "mess-03"): ("completed", None, "no-code", None),
    ("s2", "mess-03"): ("provider-error", "http-429", "not-executed", None),
    ("s3", "mess-03"): ("budget-halted", "halted-after: s2/mess-03/r1 step 1 (http-429)",
                        "not-executed", None),
}  # fmt: skip


def _plan_for(run: str, provider: str) -> Plan:
    plan = _plan(run).model_dump(by_alias=True)
    plan["model"] = {"model": f"model-{run}", "provider": provider}
    return Plan.model_validate(plan)


def write_missing_evidence(data: Path, subjects: int = 4) -> None:
    """Two runs beside :func:`write_dose_evidence`'s, together holding every missing state."""
    from assay.paid.authorize import Authorization

    for run in MISSING_RUNS:
        folder = data / "plan" / run
        folder.mkdir(parents=True)
        plan = _plan_for(run, "openrouter" if run == "paid-wait" else "openai-compatible")
        (folder / "plan.json").write_bytes(plan.canonical())
        (folder / "plan.sha256").write_text(plan.hash + "\n")
        if run == "paid-wait":
            (data / "authorize" / run).mkdir(parents=True)
            awaiting = Authorization(run=run, state="awaiting-authorization", plan_hash=plan.hash,
                                     cells=subjects * len(ARMS), requests=subjects * len(ARMS),
                                     worst_case_usd=1.0, reason="paid")  # fmt: skip
            (data / "authorize" / run / "authorization.json").write_text(awaiting.model_dump_json())
        calls, candidates, verdicts, correctness = [], [], [], []
        for s in range(subjects):
            for arm in ARMS:
                key = {"run": run, "cell_id": f"s{s}/{arm}/r1", "subject": f"s{s}", "arm": arm,
                       "repeat": 1, "step": 1}  # fmt: skip
                if run == "paid-wait":
                    fate = ("not-run", "awaiting-authorization", "not-executed", None)
                elif arm == "mess-10":
                    fate = ("excluded", "request-over-cap: 70000 bytes > 65536", "not-executed", None)  # fmt: skip
                else:
                    fate = FATES.get((f"s{s}", arm), ("completed", None, "code", "reused"))
                status, reason, extracted, verdict = fate
                source = REUSED if extracted == "code" else None
                calls.append(CallRecord(**key, status=status, reason=reason,
                                        halt=reason == "http-429", prompt_digest=f"p{s}{arm}",
                                        text=source if status == "completed" else None))  # fmt: skip
                candidates.append(CandidateRow(**key, execution_status=status,
                                               extract_status=extracted, source=source,
                                               extraction_version=2))  # fmt: skip
                missing = extracted if status == "completed" else status
                verdicts.append(VerdictRow(**key, verdict=verdict,
                                           reason="helper-call" if verdict else missing,
                                           evaluator_version=7,
                                           rule="unconditional_helper_call" if verdict else None))  # fmt: skip
                failed = (s, arm) == (0, "mess-00") and run == "mixed-fate"
                correctness.append(CorrectnessRow(
                    **key, image="sha256:" + "0" * 64,
                    status=("evaluator-failure" if failed else "correct") if source else None,
                    reason=("container-start-timeout" if failed else "all-cases-passed") if source else missing,
                ))  # fmt: skip
        write_records(data / "execute" / run / "cells.parquet", CallRecord, calls)
        write_records(data / "extract" / run / "candidates.parquet", CandidateRow, candidates)
        write_records(data / "structure" / run / "verdicts.parquet", VerdictRow, verdicts)
        write_records(
            data / "correctness" / run / "correctness.parquet", CorrectnessRow, correctness
        )


MODE_RUNS = {
    # run → its model profile (plan.json's `model`) and whether its repeats answer identically
    "qwen-chat": (
        {"model": "qwen", "provider": "local",
         "local": {"weights_sha256": "a" * 64, "prompting": "chat"}},
        True,
    ),
    "qwen-completion": (
        {"model": "qwen", "provider": "local", "temperature": 0.7,
         "local": {"weights_sha256": "a" * 64, "prompting": "completion",
                   "answer_prefix": "```python\ndef implement("}},
        False,
    ),
    "follower-sim-v1": ({"model": "sim-follower", "provider": "simulated"}, True),
}  # fmt: skip
"""Three runs of one v1-like scenario, two repeats each: a real local model in chat mode
(greedy: its repeats are byte-identical), the same weights in completion mode sampled at a
temperature (its repeats differ in text, and in subject s0's inconsistent arm in verdict), and
the simulated stand-in."""
MODE_ARMS = ("clean", "inconsistent")


def write_mode_evidence(data: Path, subjects: int = 3) -> None:
    """Every table of :data:`MODE_RUNS` (scenario ``v1``, arms clean and inconsistent)."""
    write_records(
        data / "subjects" / "v1" / "subjects.parquet",
        SubjectRow,
        [SubjectRow(scenario="v1", subject=f"s{s}", family=f"f{s}", arm=arm, subject_digest="d",
                    arm_digest="d", target="app.py", helper="mask_card_number", helper_module=None,
                    primitives=("str.join",), sandbox="standard", repository_bytes=1)
         for s in range(subjects) for arm in MODE_ARMS],
    )  # fmt: skip
    write_records(
        data / "render" / "v1" / "prompts.parquet",
        PromptRow,
        [PromptRow(scenario="v1", subject=f"s{s}", arm=arm, prompt_profile="p",
                   prompt_digest=f"p{s}{arm}", prompt=f"Implement s{s} in {arm}.", instruction="i",
                   target="app.py", files_json="{}") for s in range(subjects) for arm in MODE_ARMS],
    )  # fmt: skip
    for run, (model, greedy) in MODE_RUNS.items():
        plan = _plan(run).model_dump(by_alias=True)
        plan.update(scenario="v1", repeats=2, arms=list(MODE_ARMS), reference_arm="clean")
        plan["model"] = model
        folder = data / "plan" / run
        folder.mkdir(parents=True)
        validated = Plan.model_validate(plan)
        (folder / "plan.json").write_bytes(validated.canonical())
        (folder / "plan.sha256").write_text(validated.hash + "\n")
        calls, candidates, verdicts = [], [], []
        for s in range(subjects):
            for arm in MODE_ARMS:
                for repeat in (1, 2):
                    key = {"run": run, "cell_id": f"s{s}/{arm}/r{repeat}", "subject": f"s{s}",
                           "arm": arm, "repeat": repeat, "step": 1}  # fmt: skip
                    reused = arm == "clean" or (not greedy and s == 0 and repeat == 2)
                    source = REUSED if reused else DUPLICATED
                    text = f"```python\n{source}```\n" + ("" if greedy else f"# draw {repeat}\n")
                    calls.append(CallRecord(**key, status="completed", prompt_digest=f"p{s}{arm}",
                                            text=text))  # fmt: skip
                    candidates.append(CandidateRow(**key, execution_status="completed",
                                                   extract_status="code", source=source,
                                                   extraction_version=2))  # fmt: skip
                    verdicts.append(VerdictRow(**key, verdict="reused" if reused else "duplicated",
                                               reason="helper-call" if reused else "primitive-only",
                                               evaluator_version=7))  # fmt: skip
        write_records(data / "execute" / run / "cells.parquet", CallRecord, calls)
        write_records(data / "extract" / run / "candidates.parquet", CandidateRow, candidates)
        write_records(data / "structure" / run / "verdicts.parquet", VerdictRow, verdicts)


def write_verdict_evidence(
    data: Path, run: str, verdicts: dict[str, dict[str, list[str]]], scenario: str = "v1"
) -> None:
    """One free run of ``scenario`` whose cells have exactly ``verdicts`` (per subject and arm,
    one per repeat; the first arm is the reference)."""
    arms = list(next(iter(verdicts.values())))
    repeats = len(next(iter(next(iter(verdicts.values())).values())))
    write_records(
        data / "subjects" / scenario / "subjects.parquet",
        SubjectRow,
        [SubjectRow(scenario=scenario, subject=s, family="f", arm=arm, subject_digest="d",
                    arm_digest="d", target="app.py", helper="mask_card_number", helper_module=None,
                    primitives=("str.join",), sandbox="standard", repository_bytes=1)
         for s in verdicts for arm in arms],
    )  # fmt: skip
    write_records(
        data / "render" / scenario / "prompts.parquet",
        PromptRow,
        [PromptRow(scenario=scenario, subject=s, arm=arm, prompt_profile="p",
                   prompt_digest=f"p{s}{arm}", prompt=f"Implement {s} in {arm}.", instruction="i",
                   target="app.py", files_json="{}") for s in verdicts for arm in arms],
    )  # fmt: skip
    plan = _plan(run).model_dump(by_alias=True)
    plan.update(scenario=scenario, repeats=repeats, arms=arms, reference_arm=arms[0])
    folder = data / "plan" / run
    folder.mkdir(parents=True)
    validated = Plan.model_validate(plan)
    (folder / "plan.json").write_bytes(validated.canonical())
    (folder / "plan.sha256").write_text(validated.hash + "\n")
    calls, candidates, rows = [], [], []
    for subject, by_arm in verdicts.items():
        for arm, outcomes in by_arm.items():
            for repeat, verdict in enumerate(outcomes, start=1):
                key = {"run": run, "cell_id": f"{subject}/{arm}/r{repeat}", "subject": subject,
                       "arm": arm, "repeat": repeat, "step": 1}  # fmt: skip
                source = DUPLICATED if verdict == "duplicated" else REUSED
                calls.append(CallRecord(**key, status="completed", prompt_digest=f"p{subject}{arm}",
                                        text=f"```python\n{source}```\n"))  # fmt: skip
                candidates.append(CandidateRow(**key, execution_status="completed",
                                               extract_status="code", source=source,
                                               extraction_version=2))  # fmt: skip
                rows.append(VerdictRow(**key, verdict=verdict, reason="as-given",
                                       evaluator_version=7))  # fmt: skip
    write_records(data / "execute" / run / "cells.parquet", CallRecord, calls)
    write_records(data / "extract" / run / "candidates.parquet", CandidateRow, candidates)
    write_records(data / "structure" / run / "verdicts.parquet", VerdictRow, rows)

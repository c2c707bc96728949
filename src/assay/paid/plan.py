"""The plan: the canonical JSON of everything a run will do and how it will be judged.

Its sha256 is the plan hash that a person inspects and authorizes. Building a plan makes no
provider call. Cells appear in schedule order; a cell whose rendered request exceeds the
profile's request size cap is excluded here, with its reason, before anything is authorized.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from assay.config.params import QUALIFICATION_SAMPLE, RunSpec
from assay.core.digest import sha256_hex
from assay.evidence.plan import (
    BYTES_PER_TOKEN,
    AnalysisPlan,
    Budget,
    Plan,
    PlannedCell,
    PromptRef,
    Qualification,
    Reproduction,
)
from assay.fixtures.model import Scenario
from assay.providers.base import NANO, ModelProfile, nano_down, nano_up
from assay.science.schedule import default_schedule, schedule

TRACKED_PACKAGES = (
    "assay",
    "dvc",
    "pydantic",
    "httpx",
    "docker",
    "duckdb",
    "pyarrow",
    "scipy",
    "radon",
    "lizard",
    "grimp",
    "complexipy",
    "ruff",
    "mypy",
)


def cell_id(subject: str, arm: str, repeat: int) -> str:
    return f"{subject}/{arm}/r{repeat}"


def tool_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in TRACKED_PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "absent"
    return versions


def _budget(profile: ModelProfile, request_bytes: list[int]) -> Budget:
    """Reservations round up and the ceiling down, in integer nano-USD. ``request_bytes``: the
    size of every request the plan may send, in schedule order."""
    requests = len(request_bytes)
    if profile.is_free:
        return Budget(
            paid=False,
            ceiling_usd=0.0,
            reservation_usd=0.0,
            requests=requests,
            admitted_requests=requests,
            worst_case_usd=0.0,
        )
    reservation = nano_up(profile.reservation)
    admitted = min(requests, nano_down(profile.ceiling_usd) // reservation)
    tokens = sum(-(-size // BYTES_PER_TOKEN) for size in request_bytes[:admitted])
    caps = profile.price_caps
    expected = (tokens * caps.prompt + admitted * profile.max_output_tokens * caps.completion) / 1e6
    return Budget(
        paid=True,
        ceiling_usd=profile.ceiling_usd,
        reservation_usd=reservation / NANO,
        requests=requests,
        admitted_requests=admitted,
        worst_case_usd=admitted * reservation / NANO,
        expected_prompt_tokens=tokens,
        expected_usd=round(expected, 6),
    )


def build_plan(
    *,
    run_id: str,
    run: RunSpec,
    profile: ModelProfile,
    scenario: Scenario,
    fixture_sources: str,
    prompts: Mapping[tuple[str, str], PromptRef],
    analysis: AnalysisPlan,
    tools: Mapping[str, str],
    sandbox: Mapping[str, Any] | None = None,
    runtime: Mapping[str, Any] | None = None,
) -> Plan:
    """The plan for one run. ``prompts`` maps (subject, arm) to the first step's prompt."""
    subjects = {s.id: s for s in scenario.subjects}
    schedule_name = run.schedule or default_schedule(scenario.name, len(scenario.arms))
    order = schedule(schedule_name, [s.id for s in scenario.subjects], scenario.arms, run.repeats)
    cells = []
    for planned in order:
        subject = subjects[planned.subject]
        prompt = prompts[(planned.subject, planned.arm)]
        over_cap = (
            profile.request_bytes_cap is not None
            and prompt.request_bytes > profile.request_bytes_cap
        )
        cells.append(
            PlannedCell(
                cell_id=cell_id(planned.subject, planned.arm, planned.repeat),
                subject=planned.subject,
                arm=planned.arm,
                repeat=planned.repeat,
                steps=scenario.steps,
                subject_digest=subject.digest,
                arm_digest=subject.arm_digest(planned.arm),
                prompt_digest=prompt.digest,
                excluded=(
                    f"request-over-cap: {prompt.request_bytes} > {profile.request_bytes_cap} bytes"
                    if over_cap
                    else None
                ),
            )
        )
    reproduces = qualification = None
    if run.reproduces is not None:
        chosen = _sample(cells, run.sample)
        reproduces = Reproduction(run=run.reproduces, sample=len(chosen), of=len(cells))
        cells = chosen
    elif run.qualifies:
        chosen = _sample(cells, run.sample or QUALIFICATION_SAMPLE)
        qualification = Qualification(sample=len(chosen), of=len(cells))
        cells = chosen
    sizes = [
        prompts[(c.subject, c.arm)].request_bytes
        for c in cells
        if c.excluded is None
        for _ in range(c.steps)
    ]
    return Plan(
        run=run_id,
        scenario=scenario.name,
        fixture_sources=fixture_sources,
        prompt_profile=scenario.prompt_profile,
        arms=scenario.arms,
        reference_arm=scenario.arms[0],
        repeats=run.repeats,
        schedule=schedule_name,
        model=profile,
        budget=_budget(profile, sizes),
        cells=tuple(cells),
        analysis=analysis,
        sandbox=dict(sandbox or {}),
        tools=dict(tools),
        runtime=dict(runtime or {}),
        reproduces=reproduces,
        qualification=qualification,
    )


def _sample(cells: list[PlannedCell], size: int | None) -> list[PlannedCell]:
    """A reproduction's or a qualification's cells: ``size`` of ``cells`` chosen by the sha256 of
    their ids (a fixed draw spread over subjects, arms and repeats, the same on every machine),
    in the original's schedule order."""
    if size is None or size >= len(cells):
        return list(cells)
    chosen = set(sorted((sha256_hex(c.cell_id), c.cell_id) for c in cells)[:size])
    return [c for c in cells if (sha256_hex(c.cell_id), c.cell_id) in chosen]


def summary(plan: Plan) -> str:
    """A human summary for ``assay plan show``."""
    admitted = plan.sendable
    lines = [
        f"run            {plan.run}",
        f"plan hash      {plan.hash}",
        f"model          {plan.model.model} via {plan.model.provider}"
        + (f" (pinned to {plan.model.provider_pin})" if plan.model.provider_pin else ""),
        *([f"endpoint       {plan.model.base_url}"] if plan.model.base_url else []),
        *_runtime_lines(plan),
        (
            f"scenario       {plan.scenario}: {len({c.subject for c in plan.cells})} subjects × "
            f"{len(plan.arms)} arms × {plan.repeats} repeats, schedule {plan.schedule}"
        ),
        *(
            [
                (
                    f"reproduces     {plan.reproduces.run}: {plan.reproduces.sample} of its "
                    f"{plan.reproduces.of} cells, sent again and compared byte for byte"
                )
            ]
            if plan.reproduces
            else []
        ),
        (
            f"cells          {len(plan.cells)} ({len(plan.cells) - len(admitted)} excluded), "
            f"{plan.budget.requests} provider requests at most"
        ),
    ]
    if plan.budget.paid:
        caps = plan.model.price_caps
        lines += [
            f"price caps     ${caps.prompt}/M prompt, ${caps.completion}/M completion",
            f"reservation    ${plan.budget.reservation_usd:.4f} per request, never refunded",
            f"ceiling        ${plan.budget.ceiling_usd:.2f}: {plan.budget.admission_text()}",
            f"worst case     ${plan.budget.worst_case_usd:.2f}",
            (
                f"expected       about ${plan.budget.expected_usd:.4f}: "
                f"{plan.budget.expected_prompt_tokens:,} prompt tokens estimated from the "
                f"requests' sizes, every answer at {plan.model.max_output_tokens:,} tokens, at the "
                "price caps (an estimate; the reservation is what admission counts)"
            ),
        ]
        if plan.budget.partial:
            lines.append(
                f"WARNING        {plan.budget.admission_text()}: the run would halt part-way; "
                f"${plan.budget.full_ceiling_usd():.2f} admits all (`assay authorize` needs "
                "--accept-partial otherwise)"
            )
    elif plan.model.answers_fixed:
        lines.append(
            "cost           nothing through assay (no authorization needed); the answers were "
            "made outside assay, which did not control their spend"
        )
    else:
        lines.append("cost           free (no authorization needed)")
    for cell in plan.cells:
        if cell.excluded:
            lines.append(f"excluded       {cell.cell_id}: {cell.excluded}")
    return "\n".join(lines)


def _runtime_lines(plan: Plan) -> list[str]:
    runtime = plan.runtime
    if not runtime:
        return []
    if plan.model.answers_fixed:
        source = f"answers        read from the Inspect log {runtime['log']}"
        made = (
            f"inspect eval   task {runtime['task']}, model {runtime['model']}, eval "
            f"{runtime['eval_id']}, created {runtime['created']} ({runtime['status']}, "
            f"{runtime['samples']} samples)"
        )
        return [source, f"log sha256     {runtime['log_sha256']}", made]
    size = runtime.get("size_label")
    return [
        f"weights        {runtime['weights_file']} ({runtime.get('name', '?')}"
        + (f", {size}" if size else "")
        + f"), sha256 {runtime['weights_sha256']}",
        f"runtime        {runtime['runtime']}"
        + (f" ({runtime['build']})" if runtime.get("build") else ""),
    ]


def request_sizes(
    prompts: Mapping[tuple[str, str], str], measure: Callable[[str], int]
) -> dict[tuple[str, str], PromptRef]:
    return {
        key: PromptRef(digest=sha256_hex(text), request_bytes=measure(text))
        for key, text in prompts.items()
    }

"""A preregistration that binds: a run keeps the analysis its plan preregistered once it has
begun, and an authorization names the preregistration it approved.

A plan's preregistration (:attr:`assay.evidence.plan.Plan.preregistration`: method, alpha,
median rule, minimum subjects, repeats, structure evaluator and extraction versions) is part
of its hash. Two things keep it bound to the run after that:

- **Where it is kept.** Every ledger folder (``<ledger_root>/<run>/<plan hash>/``) holds the
  plan it is bound to (``plan.json``), written when ``assay authorize`` creates a paid ledger
  and before any run's first request (:func:`record_plan`; a paid run's seal holds it too).
- **Kept once begun.** When the plan stage builds a run's plan, a run that began sending
  under plan H keeps H's analysis when that is all an edit changed (:func:`keep_preregistration`):
  the plan stays H byte for byte, so nothing is sent again and no execute stage re-runs, and
  the reports compute the primary result with H's values and show what params.yaml says now as
  a labelled deviation beside it (``assay.report.deviation``). An edit that changes the cells
  (``repeats``, a fixture, the model) is a new plan: a paid run keeps its sealed plan
  (``assay.paid.seal``); a free run is planned anew and says so (:func:`replanned_free_run`).
- **Authorized, not sent.** A paid run whose preregistration changed after ``assay authorize``
  has another plan hash, so it is refused until authorized again; :func:`stale_authorization`
  says so in one line naming each field that changed.
"""

from __future__ import annotations

import os
from pathlib import Path

from assay.config.params import RunSpec
from assay.evidence.plan import (
    DEVIATION_LABEL,
    Plan,
    PreregisteredChange,
    Preregistration,
    changes_text,
    load_plan,
)
from assay.paid.ledger import Ledger, begun_plans

PLAN_FILE = "plan.json"
"""The plan a ledger folder is bound to, kept beside its ``ledger.jsonl``."""
SEALED_PLAN = Path("sealed") / "plan" / "plan.json"
"""Where a paid run's seal keeps it (``assay.paid.seal``)."""


def record_plan(ledger_dir: Path, plan: Plan) -> None:
    """Keep ``plan`` in its ledger folder (once: an existing copy is left as it is)."""
    target = ledger_dir / PLAN_FILE
    if target.is_file():
        return
    ledger_dir.mkdir(parents=True, exist_ok=True)
    partial = ledger_dir / f".{PLAN_FILE}.partial"
    partial.write_bytes(plan.canonical() + b"\n")
    os.replace(partial, target)


def ledger_plan(root: Path, run: str, plan_hash: str) -> Plan | None:
    """The plan the ledger of ``run`` under ``plan_hash`` keeps (``None``: a ledger from before
    plans were kept, or none at all). A copy whose hash is not its folder's is not its plan."""
    folder = Ledger.at(root, run, plan_hash).directory
    for path in (folder / PLAN_FILE, folder / SEALED_PLAN):
        if path.is_file():
            plan = load_plan(path.read_bytes())
            if plan.hash == plan_hash:
                return plan
    return None


def keep_preregistration(current: Plan, root: Path) -> Plan:
    """``current``, or the plan under which its run began sending when an edit of the analysis
    is all that tells them apart: a run that has begun keeps its preregistered analysis."""
    for plan_hash in begun_plans(root, current.run):
        begun = ledger_plan(root, current.run, plan_hash)
        if begun is None:
            continue
        kept = current.model_copy(update={"analysis": begun.analysis})
        if kept.hash == plan_hash:
            return kept
    return current


def replanned_free_run(current: Plan, root: Path) -> tuple[str, tuple[PreregisteredChange, ...]]:
    """For a free run planned anew after it began under another plan (an edit changed its cells:
    repeats, a fixture, the model): that plan's hash and how the new preregistration differs
    from it (``("", ())``: the run has not begun under another plan, or it kept no copy)."""
    if current.budget.paid:
        return "", ()
    for plan_hash in begun_plans(root, current.run):
        if plan_hash == current.hash:
            return "", ()
        begun = ledger_plan(root, current.run, plan_hash)
        if begun is not None:
            return plan_hash, begun.preregistration.changes(current.preregistration)
    return "", ()


def authorized_changes(
    current: Plan, root: Path, authorized_hash: str
) -> tuple[tuple[PreregisteredChange, ...], bool] | None:
    """How ``current``'s preregistration differs from the plan ``authorized_hash`` that ``assay
    authorize`` approved (kept in its ledger), and whether something beyond the analysis
    differs too (told only when the repeats did not change: they change the cells); ``None``
    when that plan is not kept here."""
    authorized = ledger_plan(root, current.run, authorized_hash)
    if authorized is None:
        return None
    changes = authorized.preregistration.changes(current.preregistration)
    if any(change.field == "repeats" for change in changes):
        return changes, False
    analysis_only = current.model_copy(update={"analysis": authorized.analysis})
    return changes, analysis_only.hash != authorized_hash


def stale_authorization(current: Plan, run: RunSpec, root: Path) -> str | None:
    """One line when params.yaml authorizes a plan of this paid run whose preregistration
    differs from the current plan's: the run, each field that changed, and the command that
    authorizes it again (``None``: nothing to say)."""
    given = run.authorization or run.plan_ref
    if not current.budget.paid or given is None or given == current.hash:
        return None
    found = authorized_changes(current, root, given)
    if found is None or not found[0]:
        return None
    changes, other = found
    also = " and other settings" if other else ""
    return (
        f"run {current.run!r}: its preregistered analysis changed since it was authorized "
        f"({changes_text(changes)}{also}: plan {given} → {current.hash}); nothing is sent until "
        f"it is authorized again: `uv run assay plan show {current.run}`, then `uv run assay "
        f"authorize {current.run} --plan-hash {current.hash}` (or undo the edit)"
    )


def preregistration_lines(plan: Plan, now: Preregistration) -> list[str]:
    """``assay plan show``'s lines for the plan's preregistration, and what params.yaml says
    now when the run kept another (``now``: params.yaml's analysis and the run's repeats)."""
    lines = [f"preregistered  {plan.preregistration.text()}"]
    changes = plan.preregistration.changes(now)
    if changes:
        lines.append(
            f"deviation      params.yaml now says {changes_text(changes)}: the run began under "
            "this plan and keeps its preregistration; the reports compute the primary result "
            f'with it and add a result labelled "{DEVIATION_LABEL}" beside it'
        )
    return lines

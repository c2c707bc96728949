"""Collecting the ``execute`` stage's evidence: one run's ``cells`` and ``prompt_texts`` tables
from the ``send`` stage's receipt and the responses and prompts in the run's ledger. It sends
nothing.

Two reads go through the ledger on purpose. The texts: the receipt names each response by
digest, and the text is read back from the ledger, where it was fsync'd before its outcome
(what keeps a killed stage from losing a paid response), checked against the digest the
receipt and the outcome both name. The prompts: every prompt sent, chain steps 2-5 included
(rendered from earlier answers while sending, found nowhere else), was stored in the ledger
under its digest before its intent; ``prompt_texts`` is read from there, so it holds what was
sent, not what would be rendered now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from assay import evidence
from assay.config.params import Params
from assay.core.digest import sha256_hex
from assay.core.errors import EvidenceError
from assay.evidence import CallRecord, SentPromptRow
from assay.paid.execute import AWAITING, unsent
from assay.paid.ledger import Ledger
from assay.paid.plan import Plan
from assay.pipeline.admission import Admitted, admit
from assay.pipeline.layout import repro_command
from assay.pipeline.plan import make_plan


def collect(
    run_id: str,
    params: Params,
    *,
    current_plan: Callable[[str, Params], Plan] = make_plan,
    records: Sequence[CallRecord] | None = None,
) -> list[CallRecord]:
    """The run's ``cells`` table from the ``send`` stage's receipt and the responses in the
    run's ledger, or from ``records`` the execute stage has just sent itself. It sends nothing;
    it re-checks the authorization as sending does, so a run whose authorization changed since
    is refused here too."""
    admitted = admit(run_id, params, current_plan=current_plan)
    if records is not None:
        records = list(records)
    elif admitted.awaiting:
        records = unsent(admitted.plan, AWAITING)
    else:
        records = received(admitted)
    evidence.write_table(evidence.CELLS, run_id, records)
    rendered = evidence.read_run_prompt_rows(run_id, admitted.plan.scenario).values()
    prompts = sent_prompt_rows(run_id, records, admitted.ledger, [r.prompt for r in rendered])
    evidence.write_table(evidence.PROMPT_TEXTS, run_id, prompts)
    return records


def sent_prompt_rows(
    run_id: str, records: Sequence[CallRecord], ledger: Ledger, rendered: Iterable[str]
) -> list[SentPromptRow]:
    """The prompt of every call's ``prompt_digest``, once per digest, from the ledger's object
    store (where each was written before its intent); a ledger from before prompts were stored
    falls back to the rendered step-1 prompts, and a digest found in neither has no row."""
    by_digest = {sha256_hex(text): text for text in rendered}
    rows = []
    for digest in sorted({r.prompt_digest for r in records if r.prompt_digest}):
        stored = ledger.find(digest)
        text = stored.decode("utf-8") if stored is not None else by_digest.get(digest)
        if text is not None:
            rows.append(SentPromptRow(run=run_id, prompt_digest=digest, prompt=text))
    return rows


def received(admitted: Admitted) -> list[CallRecord]:
    """The calls of the ``send`` stage's receipt, each completed call's text read back from the
    ledger (checked against the digest the receipt and the ledger's outcome both name)."""
    run_id = admitted.run
    receipt = evidence.read_receipt(run_id)
    if receipt.plan_hash != admitted.plan.hash or receipt.ledger_root != admitted.ledger_root:
        raise EvidenceError(
            f"run {run_id!r}: the send stage's receipt is for plan {receipt.plan_hash} in "
            f"{receipt.ledger_root!r}, not the current plan {admitted.plan.hash} in "
            f"{admitted.ledger_root!r}; run `{repro_command(admitted.plan.model.api_key_env)}` "
            "(without --single-item)"
        )
    ledger = admitted.ledger
    outcomes = ledger.state().outcomes if any(c.text_digest for c in receipt.calls) else {}
    records = []
    for call in receipt.calls:
        text = None
        if call.text_digest is not None:
            key = call.call
            outcome = outcomes.get(key)
            if outcome is None or outcome.text_digest != call.text_digest:
                raise EvidenceError(
                    f"run {run_id!r}: the ledger {ledger.directory} holds no response "
                    f"{call.text_digest} for {key}, which the send stage received; restore the "
                    "ledger (ledger_root) this run was sent with"
                )
            text = ledger.load(call.text_digest).decode("utf-8")
        records.append(CallRecord(**call.model_dump(exclude={"text_digest", "text"}), text=text))
    return records

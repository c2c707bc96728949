"""The ledger's lines (``assay.paid.ledger``) as frozen records: the ledger writes them and reads them
back, and a bundle validates every line it carries against the ``paa-operating-record`` schema
generated from them.

A line is canonical JSON (sorted keys) of its record; :data:`LINE` reads one back by its
``type``. A call's ``key`` is written in :class:`~assay.core.records.CallKey`'s one spelling.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, TypeAdapter, WithJsonSchema

from assay.core.records import CallKey, ExecutionStatus, Frozen, Usage

Sha256 = str

WrittenKey = Annotated[CallKey, WithJsonSchema({"title": "Key", "type": "string"})]
"""A call key as a ledger line writes it: ``<cell id>#<step>``."""


class LedgerHeader(Frozen):
    type: Literal["header"]
    run: str
    plan_hash: Sha256
    paid: bool
    at: float


class LedgerAuthorization(Frozen):
    """Written by ``assay authorize`` into a paid run's ledger: the token params.yaml carries
    and where the ledger was when it was issued (``assay.paid.ledger.LedgerState.authorization``)."""

    type: Literal["authorization"]
    token: str
    ledger_root: str
    location: str
    at: float


class LedgerIntent(Frozen):
    type: Literal["intent"]
    key: WrittenKey
    request_digest: Sha256
    reservation_nano_usd: int = Field(ge=0)
    at: float


class LedgerHalt(Frozen):
    type: Literal["halt"]
    reason: str
    at: float


class _OutcomeLine(Frozen):
    type: Literal["outcome"]
    key: WrittenKey


class Outcome(Frozen):
    """What a provider reported of one call, as the ledger keeps it: its result
    (``assay.providers.base.ProviderResult``) without the body and the text, which the ledger
    stores by digest (a test holds the fields equal)."""

    status: ExecutionStatus
    reason: str | None
    halt: bool
    usage: Usage
    cost_usd: float | None
    generation_id: str | None
    served_model: str | None
    served_provider: str | None
    finish_reason: str | None
    detail: str | None
    no_charge_proven: bool
    latency_seconds: float


class LedgerOutcome(Outcome, _OutcomeLine):
    """A provider result without its body and text, which are stored by digest. Its fields
    are ``ProviderResult``'s but ``raw`` and ``text`` (a test holds them equal)."""

    # fields in the published schema's order: ``type`` and ``key`` (_OutcomeLine, last base),
    # the outcome (Outcome), then these

    response_digest: Sha256 | None
    text_digest: Sha256 | None
    at: float

    @classmethod
    def of(
        cls,
        key: CallKey,
        outcome: Outcome,
        response_digest: Sha256 | None,
        text_digest: Sha256 | None,
        at: float,
    ) -> LedgerOutcome:
        """The line of ``outcome`` of the call ``key``, its body and text stored by digest."""
        return cls(
            type="outcome",
            key=key,
            **outcome.model_dump(),
            response_digest=response_digest,
            text_digest=text_digest,
            at=at,
        )


LedgerLine = Annotated[
    LedgerHeader | LedgerAuthorization | LedgerIntent | LedgerOutcome | LedgerHalt,
    Field(discriminator="type"),
]
LINE: TypeAdapter[LedgerLine] = TypeAdapter(LedgerLine)
"""Reads one ledger line (JSON) into its record."""

LEDGER_RECORDS = {
    "header": "LedgerHeader",
    "authorization": "LedgerAuthorization",
    "intent": "LedgerIntent",
    "outcome": "LedgerOutcome",
    "halt": "LedgerHalt",
}
"""A ledger line's ``type`` → the record (``$defs`` entry) it validates against."""

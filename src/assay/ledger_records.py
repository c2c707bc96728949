"""The shapes of the ledger's lines (``assay.ledger``), as frozen records.

The ledger writes plain JSON lines; these records say what each line holds, so a bundle can
validate every line it carries against the ``paa-operating-record`` schema.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from assay.providers.base import Usage
from assay.records import ExecutionStatus, Frozen

Sha256 = str


class LedgerHeader(Frozen):
    type: Literal["header"]
    run: str
    plan_hash: Sha256
    paid: bool
    at: float


class LedgerAuthorization(Frozen):
    """Written by ``assay authorize`` into a paid run's ledger: the token params.yaml carries
    and where the ledger was when it was issued (``assay.ledger.AuthorizationRecord``)."""

    type: Literal["authorization"]
    token: str
    ledger_root: str
    location: str
    at: float


class LedgerIntent(Frozen):
    type: Literal["intent"]
    key: str
    """``<cell id>#<step>``."""
    request_digest: Sha256
    reservation_nano_usd: int = Field(ge=0)
    at: float


class LedgerHalt(Frozen):
    type: Literal["halt"]
    reason: str
    at: float


class LedgerOutcome(Frozen):
    """A provider result without its body and text, which are stored by digest. Its fields
    are ``ProviderResult``'s but ``raw`` and ``text`` (a test holds them equal)."""

    type: Literal["outcome"]
    key: str
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
    response_digest: Sha256 | None
    text_digest: Sha256 | None
    at: float


LEDGER_RECORDS = {
    "header": "LedgerHeader",
    "authorization": "LedgerAuthorization",
    "intent": "LedgerIntent",
    "outcome": "LedgerOutcome",
    "halt": "LedgerHalt",
}
"""A ledger line's ``type`` → the record (``$defs`` entry) it validates against."""

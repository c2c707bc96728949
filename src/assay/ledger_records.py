"""The shapes of the ledger's lines (``assay.ledger``), as frozen records.

The ledger writes plain JSON lines; these records say what each line holds, so a bundle can
validate every line it carries against the ``paa-operating-record`` schema. An outcome holds
the provider result without its raw body and text (stored content-addressed instead, by
``response_digest`` and ``text_digest``), so its fields follow ``ProviderResult``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, create_model

from assay.providers.base import ProviderResult
from assay.records import Frozen

Sha256 = str


class LedgerHeader(Frozen):
    type: Literal["header"]
    run: str
    plan_hash: Sha256
    paid: bool
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


_STORED_APART = {"raw", "text"}
_result_fields: dict[str, Any] = {
    name: (field.annotation, field)
    for name, field in ProviderResult.model_fields.items()
    if name not in _STORED_APART
}
LedgerOutcome = create_model(  # type: ignore[call-overload]
    "LedgerOutcome",
    __base__=Frozen,
    __doc__="A provider result without its body and text, which are stored by digest.",
    type=(Literal["outcome"], ...),
    key=(str, ...),
    response_digest=(Sha256 | None, ...),
    text_digest=(Sha256 | None, ...),
    at=(float, ...),
    **_result_fields,
)

LEDGER_RECORDS = {
    "header": "LedgerHeader",
    "intent": "LedgerIntent",
    "outcome": "LedgerOutcome",
    "halt": "LedgerHalt",
}
"""A ledger line's ``type`` → the record (``$defs`` entry) it validates against."""

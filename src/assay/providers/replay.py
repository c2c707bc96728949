"""Replay: re-serve an earlier run's responses from its ledger by call key. No network.

A key the earlier ledger has no completed outcome for is a miss, and a miss fails closed:
``provider-error`` with ``halt`` set, so nothing is invented.
"""

from __future__ import annotations

from pathlib import Path

from assay.paid.ledger import Ledger
from assay.providers.base import ProviderRequest, ProviderResult


class ReplayProvider:
    def __init__(self, ledger_directory: Path) -> None:
        self.source = Ledger(ledger_directory)
        if not self.source.path.exists():
            raise FileNotFoundError(f"replay ledger not found: {self.source.path}")
        self.outcomes = self.source.state().outcomes

    def complete(self, request: ProviderRequest) -> ProviderResult:
        outcome = self.outcomes.get(request.key)
        if outcome is None or outcome.status != "completed" or not outcome.text_digest:
            return ProviderResult(
                status="provider-error", reason="replay-miss", halt=True, served_provider="replay"
            )
        return ProviderResult(
            status="completed",
            text=self.source.load(outcome.text_digest).decode("utf-8"),
            raw=self.source.load(outcome.response_digest) if outcome.response_digest else b"",
            usage=outcome.usage,
            cost_usd=0.0,
            generation_id=outcome.generation_id,
            served_model=outcome.served_model,
            served_provider=outcome.served_provider,
            no_charge_proven=True,
        )

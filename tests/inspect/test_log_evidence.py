"""A log's times come from the run's ledger: its header's time is when the run began, a call's
latest intent when it was sent and its latest outcome when it was answered; a run without a
ledger has none."""

from __future__ import annotations

from pathlib import Path

from assay.core.records import CallKey, Usage
from assay.inspect.log_evidence import CallTimes, ledger_times
from assay.paid.ledger import Ledger
from assay.paid.ledger_records import LedgerHeader, LedgerIntent, Outcome

ANSWERED = Outcome(
    status="completed", reason=None, halt=False, usage=Usage(), cost_usd=0.0, generation_id=None,
    served_model="m", served_provider=None, finish_reason="stop", detail=None,
    no_charge_proven=False, latency_seconds=0.5,
)  # fmt: skip


def test_the_ledger_s_times_are_the_run_s_and_each_call_s(tmp_path: Path) -> None:
    ledger = Ledger.open(tmp_path, "r", "h" * 64, paid=False)
    first, second = CallKey(cell_id="a/clean/r1", step=1), CallKey(cell_id="a/clean/r2", step=1)
    for key in (first, second, first):  # the first call sent twice: its latest intent counts
        ledger.write_intent(key, request_digest="d" * 64, reservation_nano_usd=0)
    ledger.write_outcome(first, ANSWERED, raw=b"{}", text="answer")
    lines = list(ledger.records())
    header, intents = lines[0], [line for line in lines if isinstance(line, LedgerIntent)]
    assert isinstance(header, LedgerHeader)
    began, times = ledger_times(ledger)
    assert began == header.at
    assert times[first] == CallTimes(sent=intents[2].at, answered=lines[-1].at)
    assert times[second] == CallTimes(sent=intents[1].at, answered=None)


def test_a_run_without_a_ledger_has_no_times(tmp_path: Path) -> None:
    assert ledger_times(Ledger.at(tmp_path, "r", "h" * 64)) == (None, {})

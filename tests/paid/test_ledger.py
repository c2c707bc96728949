"""The ledger writes and reads its own line records, in the one written form it always had."""

from pathlib import Path

import pytest

from assay.core.digest import canonical_json
from assay.core.records import CallKey
from assay.paid.ledger import Ledger
from assay.paid.ledger_records import LINE, LedgerIntent, LedgerOutcome, Outcome

LINES = (Path(__file__).parents[1] / "cases" / "ledger_lines.jsonl").read_bytes().splitlines(True)
"""One line of each kind, as ledgers written before the typed records hold them."""


@pytest.mark.parametrize("raw", LINES, ids=[LINE.validate_json(r).type for r in LINES])
def test_a_line_read_and_written_again_is_the_same_bytes(raw):
    assert canonical_json(LINE.validate_json(raw).model_dump(mode="json")) + b"\n" == raw


@pytest.mark.parametrize(
    ("written", "key"),
    [
        ("s/clean/r1#1", CallKey(cell_id="s/clean/r1", step=1)),
        ("a#b#12", CallKey(cell_id="a#b", step=12)),
    ],
)
def test_a_call_key_has_one_written_form(written, key):
    assert (CallKey.model_validate(written), str(key), key.model_dump()) == (key, written, written)


@pytest.mark.parametrize("malformed", ["c", "c#", "#1", "c#0", "c#x"])
def test_a_malformed_call_key_is_refused(malformed):
    with pytest.raises(ValueError, match="call key|greater than or equal to 1"):
        CallKey.model_validate(malformed)


def test_what_the_ledger_writes_it_reads_back_as_the_same_records(tmp_path):
    ledger = Ledger.open(tmp_path, "r", "a" * 64, paid=False)
    key = CallKey(cell_id="s/clean/r1", step=1)
    intent = ledger.write_intent(key, request_digest="d" * 64, reservation_nano_usd=5)
    reported = Outcome.model_validate(
        {
            "status": "completed",
            "reason": None,
            "halt": False,
            "usage": {"prompt_tokens": 3},
            "cost_usd": 0.25,
            "generation_id": "g",
            "served_model": "m",
            "served_provider": "p",
            "finish_reason": "stop",
            "detail": None,
            "no_charge_proven": False,
            "latency_seconds": 0.5,
        }
    )
    outcome = ledger.write_outcome(key, reported, raw=b"{}", text="answer")
    state = ledger.state()
    assert (state.intents[key], state.outcomes[key], state.attempts[key]) == (intent, outcome, 1)
    assert isinstance(state.intents[key], LedgerIntent)
    assert isinstance(state.outcomes[key], LedgerOutcome)
    assert ledger.text(outcome) == "answer" and ledger.load(outcome.response_digest) == b"{}"
    assert state.completed(key) and state.reserved_nano_usd == 5

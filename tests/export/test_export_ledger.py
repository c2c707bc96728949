"""The ledger files a bundle carries: its complete lines, read into their records by the ledger's
own reader, and the bodies its outcomes name."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.digest import sha256_hex
from assay.core.records import CallKey, Usage
from assay.export.build import ExportError, _ledger_files
from assay.paid.ledger import LEDGER_FILE, Ledger
from assay.paid.ledger_records import Outcome

KEY = CallKey(cell_id="s/clean/r1", step=1)


def _ledger(root: Path) -> Ledger:
    ledger = Ledger.open(root, "r", "a" * 64, paid=False)
    ledger.write_intent(KEY, request_digest="b" * 64, reservation_nano_usd=0)
    outcome = Outcome(status="completed", reason=None, halt=False, usage=Usage(), cost_usd=None,
                      generation_id=None, served_model=None, served_provider=None,
                      finish_reason="stop", detail=None, no_charge_proven=True,
                      latency_seconds=0.1)  # fmt: skip
    ledger.write_outcome(KEY, outcome, raw=b'{"body": 1}', text="def implement(): ...")
    return ledger


def test_the_complete_lines_and_every_body_an_outcome_names(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    with ledger.path.open("ab") as handle:
        handle.write(b'{"type": "halt", "rea')  # torn: never acted on
    files = dict(_ledger_files(ledger.directory))
    lines = ledger.path.read_bytes()
    assert files.pop(f"ledger/{LEDGER_FILE}") == lines[: lines.rfind(b"\n") + 1]
    bodies = [b'{"body": 1}', b"def implement(): ..."]
    assert files == {f"ledger/objects/{sha256_hex(body)}": body for body in bodies}


def test_a_line_that_is_no_ledger_record_is_refused_with_its_number(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    with ledger.path.open("ab") as handle:
        handle.write(b'{"type": "intent", "key": "s/clean/r1#1", "at": 1.0}\n')
    with pytest.raises(ExportError, match=r"ledger.jsonl: line 4: "):
        dict(_ledger_files(ledger.directory))

"""Execute's progress line: calls decided out of the plan's total, and for a paid run the money
reserved and reported so far against the ceiling, updated as each call is decided."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.paid.spend_progress import SpendProgress
from assay.providers.base import ProviderResult

CASES = Path(__file__).parents[1] / "cases"
_spec = importlib.util.spec_from_file_location("counting_run", CASES / "counting_run.py")
counting_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(counting_run)
OK = "```python\ndef implement(value):\n    return value\n```"


class Paid:
    def complete(self, request):
        return ProviderResult(status="completed", text=OK, raw=OK.encode(), cost_usd=0.001)


@pytest.mark.parametrize("paid", [True, False])
def test_spend_progress_follows_every_call(tmp_path, paid, capsys):
    plan, prompts = counting_run.make_plan(paid)
    ledger = Ledger.open(tmp_path / "ledger", plan.run, plan.hash, paid=paid)
    seen = []
    with SpendProgress(plan) as observe:

        def watch(record):
            observe(record)
            seen.append(record)

        records = Executor(plan, ledger, prompts, Paid).run(watch)
    assert seen == records and len(records) == 48
    log = capsys.readouterr().err
    assert "48/48" in log and f"execute {plan.run}" in log
    if paid:
        assert f"reserved $2.8800 / ceiling ${plan.budget.ceiling_usd:.2f}" in log
        assert "reported $0.0480" in log
    else:
        assert "ceiling" not in log

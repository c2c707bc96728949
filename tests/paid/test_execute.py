"""Billing invariants of the execute loop: one request per call ever, the ceiling, halts."""

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from assay.paid.execute import Executor
from assay.paid.ledger import Ledger, LedgerBindingError
from assay.providers.base import ProviderResult

CASES = Path(__file__).parents[1] / "cases"
_spec = importlib.util.spec_from_file_location("counting_run", CASES / "counting_run.py")
counting_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(counting_run)

OK = "```python\ndef implement(value):\n    return value\n```"


class ScriptedProvider:
    """Answers from a script: call number -> ProviderResult (default: a completion)."""

    def __init__(self, script=None):
        self.script = script or {}
        self.requests = []

    def complete(self, request):
        self.requests.append(str(request.key))
        result = self.script.get(len(self.requests))
        if isinstance(result, Exception):
            raise result
        return result or ProviderResult(
            status="completed", text=OK, raw=OK.encode(), cost_usd=0.001
        )


def run(tmp_path, provider, *, paid=True, plan_update=None):
    plan, prompts = counting_run.make_plan(paid)
    if plan_update:
        plan = plan.model_copy(update={"budget": plan.budget.model_copy(update=plan_update)})
    ledger = Ledger.open(tmp_path / "ledger", plan.run, plan.hash, paid=paid)
    return Executor(plan, ledger, prompts, lambda: provider).run(), ledger


def test_seed_budget_admits_exactly_48_requests(tmp_path):
    provider = ScriptedProvider()
    records, _ = run(tmp_path, provider)
    assert len(provider.requests) == 48 == len(set(provider.requests))
    assert Counter(r.status for r in records) == {"completed": 48}
    assert sum(r.reservation_usd for r in records) == pytest.approx(2.88)


def test_ceiling_halts_admission_before_passing_it(tmp_path):
    provider = ScriptedProvider()
    records, ledger = run(tmp_path, provider, plan_update={"ceiling_usd": 0.30})
    assert len(provider.requests) == 5
    assert [r.status for r in records[:5]] == ["completed"] * 5
    assert all(
        r.status == "budget-halted" and r.reason.startswith("ceiling-reached") for r in records[5:]
    )
    assert ledger.state().halt_reason.startswith("ceiling-reached")


@pytest.mark.parametrize(
    "failure",
    [
        ProviderResult(status="provider-error", reason="http-429", halt=True),
        ProviderResult(status="provider-error", reason="http-503", halt=True),
        ProviderResult(status="provider-error", reason="connection-reset", halt=True),
        ProviderResult(status="provider-error", reason="read-timeout", halt=True),
        ProviderResult(status="identity-mismatch", reason="served-by-other-provider", halt=True),
        RuntimeError("adapter bug"),
    ],
    ids=["429", "5xx", "reset", "timeout", "identity", "adapter-exception"],
)
def test_failure_halts_and_every_later_call_is_budget_halted(tmp_path, failure):
    provider = ScriptedProvider({3: failure})
    records, _ = run(tmp_path, provider)
    assert len(provider.requests) == 3
    assert [r.status for r in records[:2]] == ["completed", "completed"]
    assert records[2].status in ("provider-error", "identity-mismatch") and records[2].halt
    assert {r.status for r in records[3:]} == {"budget-halted"}


def test_proven_free_failure_continues(tmp_path):
    free_failure = ProviderResult(
        status="provider-error", reason="http-400-no-charge-proven", no_charge_proven=True
    )
    provider = ScriptedProvider({2: free_failure})
    records, _ = run(tmp_path, provider)
    assert len(provider.requests) == 48
    assert Counter(r.status for r in records) == {"completed": 47, "provider-error": 1}


def test_paid_run_that_began_is_never_resumed(tmp_path):
    provider = ScriptedProvider({4: RuntimeError("boom")})
    run(tmp_path, provider)
    again = ScriptedProvider()
    records, _ = run(tmp_path, again)
    assert again.requests == []
    assert Counter(r.status for r in records) == {
        "completed": 3,
        "provider-error": 1,
        "budget-halted": 44,
    }


def test_free_run_retries_failed_calls_on_the_next_invocation(tmp_path):
    outage = ProviderResult(status="provider-error", reason="http-503", halt=True)
    first = ScriptedProvider({3: outage})
    records, _ = run(tmp_path, first, paid=False)
    assert len(first.requests) == 3
    # a free run has no budget: its later calls are `halted`, the reason naming what stopped it
    assert Counter(r.status for r in records) == {
        "completed": 2,
        "provider-error": 1,
        "halted": 45,
    }
    assert {r.reason for r in records[3:]} == {
        f"halted-after: {records[2].cell_id} step 1 (http-503)"
    }
    again = ScriptedProvider()
    records, _ = run(tmp_path, again, paid=False)
    assert again.requests[0] == first.requests[2] and len(again.requests) == 46
    assert Counter(r.status for r in records) == {"completed": 48}
    assert Counter(r.attempts for r in records) == {1: 47, 2: 1}


def test_free_call_failing_every_attempt_ends_missing_not_retried_forever(tmp_path):
    from assay.paid.execute import FREE_ATTEMPTS, retryable

    outage = ProviderResult(status="provider-error", reason="http-503", halt=False)
    for attempt in range(1, FREE_ATTEMPTS + 1):
        provider = ScriptedProvider({1: outage})
        records, _ = run(tmp_path, provider, paid=False)
        assert records[0].attempts == attempt
    assert not retryable(records[0])
    last = ScriptedProvider()
    records, _ = run(tmp_path, last, paid=False)
    assert last.requests == []
    assert (records[0].status, records[0].attempts) == ("provider-error", FREE_ATTEMPTS)


def test_an_answer_read_from_a_log_is_final_the_first_time(tmp_path):
    """An Inspect log gives the same answer again: a failed sample is never asked twice."""
    from assay.providers.base import ModelProfile

    plan, prompts = counting_run.make_plan(False)
    logged = ModelProfile(provider="inspect-log", model="m", log="inspect-logs/run.eval")
    plan = plan.model_copy(update={"model": logged})
    failed = ProviderResult(status="provider-error", reason="inspect-error", detail="x")
    for _ in range(2):
        provider = ScriptedProvider({2: failed})
        ledger = Ledger.open(tmp_path / "ledger", plan.run, plan.hash, paid=False)
        records = Executor(plan, ledger, prompts, lambda p=provider: p).run()
    assert provider.requests == [], "nothing is asked again"
    assert Counter(r.status for r in records) == {"completed": 47, "provider-error": 1}
    assert {r.attempts for r in records} == {1}


def test_paid_ledger_of_another_plan_refuses(tmp_path):
    run(tmp_path, ScriptedProvider(), plan_update={"ceiling_usd": 0.12})
    plan, _ = counting_run.make_plan(True)
    with pytest.raises(LedgerBindingError, match="new run id"):
        Ledger.open(tmp_path / "ledger", plan.run, "0" * 64, paid=True)


def test_torn_last_line_is_ignored(tmp_path):
    _, ledger = run(tmp_path, ScriptedProvider(), plan_update={"ceiling_usd": 0.12})
    before = ledger.state()
    with ledger.path.open("ab") as handle:
        handle.write(b'{"type":"intent","key":"x')
    state = ledger.state()
    assert len(state.intents) == 2 and state.intents == before.intents


def _run_process(tmp_path, paid, hang_at):
    return subprocess.Popen(
        [
            sys.executable,
            str(CASES / "counting_run.py"),
            str(tmp_path / "ledger"),
            str(tmp_path / "sent.txt"),
            "1" if paid else "0",
            str(hang_at),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )


def _kill_mid_request(tmp_path, paid):
    process = _run_process(tmp_path, paid, hang_at=5)
    counter = tmp_path / "sent.txt"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if counter.exists() and len(counter.read_text().splitlines()) == 5:
            break
        time.sleep(0.05)
    else:
        process.kill()
        pytest.fail("the run never reached its fifth request")
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


@pytest.mark.process
def test_killed_paid_run_sends_nothing_on_rerun(tmp_path):
    _kill_mid_request(tmp_path, paid=True)
    rerun = _run_process(tmp_path, paid=True, hang_at=0)
    out, _ = rerun.communicate(timeout=120)
    assert rerun.returncode == 0
    sent = (tmp_path / "sent.txt").read_text().splitlines()
    assert len(sent) == 5 == len(set(sent)), "a cell was sent twice"
    statuses = Counter(line.rsplit(" ", 1)[1] for line in out.splitlines())
    assert statuses == {"completed": 4, "interrupted": 1, "not-run": 43}


@pytest.mark.process
def test_killed_free_run_resumes_without_resending_completed_calls(tmp_path):
    _kill_mid_request(tmp_path, paid=False)
    rerun = _run_process(tmp_path, paid=False, hang_at=0)
    out, _ = rerun.communicate(timeout=120)
    assert rerun.returncode == 0
    sent = Counter((tmp_path / "sent.txt").read_text().splitlines())
    # the four completed calls are never re-sent; only the interrupted one is sent again
    assert sum(sent.values()) == 49 and [k for k, n in sent.items() if n > 1] == [list(sent)[4]]
    assert Counter(line.rsplit(" ", 1)[1] for line in out.splitlines()) == {"completed": 48}

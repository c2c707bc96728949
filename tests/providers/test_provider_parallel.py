"""Several paid runs at once through real `dvc repro` (the send stage), against slow local
OpenRouter-shaped servers on 127.0.0.1, one server per run so each server sees one run only.

Each server records when every chat request arrived and when its answer left. The tests assert
what issue 26 asks of parallel runs: the runs' requests overlap in time; within a run they are
sequential and in the plan's order; ``sending.parallel_runs_per_key`` caps how many runs of one
key are in flight; a halt stops only its run; and a ``kill -9`` of `dvc repro` mid-flight, then a
re-run, sends no request twice and loses no response that was recorded.

One repository is prepared per module (three paid runs of two v1 subjects each, planned); each
test works on its own copy.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from paid_run import CHAT, RUN_CASE, narrow_to_paid_runs, serve_free_endpoints
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

from assay import evidence
from assay.core.digest import sha256_hex
from assay.pipeline.layout import address
from tests.conftest import Repo, copy_repo, make_repo, stages_ran

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

RUNS = ("par-a", "par-b", "par-c")
REQUESTS = RUN_CASE["requests"]  # per run: 2 subjects x 2 arms x 2 repeats
DELAY = 0.3  # seconds each answer takes
GIT_USER = ("-c", "user.email=t@assay.invalid", "-c", "user.name=t")


@dataclass
class Timed:
    """One run's server: every chat request's prompt and (arrived, answered) times."""

    server: LocalServer
    calls: list[tuple[str, float, float]] = field(default_factory=list)
    fail_at: int | None = None
    hold_at: int | None = None
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def reset(self) -> None:
        self.server.requests.clear()
        self.server.routes.clear()
        self.calls.clear()
        self.fail_at = self.hold_at = None
        self.held.clear()
        self.release.clear()
        serve_free_endpoints(self.server)
        numbers = itertools.count(1)
        lock = threading.Lock()

        def answer(seen: Seen) -> Reply:
            arrived = time.monotonic()
            with lock:
                number = next(numbers)
            if number == self.hold_at:
                self.held.set()
                self.release.wait(120)
            time.sleep(DELAY)
            prompt = json.loads(seen.body)["messages"][-1]["content"]
            self.calls.append((sha256_hex(prompt), arrived, time.monotonic()))
            if number == self.fail_at:
                return Reply(status=429, body=b'{"error":{"code":429,"message":"rate limited"}}')
            completion = {"id": f"gen-{number}", **RUN_CASE["completion"]}
            return Reply(body=json.dumps(completion).encode())

        self.server.routes[CHAT] = answer

    @property
    def sent(self) -> int:
        return self.server.count(CHAT)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, Timed]]:
    running = {run: Timed(LocalServer()) for run in RUNS}
    for timed in running.values():
        timed.server.start()
    yield running
    for timed in running.values():
        timed.release.set()
        timed.server.stop()


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, servers: dict[str, Timed]) -> Repo:
    """Three paid runs of the same two v1 subjects, each with a profile at its own server (all
    with the same key), planned."""
    repo = make_repo(tmp_path_factory.mktemp("parallel") / "repo")
    narrow_to_paid_runs(repo, {run: timed.server for run, timed in servers.items()})
    repo.dvc("repro", *(address("plan", run) for run in RUNS))
    repo.git(*GIT_USER, "add", "-A")
    repo.git(*GIT_USER, "commit", "-qm", "three paid runs, planned")
    return repo


@pytest.fixture
def paid_runs(prepared: Repo, servers: dict[str, Timed], tmp_path: Path) -> Repo:
    for timed in servers.values():
        timed.reset()
    copy = copy_repo(prepared, tmp_path / "repo")
    copy.env["OPENROUTER_API_KEY"] = PLANTED_KEY
    return copy


def edit_params(repo: Repo, change: Callable[[dict[str, Any]], None]) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    change(params)
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def authorize(repo: Repo, *runs: str, partial: bool = False) -> None:
    for run in runs or RUNS:
        plan_hash = repo.read(f"data/plan/{run}/plan.sha256").strip()
        extra = ("--accept-partial",) if partial else ()
        repo.run("python", "-m", "assay.cli", "authorize", run, "--plan-hash", plan_hash, *extra)


def send_all(repo: Repo, *, check: bool = True) -> Any:
    """The three runs' execute stages and what they need (the send stage among them)."""
    return repo.dvc("repro", *(address("execute", run) for run in RUNS), check=check)


def cells(repo: Repo, run: str) -> list[dict[str, Any]]:
    return pq.read_table(repo.path / "data" / "execute" / run / "cells.parquet").to_pylist()


def statuses(repo: Repo, run: str) -> list[str]:
    return [row["status"] for row in cells(repo, run)]


def most_in_flight(servers: dict[str, Timed]) -> int:
    """The most chat requests any instant saw in flight, across every server."""
    events = sorted(
        (moment, step)
        for timed in servers.values()
        for _, arrived, answered in timed.calls
        for moment, step in ((arrived, 1), (answered, -1))
    )
    return max(itertools.accumulate(step for _, step in events))


def assert_sequential_in_plan_order(repo: Repo, run: str, timed: Timed) -> None:
    plan = evidence.read_plan(run, repo.path / "data")
    assert [digest for digest, _, _ in timed.calls] == [c.prompt_digest for c in plan.cells]
    for (_, _, answered), (_, arrived, _) in itertools.pairwise(timed.calls):
        assert arrived >= answered, f"{run}: a request was sent before the previous one ended"


def test_paid_runs_send_at_the_same_time_each_in_plan_order(
    paid_runs: Repo, servers: dict[str, Timed]
) -> None:
    authorize(paid_runs)
    repro = paid_runs.dvc("repro")
    assert {"send", *(f"execute@{run}" for run in RUNS)} <= stages_ran(repro.stdout)
    for run, timed in servers.items():
        assert timed.sent == REQUESTS
        assert_sequential_in_plan_order(paid_runs, run, timed)
        assert statuses(paid_runs, run) == ["completed"] * REQUESTS
    spans = {run: (t.calls[0][1], t.calls[-1][2]) for run, t in servers.items()}
    for (a, (a_start, a_end)), (b, (b_start, b_end)) in itertools.combinations(spans.items(), 2):
        assert a_start < b_end and b_start < a_end, f"{a} and {b} did not overlap"
    assert most_in_flight(servers) == len(RUNS)
    sending = max(end for _, end in spans.values()) - min(start for start, _ in spans.values())
    assert sending < 0.6 * len(RUNS) * REQUESTS * DELAY, "no faster than one run after another"

    seen = sum(t.sent for t in servers.values())
    forced = paid_runs.dvc("repro", "--force", "--single-item", "send")
    assert "send" in stages_ran(forced.stdout)
    assert sum(t.sent for t in servers.values()) == seen, "a re-run sent a request"
    for run in RUNS:
        assert statuses(paid_runs, run) == ["completed"] * REQUESTS


def test_parallel_runs_per_key_caps_the_runs_in_flight(
    paid_runs: Repo, servers: dict[str, Timed]
) -> None:
    edit_params(paid_runs, lambda p: p["sending"].update(parallel_runs_per_key=2))
    authorize(paid_runs)
    send_all(paid_runs)
    assert most_in_flight(servers) == 2
    for run, timed in servers.items():
        assert_sequential_in_plan_order(paid_runs, run, timed)
        assert statuses(paid_runs, run) == ["completed"] * REQUESTS
    # the third run started only once one of the first two had finished
    ends = sorted(t.calls[-1][2] for t in servers.values())
    assert servers["par-c"].calls[0][1] >= min(ends[:2])


def test_a_halt_or_a_ceiling_stops_only_its_own_run(
    paid_runs: Repo, servers: dict[str, Timed]
) -> None:
    servers["par-a"].fail_at = 3  # a 429: halts par-a
    edit_params(paid_runs, lambda p: p["models"]["par-c-model"].update(ceiling_usd=0.30))
    paid_runs.dvc("repro", address("plan", "par-c"))
    authorize(paid_runs, "par-a", "par-b")
    authorize(paid_runs, "par-c", partial=True)
    send_all(paid_runs)
    assert servers["par-a"].sent == 3
    assert Counter(statuses(paid_runs, "par-a")) == {"completed": 2, "provider-error": 1,
                                                 "budget-halted": 5}  # fmt: skip
    assert servers["par-b"].sent == REQUESTS
    assert statuses(paid_runs, "par-b") == ["completed"] * REQUESTS
    assert servers["par-c"].sent == 5, "the ceiling admits 5 of 8"
    assert Counter(statuses(paid_runs, "par-c")) == {"completed": 5, "budget-halted": 3}
    assert most_in_flight(servers) == len(RUNS)


def test_kill_mid_flight_then_rerun_sends_nothing_twice(
    paid_runs: Repo, servers: dict[str, Timed]
) -> None:
    for timed in servers.values():
        timed.hold_at = 3  # each run's third request waits until the kill
    authorize(paid_runs)
    process = paid_runs.dvc_process("repro", *(address("execute", run) for run in RUNS))
    try:
        for timed in servers.values():
            assert timed.held.wait(300), process.communicate(timeout=60)[0]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        for timed in servers.values():
            timed.release.set()
    assert process.returncode == -signal.SIGKILL
    seen = {run: timed.sent for run, timed in servers.items()}
    assert seen == dict.fromkeys(RUNS, 3), "three runs in flight at the kill"

    after = send_all(paid_runs)
    assert "send" in stages_ran(after.stdout)
    assert {run: timed.sent for run, timed in servers.items()} == seen, "a request went twice"
    for run in RUNS:
        rows = cells(paid_runs, run)
        assert [row["status"] for row in rows] == ["completed"] * 2 + ["interrupted"] + [
            "not-run"
        ] * (REQUESTS - 3)
        assert all(row["text"] for row in rows[:2]), "a received response was lost"
        assert {row["generation_id"] for row in rows[:2]} == {"gen-1", "gen-2"}
        ledger = [
            json.loads(line)
            for path in (paid_runs.path / "ledger" / run).rglob("ledger.jsonl")
            for line in path.read_text().splitlines()
        ]
        kinds = Counter(record["type"] for record in ledger)
        assert (kinds["intent"], kinds["outcome"]) == (3, 2)
    again = send_all(paid_runs)
    assert {run: timed.sent for run, timed in servers.items()} == seen
    assert "send" not in stages_ran(again.stdout)


def test_dvc_repro_of_one_runs_execute_stage_sends_that_run_only(
    paid_runs: Repo, servers: dict[str, Timed]
) -> None:
    """`dvc repro execute@par-a` with all three runs authorized sends par-a only; the next
    `dvc repro` (every run) sends the other two through their own execute stages, and neither
    sends anything twice."""
    authorize(paid_runs)
    one = paid_runs.dvc("repro", address("execute", "par-a"))
    assert {run: timed.sent for run, timed in servers.items()} == {
        "par-a": REQUESTS, "par-b": 0, "par-c": 0
    }  # fmt: skip
    assert statuses(paid_runs, "par-a") == ["completed"] * REQUESTS
    assert not (paid_runs.path / "data" / "execute" / "par-b").exists()
    for run in ("par-b", "par-c"):
        assert (
            f"{run}: not sent by this stage: `dvc repro {address('execute', 'par-a')}` asks for "
            f"other runs; `uv run --env-file .env dvc repro {address('execute', run)}` sends it"
        ) in one.stdout, one.stdout

    rest = paid_runs.dvc("repro")
    ran = stages_ran(rest.stdout)
    assert "send" not in ran and {"execute@par-b", "execute@par-c"} <= ran
    assert {run: timed.sent for run, timed in servers.items()} == dict.fromkeys(RUNS, REQUESTS)
    for run in RUNS:
        assert statuses(paid_runs, run) == ["completed"] * REQUESTS
        assert_sequential_in_plan_order(paid_runs, run, servers[run])

    # the send stage run again for every run decides the same: nothing is sent twice, and the
    # cells a run's own execute stage sent are the ones its receipt now gives
    before = {run: cells(paid_runs, run) for run in RUNS}
    paid_runs.dvc("repro", "--force", "--single-item", "send")
    paid_runs.dvc("repro")
    assert {run: timed.sent for run, timed in servers.items()} == dict.fromkeys(RUNS, REQUESTS)
    assert {run: cells(paid_runs, run) for run in RUNS} == before


def test_a_keys_credit_must_cover_every_run_about_to_begin(
    paid_runs: Repo, servers: dict[str, Timed]
) -> None:
    """$1.00 left on the key covers one run's $0.48 ceiling, not three runs' $1.44."""
    left = {"data": {"label": "sk-or-v1-abc...xyz", "limit": 5, "limit_remaining": 1.0}}
    for timed in servers.values():
        timed.server.routes["/api/v1/key"] = Reply(body=json.dumps(left).encode())
    authorize(paid_runs)
    refused = send_all(paid_runs, check=False)
    assert refused.returncode != 0
    assert refused.stderr.count("less than the ceiling $1.44") == len(RUNS), refused.stderr
    assert "the ceilings of the 3 runs of this key about to begin" in refused.stderr
    assert sum(timed.sent for timed in servers.values()) == 0
    assert not (paid_runs.path / "data" / "execute" / RUNS[0] / "cells.parquet").exists()

    edit_params(paid_runs, lambda p: p["runs"]["par-c"].update(allow_paid=False, authorization=None,
                                                           plan_ref=None))  # fmt: skip
    edit_params(paid_runs, lambda p: p["runs"]["par-b"].update(allow_paid=False, authorization=None,
                                                           plan_ref=None))  # fmt: skip
    send_all(paid_runs)
    assert servers["par-a"].sent == REQUESTS
    assert statuses(paid_runs, "par-a") == ["completed"] * REQUESTS
    assert set(statuses(paid_runs, "par-b")) == {"not-run"}


def test_a_fault_in_one_runs_thread_still_leaves_the_others_receipts(
    paid_runs: Repo, servers: dict[str, Timed], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An error that is not assay's own (a bug) in one run's thread is raised, but only after
    every other run's receipt is written: their execute stages then need nothing sent again."""
    from assay.config.params import load_params
    from assay.pipeline import send
    from assay.providers.factory import for_run

    def factory(plan: Any, ledger_dir: Path) -> Callable[[], Any]:
        if plan.run == "par-b":
            raise RuntimeError("a bug in par-b's thread")
        return for_run(plan, ledger_dir)

    authorize(paid_runs)
    paid_runs.dvc("repro", *(address("authorize", run) for run in RUNS))
    monkeypatch.chdir(paid_runs.path)
    monkeypatch.setenv("OPENROUTER_API_KEY", PLANTED_KEY)
    with pytest.raises(RuntimeError, match="a bug in par-b's thread"):
        send.run(load_params(), factory)
    receipts = {run: (paid_runs.path / "data" / "send" / run / "receipt.json").exists()
                for run in RUNS}  # fmt: skip
    assert receipts == {"par-a": True, "par-b": False, "par-c": True}
    assert {run: timed.sent for run, timed in servers.items()} == {
        "par-a": REQUESTS, "par-b": 0, "par-c": REQUESTS
    }  # fmt: skip

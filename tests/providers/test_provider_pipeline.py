"""A paid run through real `dvc repro` against a local OpenRouter-shaped server.

Each test copies the repository (the ``repo`` fixture), narrows it to one two-subject v1 run
whose profile points at the server, and asserts what the server saw: nothing before
authorization, one request per call after it, nothing after a crash or a failed pre-flight,
and the planted key in no file the pipeline wrote.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

from assay.pipeline.layout import address
from tests.conftest import stages_ran

CASES = Path(__file__).parent / "cases"
RUN_CASE = yaml.safe_load((CASES / "pipeline.yaml").read_text())
CHECKS = yaml.safe_load((CASES / "checks.yaml").read_text())
RUN = RUN_CASE["run"]
CHAT = RUN_CASE["chat_path"]
GENERATION = RUN_CASE["generation_path"]
REQUESTS = RUN_CASE["requests"]
COST = RUN_CASE["completion"]["usage"]["cost"]
CHECKED = ("/api/v1/models", "/api/v1/models/anthropic/claude-3-haiku/endpoints", "/api/v1/key")

pytestmark = [pytest.mark.dvc, pytest.mark.docker]


def serve_free_endpoints(server: LocalServer, endpoint: dict[str, Any] | None = None) -> None:
    """The models list, the model's endpoints and the key's limit, all passing by default."""
    models, endpoints, key = CHECKED
    server.routes[models] = Reply(body=json.dumps(CHECKS["models"]).encode())
    served = {**CHECKS["endpoint"], **(endpoint or {})}
    listing = {"data": {"id": "anthropic/claude-3-haiku", "endpoints": [served]}}
    server.routes[endpoints] = Reply(body=json.dumps(listing).encode())
    server.routes[key] = Reply(body=json.dumps(CHECKS["key"]).encode())


def completions(hold_at: int | None = None, hold: threading.Event | None = None) -> Any:
    """Answers each chat request with a completion (id ``gen-N``); request ``hold_at`` waits
    for ``hold`` first, so a test can kill the client between send and outcome."""
    numbers = itertools.count(1)

    def answer(seen: Seen) -> Reply:
        number = next(numbers)
        if number == hold_at and hold is not None:
            hold.wait(120)
        return Reply(body=json.dumps({"id": f"gen-{number}", **RUN_CASE["completion"]}).encode())

    return answer


def narrow_to_paid_run(repo: Any, server: LocalServer) -> None:
    """params.yaml with one paid run of two v1 subjects whose profile points at ``server``."""
    two = repo.path / RUN_CASE["fixtures"] / "v1"
    for task in RUN_CASE["tasks"]:
        shutil.copytree(repo.path / "fixtures" / "v1" / task, two / task)
    params = yaml.safe_load(repo.read("params.yaml"))
    profile = dict(RUN_CASE["profile"])
    profile["base_url"] = server.url + profile.pop("base_path")
    params["fixtures"] = RUN_CASE["fixtures"]
    params["scenarios"] = ["v1"]
    params["models"] = {RUN_CASE["run_spec"]["model"]: profile}
    params["runs"] = {RUN: RUN_CASE["run_spec"]}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.env["OPENROUTER_API_KEY"] = PLANTED_KEY


def authorize(repo: Any) -> str:
    plan_hash = repo.read(f"data/plan/{RUN}/plan.sha256").strip()
    repo.run("python", "-m", "assay.cli", "authorize", RUN, "--plan-hash", plan_hash)
    return plan_hash


def cells(repo: Any) -> list[dict[str, Any]]:
    return pq.read_table(repo.path / "data" / "execute" / RUN / "cells.parquet").to_pylist()


def execution(repo: Any) -> dict[str, dict[str, Any]]:
    report = json.loads(repo.read(f"data/report/runs/{RUN}/abstraction.json"))
    return {row["status"]: row for row in report["execution"]}


def ledger_records(repo: Any) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in sorted((repo.path / "ledger" / RUN).rglob("ledger.jsonl"))
        for line in path.read_text().splitlines()
    ]


def assert_key_written_nowhere(repo: Any, *outputs: str) -> None:
    key = PLANTED_KEY.encode()
    written = [*repo.path.rglob("dvc.lock"), repo.path / "params.yaml"]
    for folder in ("data", "ledger", "reports", ".dvc/cache"):
        written += [p for p in (repo.path / folder).rglob("*") if p.is_file()]
    assert len(written) > 20
    leaked = [
        str(p.relative_to(repo.path)) for p in written if p.exists() and key in p.read_bytes()
    ]
    assert leaked == []
    assert all(PLANTED_KEY not in output for output in outputs), "the key reached a log"


def test_two_subject_paid_run_end_to_end(repo: Any, server: LocalServer) -> None:
    serve_free_endpoints(server)
    server.routes[CHAT] = completions()
    narrow_to_paid_run(repo, server)

    waiting = repo.dvc("repro")
    assert server.requests == [], "nothing is sent, not even a free check, before authorization"
    assert execution(repo)["not-run"]["calls"] == REQUESTS
    assert not (repo.path / "ledger" / RUN).exists()

    authorize(repo)
    paid = repo.dvc("repro")
    assert server.count(CHAT) == REQUESTS
    assert (
        Counter(seen.body for seen in server.requests if seen.path == CHAT).most_common(1)[0][1]
        == 2
    ), "each prompt once per repeat"
    assert [seen.path for seen in server.requests[:3]] == list(CHECKED), "pre-flight first"
    assert "PASS  credit" in paid.stdout

    rows = cells(repo)
    assert Counter(row["status"] for row in rows) == {"completed": REQUESTS}
    assert sum(row["cost_usd"] for row in rows) == pytest.approx(REQUESTS * COST)
    assert {row["generation_id"] for row in rows} == {f"gen-{n}" for n in range(1, 9)}
    assert {
        (row["price_cap_prompt_usd_per_m"], row["price_cap_completion_usd_per_m"]) for row in rows
    } == {(0.25, 1.25)}
    assert {(row["finish_reason"], row["served_provider"]) for row in rows} == {
        ("stop", "Amazon Bedrock")
    }
    assert execution(repo) == {
        "completed": {
            "status": "completed",
            "calls": REQUESTS,
            "reserved_usd": pytest.approx(0.48),
            "reported_usd": pytest.approx(REQUESTS * COST),
        }
    }

    seen = len(server.requests)
    again = repo.dvc("repro")
    forced = repo.dvc("repro", "--force", "--single-item", address("execute", RUN))
    assert f"execute@{RUN}" in stages_ran(forced.stdout)
    assert len(server.requests) == seen, "a re-run sent a request"
    assert Counter(row["status"] for row in cells(repo)) == {"completed": REQUESTS}
    assert_key_written_nowhere(repo, waiting.stdout, paid.stdout, paid.stderr, again.stdout)


def test_crash_between_send_and_outcome_is_never_resent(repo: Any, server: LocalServer) -> None:
    hold = threading.Event()
    serve_free_endpoints(server)
    server.routes[CHAT] = completions(hold_at=3, hold=hold)
    narrow_to_paid_run(repo, server)
    repo.dvc("repro", address("plan", RUN))
    authorize(repo)

    process = repo.dvc_process("repro")
    try:
        deadline = time.monotonic() + 300
        while server.count(CHAT) < 3 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.count(CHAT) == 3, process.communicate(timeout=60)[0]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        hold.set()
    assert process.returncode == -signal.SIGKILL
    seen = len(server.requests)

    after = repo.dvc("repro")
    assert len(server.requests) == seen, "the re-run sent a request (or a pre-flight check)"
    assert server.count(CHAT) == 3
    statuses = [row["status"] for row in cells(repo)]
    assert statuses == ["completed", "completed", "interrupted"] + ["not-run"] * 5
    rows = {row["status"]: row for row in execution(repo).values()}
    assert rows["interrupted"]["calls"] == 1
    assert rows["interrupted"]["reserved_usd"] == pytest.approx(0.06)
    assert rows["not-run"] == {
        "status": "not-run",
        "calls": 5,
        "reserved_usd": 0.0,
        "reported_usd": 0.0,
    }
    kinds = Counter(record["type"] for record in ledger_records(repo))
    assert (kinds["intent"], kinds["outcome"]) == (3, 2)
    assert_key_written_nowhere(repo, after.stdout, after.stderr)


def test_failed_preflight_spends_nothing_and_begins_no_ledger(
    repo: Any, server: LocalServer
) -> None:
    serve_free_endpoints(server, RUN_CASE["overpriced_endpoint"])
    server.routes[CHAT] = completions()
    narrow_to_paid_run(repo, server)
    repo.dvc("repro", address("plan", RUN))
    authorize(repo)

    failed = repo.dvc("repro", check=False)
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0
    assert "pre-flight checks failed, so nothing was sent and the ledger was not begun" in output
    assert f"FAIL  prompt-price      {RUN_CASE['overpriced_line']}" in output
    assert f"assay check-provider {RUN}" in output
    assert server.count(CHAT) == 0
    assert {seen.method for seen in server.requests} == {"GET"}
    # `assay authorize` created the run's ledger (its token); the failed pre-flight began nothing
    kinds = Counter(record["type"] for record in ledger_records(repo))
    assert kinds == {"header": 1, "authorization": 1}, "the ledger was begun"
    assert not (repo.path / "data" / "execute" / RUN / "cells.parquet").exists()
    assert_key_written_nowhere(repo, output)


def test_echoed_key_is_written_nowhere(repo: Any, server: LocalServer) -> None:
    """The server echoes the request's Authorization header in one error body (a 503 that the
    generation record proves free, so the run continues); no output holds the key."""
    echo = RUN_CASE["echo"]
    answer = completions()

    def echoing(seen: Seen) -> Reply:
        if server.count(CHAT) != 3:
            return answer(seen)
        message = f"upstream refused {seen.headers['authorization']}"
        body = {"error": {"code": echo["status"], "message": message}}
        return Reply(
            status=echo["status"],
            headers={"X-Generation-Id": "gen-echo"},
            body=json.dumps(body).encode(),
        )

    serve_free_endpoints(server)
    server.routes[CHAT] = echoing
    record = {"data": {"id": "gen-echo", **echo["generation"]}}
    server.routes[GENERATION] = Reply(body=json.dumps(record).encode())
    narrow_to_paid_run(repo, server)
    repo.dvc("repro", address("plan", RUN))
    authorize(repo)

    paid = repo.dvc("repro")
    assert server.count(CHAT) == REQUESTS
    assert any(PLANTED_KEY in seen.headers.get("authorization", "") for seen in server.requests)
    echoed = [row for row in cells(repo) if row["status"] != "completed"]
    assert [(row["status"], row["reason"], row["no_charge_proven"]) for row in echoed] == [
        ("provider-error", "http-503; no-charge-proven", True)
    ]
    assert "upstream refused Bearer [redacted]" in echoed[0]["detail"]
    assert_key_written_nowhere(repo, paid.stdout, paid.stderr)

"""A paid run through real `dvc repro` against a local OpenRouter-shaped server.

Each test works on a copy (``paid``) of one repository planned per module (``planned``: one
two-subject v1 run whose profile points at the server, paid_run.py), and asserts what the
server saw: nothing before authorization, one request per call after it, nothing after a crash
or a failed pre-flight, and the planted key in no file the pipeline wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from collections import Counter
from typing import Any

import pyarrow.parquet as pq
import pytest
from paid_run import (
    CHAT,
    CHECKED,
    COST,
    GENERATION,
    REQUESTS,
    RUN,
    RUN_CASE,
    assert_key_written_nowhere,
    authorize,
    completions,
    serve_free_endpoints,
)
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

from assay.evidence.plan import load_plan
from assay.pipeline.layout import address
from tests.conftest import Repo, stages_ran

pytestmark = [pytest.mark.dvc, pytest.mark.docker]


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


def test_two_subject_paid_run_end_to_end(paid: Repo, paid_server: LocalServer) -> None:
    waiting = paid.dvc("repro")
    assert paid_server.requests == [], (
        "nothing is sent, not even a free check, before authorization"
    )
    assert execution(paid)["not-run"]["calls"] == REQUESTS
    assert not (paid.path / "ledger" / RUN).exists()

    authorize(paid)
    sent = paid.dvc("repro")
    assert paid_server.count(CHAT) == REQUESTS
    prompts = Counter(seen.body for seen in paid_server.requests if seen.path == CHAT)
    assert prompts.most_common(1)[0][1] == 2, "each prompt once per repeat"
    assert [seen.path for seen in paid_server.requests[:3]] == list(CHECKED), "pre-flight first"
    assert "PASS  credit" in sent.stdout

    rows = cells(paid)
    assert Counter(row["status"] for row in rows) == {"completed": REQUESTS}
    assert sum(row["cost_usd"] for row in rows) == pytest.approx(REQUESTS * COST)
    assert {row["generation_id"] for row in rows} == {f"gen-{n}" for n in range(1, 9)}
    assert {
        (row["price_cap_prompt_usd_per_m"], row["price_cap_completion_usd_per_m"]) for row in rows
    } == {(0.25, 1.25)}
    assert {(row["finish_reason"], row["served_provider"]) for row in rows} == {
        ("stop", "Amazon Bedrock")
    }
    assert execution(paid) == {
        "completed": {
            "status": "completed",
            "calls": REQUESTS,
            "reserved_usd": pytest.approx(0.48),
            "reported_usd": pytest.approx(REQUESTS * COST),
        }
    }

    seen = len(paid_server.requests)
    again = paid.dvc("repro")
    forced = paid.dvc("repro", "--force", "--single-item", address("execute", RUN))
    assert f"execute@{RUN}" in stages_ran(forced.stdout)
    assert len(paid_server.requests) == seen, "a re-run sent a request"
    assert Counter(row["status"] for row in cells(paid)) == {"completed": REQUESTS}
    assert_key_written_nowhere(paid, waiting.stdout, sent.stdout, sent.stderr, again.stdout)


def test_crash_between_send_and_outcome_is_never_resent(
    paid: Repo, paid_server: LocalServer
) -> None:
    hold = threading.Event()
    paid_server.routes[CHAT] = completions(hold_at=3, hold=hold)
    authorize(paid)

    process = paid.dvc_process("repro")
    try:
        deadline = time.monotonic() + 300
        while (
            paid_server.count(CHAT) < 3 and process.poll() is None and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert paid_server.count(CHAT) == 3, process.communicate(timeout=60)[0]
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        hold.set()
    assert process.returncode == -signal.SIGKILL
    seen = len(paid_server.requests)

    after = paid.dvc("repro")
    assert len(paid_server.requests) == seen, "the re-run sent a request (or a pre-flight check)"
    assert paid_server.count(CHAT) == 3
    statuses = [row["status"] for row in cells(paid)]
    assert statuses == ["completed", "completed", "interrupted"] + ["not-run"] * 5
    rows = {row["status"]: row for row in execution(paid).values()}
    assert rows["interrupted"]["calls"] == 1
    assert rows["interrupted"]["reserved_usd"] == pytest.approx(0.06)
    assert rows["not-run"] == {
        "status": "not-run",
        "calls": 5,
        "reserved_usd": 0.0,
        "reported_usd": 0.0,
    }
    kinds = Counter(record["type"] for record in ledger_records(paid))
    assert (kinds["intent"], kinds["outcome"]) == (3, 2)
    assert_key_written_nowhere(paid, after.stdout, after.stderr)


def test_failed_preflight_spends_nothing_and_begins_no_ledger(
    paid: Repo, paid_server: LocalServer
) -> None:
    serve_free_endpoints(paid_server, RUN_CASE["overpriced_endpoint"])
    authorize(paid)

    failed = paid.dvc("repro", check=False)
    output = failed.stdout + failed.stderr
    assert failed.returncode != 0
    assert "pre-flight checks failed, so nothing was sent and the ledger was not begun" in output
    assert f"FAIL  prompt-price      {RUN_CASE['overpriced_line']}" in output
    assert f"assay check-provider {RUN}" in output
    assert paid_server.count(CHAT) == 0
    assert {seen.method for seen in paid_server.requests} == {"GET"}
    # `assay authorize` created the run's ledger (its token); the failed pre-flight began nothing
    kinds = Counter(record["type"] for record in ledger_records(paid))
    assert kinds == {"header": 1, "authorization": 1}, "the ledger was begun"
    assert not (paid.path / "data" / "execute" / RUN / "cells.parquet").exists()
    assert_key_written_nowhere(paid, output)


def test_echoed_key_is_written_nowhere(paid: Repo, paid_server: LocalServer) -> None:
    """The server echoes the request's Authorization header in one error body (a 503 that the
    generation record proves free, so the run continues); no output holds the key."""
    echo = RUN_CASE["echo"]
    answer = completions()

    def echoing(seen: Seen) -> Reply:
        if paid_server.count(CHAT) != 3:
            return answer(seen)
        message = f"upstream refused {seen.headers['authorization']}"
        body = {"error": {"code": echo["status"], "message": message}}
        return Reply(
            status=echo["status"],
            headers={"X-Generation-Id": "gen-echo"},
            body=json.dumps(body).encode(),
        )

    paid_server.routes[CHAT] = echoing
    record = {"data": {"id": "gen-echo", **echo["generation"]}}
    paid_server.routes[GENERATION] = Reply(body=json.dumps(record).encode())
    authorize(paid)

    sent = paid.dvc("repro")
    assert paid_server.count(CHAT) == REQUESTS
    assert any(
        PLANTED_KEY in seen.headers.get("authorization", "") for seen in paid_server.requests
    )
    echoed = [row for row in cells(paid) if row["status"] != "completed"]
    assert [(row["status"], row["reason"], row["no_charge_proven"]) for row in echoed] == [
        ("provider-error", "http-503; no-charge-proven", True)
    ]
    assert "upstream refused Bearer [redacted]" in echoed[0]["detail"]
    assert_key_written_nowhere(paid, sent.stdout, sent.stderr)


def _outputs(repo: Repo, *folders: str) -> dict[str, bytes]:
    return {
        path.relative_to(repo.path).as_posix(): path.read_bytes()
        for folder in folders
        for path in sorted((repo.path / folder).rglob("*"))
        if path.is_file()
    }


RUN_EVIDENCE = tuple(
    f"data/{stage}/{RUN}"
    for stage in ("authorize", "execute", "extract", "structure", "correctness", "measure")
) + (f"data/report/runs/{RUN}",)


def test_an_edit_after_spending_keeps_the_run_and_plans_the_edit_apart(
    paid: Repo, paid_server: LocalServer
) -> None:
    """After the paid run sent, a v1 task is added and an existing task's instruction edited.
    `dvc repro` succeeds: the run keeps its plan, evidence and report byte for byte (scored
    against the subjects and prompts it was sent), the edit's plan is written beside it, every
    message names the ledger, what it holds and the exact commands on, `assay authorize` refuses
    the run again, and the new run id those commands declare awaits its own authorization.
    Nothing more is sent."""
    spent_hash = authorize(paid)
    paid.dvc("repro")
    seen = len(paid_server.requests)
    before = _outputs(paid, *RUN_EVIDENCE)
    assert any(name.endswith("abstraction.md") for name in before)
    fixtures = paid.path / RUN_CASE["fixtures"] / "v1"
    shutil.copytree(paid.path / "fixtures" / "v1" / "income-tax", fixtures / "income-tax")
    edited = RUN_CASE["tasks"][0]
    task = fixtures / edited / "task.toml"
    task.write_text(task.read_text().replace('instruction = "', 'instruction = "Please: ', 1))

    after = paid.dvc("repro")
    assert paid.read(f"data/plan/{RUN}/plan.sha256").strip() == spent_hash
    successor = json.loads(paid.read(f"data/plan/{RUN}/next.json"))
    assert {cell["subject"] for cell in successor["cells"]} == {*RUN_CASE["tasks"], "income-tax"}
    assert _outputs(paid, *RUN_EVIDENCE) == before, "the run's evidence or report changed"
    named = (
        f"run {RUN!r} already sent under plan {spent_hash} (its ledger "
        f"ledger/{RUN}/{spent_hash} holds {REQUESTS} answered of {REQUESTS} calls"
    )
    fresh = f"{RUN}-2"
    commands = f"`uv run assay run add {fresh} --like {RUN}`, `uv run dvc repro`"
    assert named in after.stdout and commands in after.stdout, after.stdout
    assert "its evidence and report stay as they were" in after.stdout

    shown = paid.run("python", "-m", "assay.cli", "plan", "show", RUN)
    assert named in shown.stdout and commands in shown.stdout
    new_hash = load_plan((paid.path / "data" / "plan" / RUN / "next.json").read_bytes()).hash
    assert f"plan {new_hash} under this run id" in shown.stdout
    for given in (spent_hash, new_hash):
        refused = paid.run(
            "python", "-m", "assay.cli", "authorize", RUN, "--plan-hash", given, check=False
        )
        assert refused.returncode != 0
        assert named in refused.stderr and commands in refused.stderr
        assert "not here" not in refused.stderr and "spent elsewhere" not in refused.stderr

    paid.run("python", "-m", "assay.cli", "run", "add", fresh, "--like", RUN)
    declared = paid.dvc("repro")
    assert json.loads(paid.read(f"data/authorize/{fresh}/authorization.json"))["state"] == (
        "awaiting-authorization"
    )
    fresh_plan = json.loads(paid.read(f"data/plan/{fresh}/plan.json"))
    assert {cell["subject"] for cell in fresh_plan["cells"]} == {*RUN_CASE["tasks"], "income-tax"}
    assert f"{fresh}" in declared.stdout
    assert _outputs(paid, *RUN_EVIDENCE) == before
    assert len(paid_server.requests) == seen, "an edit after spending sent a request"

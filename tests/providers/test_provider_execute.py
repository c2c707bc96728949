"""The real OpenRouter adapter under the execute loop, against a local OpenRouter-shaped server:
a paid v1 run (48 cells at $0.06 under a $2.88 ceiling) completes with the reported costs, and
each failure of cases/failures.yaml at the third request halts or continues exactly as the
table says, the server seeing one request per cell and none after a halt."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

from assay.config.params import AnalysisPlan, RunSpec
from assay.core.digest import digest_of, sha256_hex
from assay.evidence import CallRecord
from assay.fixtures.scenarios import fixture_sources, load_scenario
from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.paid.plan import Plan, build_plan, request_sizes
from assay.providers.base import ModelProfile
from assay.providers.factory import make_provider, request_bytes
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[2]
TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "failures.yaml").read_text())
CHAT = TABLE["chat_paths"]["openrouter"]
FAILING_CALL = 3
COST = 0.000323


def completion(seen: Seen) -> dict[str, Any]:
    return {
        "id": f"gen-{hash(seen.body) & 0xFFFF}",
        "provider": "Amazon Bedrock",
        "model": "anthropic/claude-3-haiku",
        "choices": [
            {"finish_reason": "stop", "message": {"content": "def implement(v):\n    return v\n"}}
        ],
        "usage": {"prompt_tokens": 812, "completion_tokens": 96, "cost": COST},
    }


def paid_run(server: LocalServer, tmp_path: Path) -> tuple[Plan, list[CallRecord]]:
    fields = {**TABLE["profiles"]["openrouter"], "timeout_seconds": 0.5}
    fields["base_url"] = server.url + fields.pop("base_path")
    profile = ModelProfile.model_validate(fields)
    scenario = load_scenario("v1", ROOT / "fixtures")
    prompts = {
        (s.id, a.name): render_input(s, a, "v1").text for s in scenario.subjects for a in s.arms
    }
    plan = build_plan(
        run_id="paid-local",
        run=RunSpec(model="haiku", scenario="v1", allow_paid=True),
        profile=profile,
        scenario=scenario,
        fixture_sources=digest_of(fixture_sources("v1", ROOT / "fixtures")),
        prompts=request_sizes(prompts, lambda prompt: request_bytes(profile, prompt)),
        analysis=AnalysisPlan(),
        tools={},
    )
    ledger = Ledger.open(tmp_path / "ledger", plan.run, plan.hash, paid=True)
    env = {"OPENROUTER_API_KEY": PLANTED_KEY}
    executor = Executor(plan, ledger, prompts, lambda: make_provider(profile, env=env))
    return plan, executor.run()


def test_paid_run_completes_with_reported_costs(server: LocalServer, tmp_path: Path) -> None:
    server.routes[CHAT] = lambda seen: Reply(body=json.dumps(completion(seen)).encode())
    plan, records = paid_run(server, tmp_path)

    bodies = [seen.body for seen in server.requests]
    assert len(bodies) == len(plan.cells) == 48
    assert set(Counter(bodies).values()) == {2}, "each prompt once per repeat, never again"
    sent = [sha256_hex(json.loads(body)["messages"][0]["content"]) for body in bodies]
    assert sent == [record.prompt_digest for record in records], "in plan order, one per cell"
    assert Counter(record.status for record in records) == {"completed": 48}
    assert sum(record.cost_usd or 0 for record in records) == pytest.approx(48 * COST)
    assert sum(record.reservation_usd for record in records) == pytest.approx(2.88)
    assert {record.served_provider for record in records} == {"Amazon Bedrock"}
    assert all(json.loads(body)["provider"]["only"] == ["amazon-bedrock"] for body in bodies)


STOPS = [
    case
    for case in TABLE["cases"]
    if case["adapter"] == "openrouter"
    and "connect" not in case
    and "profile" not in case
    and (case["expect"]["halt"] or case["expect"]["proven"])
]


@pytest.mark.parametrize("case", STOPS, ids=[case["name"] for case in STOPS])
def test_failure_at_the_third_request(
    case: dict[str, Any], server: LocalServer, tmp_path: Path
) -> None:
    failing = Reply.of(case["reply"])

    def answer(seen: Seen) -> Reply:
        if server.count(CHAT) == FAILING_CALL:
            return failing
        return Reply(body=json.dumps(completion(seen)).encode())

    server.routes[CHAT] = answer
    if "generation" in case:
        server.routes[TABLE["generation_path"]] = Reply.of(case["generation"])
    _, records = paid_run(server, tmp_path)

    failed = records[FAILING_CALL - 1]
    expect = case["expect"]
    assert (failed.status, failed.reason, failed.halt) == (
        expect["status"],
        expect["reason"],
        expect["halt"],
    )
    bodies = [seen.body for seen in server.requests if seen.path == CHAT]
    assert max(Counter(bodies).values()) <= 2, "no prompt beyond its two repeats"
    if expect["halt"]:
        assert len(bodies) == FAILING_CALL, "nothing is sent after a halt"
        assert {r.status for r in records[FAILING_CALL:]} == {"budget-halted"}
    else:
        assert len(bodies) == 48
        assert Counter(r.status for r in records)["completed"] == 47

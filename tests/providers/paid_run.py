"""One paid run of two v1 subjects against a local OpenRouter-shaped server (provider_server.py),
as the paid-path tests set it up: the case (cases/pipeline.yaml), the free checks and
completions the server answers, and the repository narrowed to that run. The ``planned`` and
``paid`` fixtures (conftest.py) give each test a copy of one repository planned per module."""

from __future__ import annotations

import itertools
import json
import shutil
import threading
from pathlib import Path
from typing import Any

import yaml
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

CASES = Path(__file__).parent / "cases"
RUN_CASE = yaml.safe_load((CASES / "pipeline.yaml").read_text())
CHECKS = yaml.safe_load((CASES / "checks.yaml").read_text())
RUN = RUN_CASE["run"]
CHAT = RUN_CASE["chat_path"]
GENERATION = RUN_CASE["generation_path"]
REQUESTS = RUN_CASE["requests"]
COST = RUN_CASE["completion"]["usage"]["cost"]
CHECKED = ("/api/v1/models", "/api/v1/models/anthropic/claude-3-haiku/endpoints", "/api/v1/key")


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


def narrow_to_paid_runs(repo: Any, servers: dict[str, LocalServer]) -> None:
    """params.yaml with one paid run of the two v1 subjects per entry of ``servers`` (run id →
    the server its own profile points at, all with the planted key)."""
    two = repo.path / RUN_CASE["fixtures"] / "v1"
    for task in RUN_CASE["tasks"]:
        shutil.copytree(repo.path / "fixtures" / "v1" / task, two / task)
    params = yaml.safe_load(repo.read("params.yaml"))
    params["fixtures"] = RUN_CASE["fixtures"]
    params["scenarios"] = ["v1"]
    params["models"], params["runs"] = {}, {}
    for run, server in servers.items():
        model = RUN_CASE["run_spec"]["model"] if run == RUN else f"{run}-model"
        profile = dict(RUN_CASE["profile"])
        profile["base_url"] = server.url + profile.pop("base_path")
        params["models"][model] = profile
        params["runs"][run] = {**RUN_CASE["run_spec"], "model": model}
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.env["OPENROUTER_API_KEY"] = PLANTED_KEY


def authorize(repo: Any) -> str:
    plan_hash = repo.read(f"data/plan/{RUN}/plan.sha256").strip()
    repo.run("python", "-m", "assay.cli", "authorize", RUN, "--plan-hash", plan_hash)
    return plan_hash


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

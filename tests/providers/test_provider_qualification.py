"""Qualified routes through the real commands: a study and a qualification run of the same
route, planned by `dvc repro`, against a local OpenRouter-shaped server. `assay plan show` names
the qualification and what it found; `assay authorize` refuses the study until the qualification
has been sent and answered, and then authorizes it; a qualification that fails leaves the route
unqualified."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from paid_run import CHAT, RUN, RUN_CASE, completions, narrow_to_paid_runs, serve_free_endpoints
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

from assay.pipeline.layout import address
from tests.conftest import Repo, copy_repo, make_repo

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

GIT_USER = ("-c", "user.email=t@assay.invalid", "-c", "user.name=t")
QUALIFY = f"{RUN}-qualify"
SAMPLE = 4
COST = RUN_CASE["completion"]["usage"]["cost"]


@pytest.fixture(scope="module")
def route(tmp_path_factory: pytest.TempPathFactory, paid_server: LocalServer) -> Repo:
    """The two-subject v1 study (paid_run.py) and a qualification run of 4 of its cells, both
    with profiles at ``paid_server``: one route. Planned and committed."""
    repo = make_repo(tmp_path_factory.mktemp("route") / "repo")
    narrow_to_paid_runs(repo, {RUN: paid_server, QUALIFY: paid_server})
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"][RUN].pop("qualifies")
    params["runs"][QUALIFY].update(qualifies=True, sample=SAMPLE)
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))
    repo.dvc("repro", address("plan", RUN), address("plan", QUALIFY))
    repo.git(*GIT_USER, "add", "-A")
    repo.git(*GIT_USER, "commit", "-qm", "a study and its route's qualification, planned")
    return repo


@pytest.fixture
def studied(route: Repo, paid_server: LocalServer, tmp_path: Path) -> Repo:
    paid_server.requests.clear()
    paid_server.routes.clear()
    serve_free_endpoints(paid_server)
    paid_server.routes[CHAT] = completions()
    copy = copy_repo(route, tmp_path / "repo")
    copy.env["OPENROUTER_API_KEY"] = PLANTED_KEY
    return copy


def assay(repo: Repo, *argv: str, check: bool = True) -> Any:
    return repo.run("python", "-m", "assay.cli", *argv, check=check)


def authorize(repo: Repo, run: str, *, check: bool = True) -> Any:
    plan_hash = repo.read(f"data/plan/{run}/plan.sha256").strip()
    return assay(repo, "authorize", run, "--plan-hash", plan_hash, check=check)


def refused_study(repo: Repo) -> str:
    """`assay authorize` of the study refused: exit 2, one line, nothing written."""
    params = repo.read("params.yaml")
    refused = authorize(repo, RUN, check=False)
    assert refused.returncode == 2
    (line,) = refused.stderr.splitlines()
    assert repo.read("params.yaml") == params
    assert not (repo.path / "ledger" / RUN).exists()
    return line


def test_the_study_is_authorized_once_its_route_is_qualified(
    studied: Repo, paid_server: LocalServer
) -> None:
    route = (
        f"openrouter anthropic/claude-3-haiku pinned to amazon-bedrock at {paid_server.url}/api/v1"
    )
    shown = assay(studied, "plan", "show", RUN).stdout
    assert "power          clean vs inconsistent: 2 subjects, alpha 0.05" in shown
    assert "worst case     $0.48" in shown
    assert f"qualification  {QUALIFY}: awaiting authorization, nothing sent" in shown
    line = refused_study(studied)
    assert line.startswith(f"assay: error: run '{RUN}': its route ({route}) is not qualified: ")
    assert f"`uv run assay authorize {QUALIFY} --plan-hash HASH`" in line

    own = assay(studied, "plan", "show", QUALIFY).stdout
    assert f"qualifies      the route {route}: {SAMPLE} of the scenario's 8 cells" in own
    assert "power          not stated" in own
    authorize(studied, QUALIFY)
    studied.dvc("repro", address("execute", QUALIFY))
    assert paid_server.count(CHAT) == SAMPLE

    shown = assay(studied, "plan", "show", RUN).stdout
    found = (
        f"qualification  {QUALIFY}: passed ({SAMPLE} of {SAMPLE} calls answered; "
        f"${SAMPLE * COST:.6f} reported of $0.2400 reserved; served anthropic/claude-3-haiku by "
        "Amazon Bedrock; latency median "
    )
    assert found in shown, shown
    assert "route          qualified: `assay authorize` may authorize this run" in shown

    authorize(studied, RUN)
    written = yaml.safe_load(studied.read("params.yaml"))["runs"][RUN]
    plan_hash = studied.read(f"data/plan/{RUN}/plan.sha256").strip()
    assert written["authorization"] == written["plan_ref"] == plan_hash and written["allow_paid"]
    studied.dvc("repro", address("execute", RUN))
    assert paid_server.count(CHAT) == SAMPLE + RUN_CASE["requests"]
    statuses = json.loads(studied.read(f"data/authorize/{RUN}/authorization.json"))["state"]
    assert statuses == "authorized"


def _failing_at(call: int) -> Callable[[Seen], Reply]:
    answered = completions()
    calls = iter(range(1, 1000))

    def answer(seen: Seen) -> Reply:
        if next(calls) == call:
            return Reply(status=429, body=b'{"error":{"code":429,"message":"rate limited"}}')
        return answered(seen)

    return answer


def test_a_failed_qualification_leaves_the_route_unqualified(
    studied: Repo, paid_server: LocalServer
) -> None:
    paid_server.routes[CHAT] = _failing_at(2)
    authorize(studied, QUALIFY)
    studied.dvc("repro", address("execute", QUALIFY))
    assert paid_server.count(CHAT) == 2, "a 429 halts the run"

    shown = assay(studied, "plan", "show", RUN).stdout
    assert (
        f"qualification  {QUALIFY}: failed (1 of {SAMPLE} calls answered, 1 failed, 2 not sent; "
    ) in shown
    assert f"3 of its {SAMPLE} calls not answered; it halted: " in shown
    assert "route          not qualified" in shown
    line = refused_study(studied)
    assert f"{QUALIFY}: failed (1 of {SAMPLE} calls answered" in line
    assert f"`uv run assay run add {QUALIFY}-2 --like {RUN} --qualifies`" in line
    assert paid_server.count(CHAT) == 2

"""At most once, across the life of a repository: each test runs real `dvc repro` in a temporary
git repo against the OpenRouter-shaped server on 127.0.0.1 and counts what the server received.

The five sequences of issue 10 (a moved ledger root, a fresh clone, `git clean`, a revoked
authorization, a provider charging above the reservation, a key ending in CR) each send nothing
new, and say why and what to do in one line. The ceiling that cannot finish a plan is stated
before authorization, and a free endpoint's outage is retried on the next `dvc repro`.

One repository is planned per module (fixtures narrowed to two v1 subjects, planned through
`dvc repro plan@RUN`: the ``planned`` fixture); each test works on its own copy of it (``paid``).
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from paid_run import CHAT, RUN, RUN_CASE, assert_key_written_nowhere, authorize, completions
from provider_server import PLANTED_KEY, LocalServer, Reply, Seen

from assay.pipeline.layout import address
from tests.conftest import Repo

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

REQUESTS = RUN_CASE["requests"]
PROFILE = RUN_CASE["run_spec"]["model"]
FREE_CHAT = "/v1/chat/completions"
GIT_USER = ("-c", "user.email=t@assay.invalid", "-c", "user.name=t")


def edit_params(repo: Repo, change: Any) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    change(params)
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def refusal(result: subprocess.CompletedProcess) -> str:
    """The one `assay:` line a refused stage printed."""
    assert result.returncode != 0, result.stdout
    lines = [line for line in result.stderr.splitlines() if line.startswith("assay: ")]
    assert len(lines) == 1, result.stdout + result.stderr
    return lines[0]


def cells(repo: Repo) -> list[dict[str, Any]]:
    return pq.read_table(repo.path / "data" / "execute" / RUN / "cells.parquet").to_pylist()


def spend(repo: Repo, paid_server: LocalServer) -> None:
    authorize(repo)
    repo.dvc("repro", address("execute", RUN))
    assert paid_server.count(CHAT) == REQUESTS


def test_changed_ledger_root_sends_nothing(paid: Repo, paid_server: LocalServer) -> None:
    spend(paid, paid_server)
    seen = len(paid_server.requests)

    edit_params(paid, lambda p: p.update(ledger_root="ledger-moved"))
    moved = paid.dvc("repro", address("execute", RUN), check=False)
    line = refusal(moved)
    assert len(paid_server.requests) == seen, "a request went out after ledger_root changed"
    assert "this authorization belongs to a ledger that is not here" in line
    assert f"ledger-moved/{RUN}/" in line and "nothing was sent" in line
    assert "restore that folder (or set ledger_root back), or declare a new run id" in line

    # the ledger carried to the new root with it (a backup disk): it has begun, so the run is
    # reported from it and nothing is sent
    # (the run's folder: the new root already holds the resend.json its params stage made)
    shutil.move(paid.path / "ledger" / RUN, paid.path / "ledger-moved" / RUN)
    paid.dvc("repro", address("execute", RUN))
    assert len(paid_server.requests) == seen
    assert Counter(row["status"] for row in cells(paid)) == {"completed": REQUESTS}


def test_second_clone_cannot_spend_the_authorization_again(
    paid: Repo, paid_server: LocalServer, tmp_path: Path
) -> None:
    spend(paid, paid_server)
    paid.git(*GIT_USER, "add", "params.yaml", ":(glob)**/dvc.lock")
    paid.git(*GIT_USER, "commit", "-qm", "authorized and executed")
    seen = len(paid_server.requests)

    subprocess.run(["git", "clone", "-q", str(paid.path), str(tmp_path / "B")], check=True)
    clone = Repo(tmp_path / "B")
    clone.env["OPENROUTER_API_KEY"] = PLANTED_KEY
    plan_hash = paid.read(f"data/plan/{RUN}/plan.sha256").strip()
    again = clone.dvc("repro", address("execute", RUN), check=False)
    line = refusal(again)
    assert len(paid_server.requests) == seen, "the clone sent a request"
    assert clone.read(f"data/plan/{RUN}/plan.sha256").strip() == plan_hash, "same plan"
    assert "this authorization belongs to a ledger that is not here" in line

    reauthorized = clone.run(
        "python", "-m", "assay.cli", "authorize", RUN, "--plan-hash", plan_hash, check=False
    )
    assert reauthorized.returncode == 2
    assert "was already authorized" in reauthorized.stderr
    assert "declare a new run id and authorize it" in reauthorized.stderr
    # no ledger of the run (the ledger root holds only resend.json, which the params stage made)
    assert not (clone.path / "ledger" / RUN).exists()
    assert len(paid_server.requests) == seen


def test_git_clean_cannot_make_a_spent_run_look_fresh(paid: Repo, paid_server: LocalServer) -> None:
    spend(paid, paid_server)
    paid.git(*GIT_USER, "add", "params.yaml")
    paid.git(*GIT_USER, "commit", "-qm", "authorized")
    seen = len(paid_server.requests)

    paid.run("git", "clean", "-fdxq")
    assert not (paid.path / "ledger").exists() and not (paid.path / "data").exists()
    again = paid.dvc("repro", address("execute", RUN), check=False)
    assert "this authorization belongs to a ledger that is not here" in refusal(again)
    assert len(paid_server.requests) == seen


def test_revoked_or_changed_authorization_sends_nothing(
    paid: Repo, paid_server: LocalServer
) -> None:
    plan_hash = authorize(paid)
    paid.dvc("repro", address("authorize", RUN))
    approved = yaml.safe_load(paid.read("params.yaml"))["runs"][RUN]

    edit_params(
        paid,
        lambda p: p["runs"][RUN].update(allow_paid=False, authorization=None, plan_ref=None),
    )
    # the send stage, which sends for every run, refuses it; so does execute, which re-checks
    single = paid.dvc("repro", "--single-item", address("send"), check=False)
    line = refusal(single)
    assert "params.yaml now says awaiting-authorization" in line
    assert "the authorize stage recorded authorized" in line and "nothing was sent" in line
    direct = paid.run("python", "stages/execute.py", RUN, check=False)
    assert "params.yaml now says awaiting-authorization" in refusal(direct)
    assert paid_server.requests == [], "a revoked authorization sent a request (or a check)"

    # approved again by hand, but the profile it was priced with changed since the plan
    def reprice(params: dict[str, Any]) -> None:
        params["runs"][RUN].update(approved)
        params["models"][PROFILE]["ceiling_usd"] = 0.42

    edit_params(paid, reprice)
    stale = paid.run("python", "stages/execute.py", RUN, check=False)
    line = refusal(stale)
    assert "changed since the plan was made" in line and plan_hash in line
    assert paid_server.requests == []


def test_charge_above_the_reservation_halts_and_the_report_says_so(
    paid: Repo, paid_server: LocalServer
) -> None:
    numbers = itertools.count(1)
    runaway = {
        **RUN_CASE["completion"],
        "usage": {"prompt_tokens": 812, "completion_tokens": 96_223, "cost": 0.12},
    }

    def ignores_max_tokens(seen: Seen) -> Reply:
        return Reply(body=json.dumps({"id": f"gen-{next(numbers)}", **runaway}).encode())

    paid_server.routes[CHAT] = ignores_max_tokens
    authorize(paid)
    paid.dvc("repro")
    assert paid_server.count(CHAT) == 1, "admission went on after a billing anomaly"
    rows = cells(paid)
    assert [(r["status"], r["reason"], r["halt"]) for r in rows[:1]] == [
        ("completed", "completion-over-max", True)
    ]
    assert {r["status"] for r in rows[1:]} == {"budget-halted"}
    report = json.loads(paid.read(f"data/report/runs/{RUN}/abstraction.json"))
    stopped = report["stopped"]
    assert stopped["first_failure"]["reason"] == "completion-over-max"
    markdown = paid.read(f"data/report/runs/{RUN}/abstraction.md")
    assert "## Why the run stopped" in markdown
    assert "billing anomaly: more completion tokens than max_tokens allows" in markdown
    assert "96,223 completion tokens against max_tokens 2,048" in markdown
    assert "The provider reported $0.120000, more than the $0.060000 reserved" in markdown
    assert " | halted | " in markdown  # the missing state, never a blank or a zero


@pytest.mark.parametrize("ending", ["\r", "\n"], ids=["cr", "lf"])
def test_key_with_a_line_end_is_refused_before_any_request(
    paid: Repo, paid_server: LocalServer, ending: str
) -> None:
    authorize(paid)
    paid.env["OPENROUTER_API_KEY"] = PLANTED_KEY + ending
    refused = paid.dvc("repro", address("execute", RUN), check=False)
    output = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert paid_server.requests == [], "a request (even a free check) carried the malformed key"
    name = {"\r": "a carriage return", "\n": "a line feed"}[ending]
    assert f"OPENROUTER_API_KEY contains {name}" in output
    assert PLANTED_KEY not in output and PLANTED_KEY[8:20] not in output
    assert not (paid.path / "data" / "execute" / RUN / "cells.parquet").exists()
    assert_key_written_nowhere(paid, output)


def test_ceiling_that_cannot_finish_is_stated_and_needs_accept_partial(
    paid: Repo, paid_server: LocalServer
) -> None:
    edit_params(paid, lambda p: p["models"][PROFILE].update(ceiling_usd=0.30))
    paid.dvc("repro")
    admits = "the ceiling admits 5 of 8 requests"
    awaiting = paid.read(f"data/report/runs/{RUN}/abstraction.md")
    assert f"**{admits}**" in awaiting
    shown = paid.run("python", "-m", "assay.cli", "plan", "show", RUN).stdout
    assert admits in shown
    plan_hash = paid.read(f"data/plan/{RUN}/plan.sha256").strip()

    refused = paid.run(
        "python", "-m", "assay.cli", "authorize", RUN, "--plan-hash", plan_hash, check=False
    )
    assert refused.returncode == 2 and admits in refused.stderr
    assert "--accept-partial" in refused.stderr
    # no ledger of the run (the ledger root holds only resend.json, which the params stage made)
    assert not (paid.path / "ledger" / RUN).exists()
    paid.run(
        "python", "-m", "assay.cli", "authorize", RUN, "--plan-hash", plan_hash, "--accept-partial"
    )
    paid.dvc("repro", address("execute", RUN))
    assert paid_server.count(CHAT) == 5
    statuses = Counter(row["status"] for row in cells(paid))
    assert statuses == {"completed": 5, "budget-halted": 3}


def test_free_endpoint_outage_is_retried_on_the_next_repro(
    paid: Repo, paid_server: LocalServer
) -> None:
    """A free model at a real endpoint: checked before sending, its 503 retried by the next
    `dvc repro`, and the report counts the attempts."""
    answer = completions()

    def outage_at_third(seen: Seen) -> Reply:
        if paid_server.count(FREE_CHAT) == 3:
            return Reply(status=503, body=b'{"error":{"code":503,"message":"overloaded"}}')
        return answer(seen)

    paid_server.routes["/v1/models"] = Reply(
        body=json.dumps({"data": [{"id": "anthropic/claude-3-haiku"}]}).encode()
    )
    paid_server.routes[FREE_CHAT] = outage_at_third
    free = {
        "provider": "openai-compatible",
        "model": "anthropic/claude-3-haiku",
        "base_url": paid_server.url + "/v1",
        "timeout_seconds": 60,
    }

    def to_free(params: dict[str, Any]) -> None:
        params["models"][PROFILE] = free
        params["runs"][RUN].pop("qualifies")  # a free route needs no qualification

    edit_params(paid, to_free)

    first = paid.dvc("repro")  # a free run's outage fails no stage: its report says why
    (line,) = [line for line in first.stderr.splitlines() if line.startswith("assay: ")]
    assert "Halted after call" in paid.read(f"data/report/runs/{RUN}/abstraction.md")
    assert paid_server.count(FREE_CHAT) == 3
    assert paid_server.count("/v1/models") == 1, "a free endpoint is checked before sending"
    assert "calls of this free run were not answered" in line and "http-503" in line
    assert "the next `uv run dvc repro` sends them again" in line

    paid.dvc("repro")
    assert paid_server.count(FREE_CHAT) == 3 + 6, "retried the failed call and the rest"
    assert paid_server.count("/v1/models") == 2
    rows = cells(paid)
    assert Counter(row["status"] for row in rows) == {"completed": REQUESTS}
    assert sorted(row["attempts"] for row in rows) == [1] * (REQUESTS - 1) + [2]
    report = json.loads(paid.read(f"data/report/runs/{RUN}/abstraction.json"))
    (retried,) = report["stopped"]["retried"]
    assert retried["attempts"] == 2
    assert "Calls that took more than one attempt" in paid.read(
        f"data/report/runs/{RUN}/abstraction.md"
    )
    paid.dvc("repro")
    assert paid_server.count(FREE_CHAT) == 9, "a finished free run sends nothing"

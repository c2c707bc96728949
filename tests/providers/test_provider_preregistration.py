"""A preregistration that binds (issue 49), and the one-line refusal of `dvc exp run --temp`
(issue 50), through real `dvc repro` in a temporary git repository against the
OpenRouter-shaped server on 127.0.0.1 (paid_run.py): each test works on its own copy
(``paid``) of one repository planned per module.

Editing ``analysis.alpha`` after a run sent leaves its plan, ledger and primary result as they
were and adds a labelled deviation result beside it: no call is sent again (the server's
requests, the ledger's intents) and no execute stage runs (DVC's output names the stages it
ran). A paid run authorized but not sent whose analysis changed is refused by name.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from paid_run import CHAT, REQUESTS, RUN, authorize
from provider_server import LocalServer

from assay.pipeline.layout import address
from tests.conftest import Repo, stages_ran

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

GIT_USER = ("-c", "user.email=t@assay.invalid", "-c", "user.name=t")
LABEL = "deviation from the preregistered analysis"
#: what may run after an edit of the analysis alone: never send, execute or an evaluator
ANALYSIS_ONLY = {"params", f"plan@{RUN}", "report", f"export@{RUN}"}


def edit_params(repo: Repo, change: Any) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    change(params)
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def report(repo: Repo, kind: str = "abstraction") -> dict[str, Any]:
    return json.loads(repo.read(f"data/report/runs/{RUN}/{kind}.json"))


def plan_hash(repo: Repo) -> str:
    return repo.read(f"data/plan/{RUN}/plan.sha256").strip()


def intents(repo: Repo) -> int:
    return sum(
        line.count('"type":"intent"')
        for path in (repo.path / "ledger" / RUN).rglob("ledger.jsonl")
        for line in path.read_text().splitlines()
    )


def ran(result: subprocess.CompletedProcess) -> set[str]:
    return stages_ran(result.stdout + result.stderr)


def cli(repo: Repo, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return repo.run("python", "-m", "assay.cli", *args, check=check)


def one_refusal(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0, result.stdout
    lines = [line for line in result.stderr.splitlines() if line.startswith("assay: ")]
    assert len(lines) == 1, result.stdout + result.stderr
    return lines[0]


def assert_deviation_beside(repo: Repo, primary: dict[str, Any]) -> None:
    """The primary result is ``primary`` unchanged; the deviation beside it says alpha 0.05 →
    0.01 and decides the same tests at 0.01, in the JSON and the Markdown of both reports."""
    for kind in ("abstraction", "correctness"):
        now = report(repo, kind)
        assert now["sign_tests"] == primary[kind]["sign_tests"]
        assert now["run"]["alpha"] == 0.05
        deviation = now["deviation"]
        assert deviation["label"] == LABEL
        assert deviation["changes"] == [{"field": "alpha", "preregistered": 0.05, "now": 0.01}]
        assert deviation["preregistered"]["alpha"] == 0.05 and deviation["now"]["alpha"] == 0.01
        assert deviation["sign_tests"] and all(t["alpha"] == 0.01 for t in deviation["sign_tests"])
        assert [t["p_value"] for t in deviation["sign_tests"]] == [
            t["p_value"] for t in now["sign_tests"]
        ]
        markdown = repo.read(f"data/report/runs/{RUN}/{kind}.md")
        assert "**Preregistered analysis:** paired-v2, alpha 0.05" in markdown
        assert "## Deviation from the preregistered analysis (not the preregistered result)" in (
            markdown
        )
        assert "alpha 0.05 → 0.01" in markdown


def test_a_free_run_that_sent_keeps_its_preregistration(paid: Repo) -> None:
    """The run's profile made a simulated one (free): after it sent, an edit of alpha re-runs
    only the params, plan and report stages (and the export of the changed report); the plan
    hash, ledger and primary result stay, and the deviation stands beside them. Changing its
    repeats is a new plan: every call is sent again, and the report says it was planned anew."""
    edit_params(
        paid,
        lambda p: (
            p["models"].update(
                sim={"provider": "simulated", "model": "sim-follower", "behaviour": "follower"}
            ),
            p["runs"][RUN].update(model="sim"),
            p["runs"][RUN].pop("qualifies", None),  # a free route needs no qualification
        ),
    )
    paid.dvc("repro")
    sent_under, sent = plan_hash(paid), intents(paid)
    assert sent == REQUESTS
    primary = {kind: report(paid, kind) for kind in ("abstraction", "correctness")}
    assert "deviation" not in primary["abstraction"]

    edit_params(paid, lambda p: p["analysis"].update(alpha=0.01))
    edited = paid.dvc("repro")
    assert ran(edited) <= ANALYSIS_ONLY, ran(edited)
    assert plan_hash(paid) == sent_under
    assert intents(paid) == sent, "an edit of the analysis sent a call again"
    assert [p.name for p in (paid.path / "ledger" / RUN).iterdir()] == [sent_under]
    assert_deviation_beside(paid, primary)
    shown = cli(paid, "plan", "show", RUN).stdout
    assert "preregistered  paired-v2, alpha 0.05, lower median" in shown
    assert "params.yaml now says alpha 0.05 → 0.01" in shown
    assert paid.dvc("repro").stdout.count("Running stage") == 0

    edit_params(paid, lambda p: p["runs"][RUN].update(repeats=3))
    replanned = paid.dvc("repro")
    assert f"execute@{RUN}" in ran(replanned)
    assert plan_hash(paid) != sent_under
    again = report(paid)
    assert again["run"]["repeats"] == 3 and again["run"]["alpha"] == 0.01
    assert "deviation" not in again
    assert again["replanned"] == {
        "earlier_plan": sent_under,
        "changes": [
            {"field": "alpha", "preregistered": 0.05, "now": 0.01},
            {"field": "repeats", "preregistered": 2, "now": 3},
        ],
    }
    assert f"**Planned anew after it began:** this run began under plan {sent_under}" in (
        paid.read(f"data/report/runs/{RUN}/abstraction.md")
    )


def test_a_paid_run_binds_its_preregistration(paid: Repo, paid_server: LocalServer) -> None:
    """Authorized, then alpha edited: the send-time check, `dvc repro`, `assay plan show` and
    `assay run list` name the run, the change and the command that authorizes it again; nothing
    is sent. The edit
    undone, it sends; alpha edited again after that, the run keeps its plan (DVC's run cache
    holds the plan of alpha 0.01 made before the run began, and must not restore it), nothing
    is sent again, no execute stage runs, and the deviation stands beside the primary result.
    Its repeats edited too, the seal keeps its plan of 2 repeats (the edit's plan goes to
    next.json, which the run's later stages re-read, sending nothing) and the deviation says 3
    are another plan."""
    authorized = authorize(paid)
    paid.dvc("repro", address("authorize", RUN))
    edit_params(paid, lambda p: p["analysis"].update(alpha=0.01))
    named = f"run {RUN!r}: its preregistered analysis changed since it was authorized (alpha 0.05 → 0.01"
    # at send time (the execute stage run alone re-checks the plan before a first request)
    direct = one_refusal(paid.run("python", "stages/execute.py", RUN, check=False))
    assert named in direct and "nothing was sent" in direct, direct
    refused = one_refusal(paid.dvc("repro", check=False))
    assert paid_server.count(CHAT) == 0
    assert named in refused, refused
    assert f"then `uv run assay authorize {RUN} --plan-hash " in refused
    shown = cli(paid, "plan", "show", RUN).stdout
    assert named in shown and f"authorize {RUN} --plan-hash {plan_hash(paid)}" in shown
    listed = cli(paid, "run", "list").stdout
    assert "refused: its preregistered analysis changed since it was authorized" in listed
    assert "(alpha 0.05 → 0.01)" in listed

    edit_params(paid, lambda p: p["analysis"].update(alpha=0.05))
    paid.dvc("repro")
    assert paid_server.count(CHAT) == REQUESTS and plan_hash(paid) == authorized
    primary = {kind: report(paid, kind) for kind in ("abstraction", "correctness")}

    edit_params(paid, lambda p: p["analysis"].update(alpha=0.01))
    edited = paid.dvc("repro")
    assert ran(edited) <= ANALYSIS_ONLY, ran(edited)
    assert plan_hash(paid) == authorized
    assert not (paid.path / "data" / "plan" / RUN / "next.json").exists()
    assert paid_server.count(CHAT) == REQUESTS and intents(paid) == REQUESTS
    assert_deviation_beside(paid, primary)

    edit_params(paid, lambda p: p["runs"][RUN].update(repeats=3))
    paid.dvc("repro")  # the seal's edit: next.json beside the kept plan (its stages re-read it)
    assert plan_hash(paid) == authorized and paid_server.count(CHAT) == REQUESTS
    assert intents(paid) == REQUESTS
    deviation = report(paid)["deviation"]
    assert [c["field"] for c in deviation["changes"]] == ["alpha", "repeats"]
    assert report(paid)["sign_tests"] == primary["abstraction"]["sign_tests"]
    (note,) = deviation["not_recomputed"]
    assert note.startswith("repeats 2 → 3: not applied; repeats shape the cells"), note


def test_a_temporary_experiment_refuses_in_one_line(paid: Repo, paid_server: LocalServer) -> None:
    """`dvc exp run --temp execute@RUN` of an authorized paid run whose params stage already
    ran in the workspace (issue 50): the temporary copy has no ledger, and the send stage says so
    in one line naming the ledger and what to do, instead of DVC stopping on a missing
    resend.json. Nothing is sent."""
    authorize(paid)
    paid.dvc("repro", address("authorize", RUN))
    paid.git(*GIT_USER, "add", "-A")
    paid.git(*GIT_USER, "commit", "-qm", "authorized")
    done = paid.dvc("exp", "run", "--temp", address("execute", RUN), check=False)
    line = one_refusal(done)
    assert "Errno 2" not in done.stdout + done.stderr
    assert "this authorization belongs to a ledger that is not in this experiment's" in line
    assert f"ledger/{RUN}/" in line and str(Path(".dvc") / "tmp" / "exps") in line
    assert "run the experiment in the workspace (`dvc exp run` without --temp" in line
    assert paid_server.count(CHAT) == 0

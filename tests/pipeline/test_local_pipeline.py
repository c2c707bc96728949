"""The real local model through real `dvc repro`: the default study's Qwen2.5-Coder-1.5B run on
the task bank's new subjects (bank-new) and its reproduction (the shared study: two subjects, one repeat), and a server killed
mid-run.

- the plan binds the weights' sha256, the runtime's version and build and every decoding
  setting; the send stage started a server for each run and the answers carry its fingerprint;
- verdicts and correctness come from the real answers; the reports say REAL LOCAL MODEL, never
  SIMULATED; the reproduction's byte-identity is reported (Markdown, page, metrics.json);
- a server killed mid-run halts its run only: the `dvc repro` goes on for every other run, the
  halted run's report says why it stopped and that the next `dvc repro` sends the unanswered
  calls, and that one sends only those: nothing answered is sent again.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

import psutil
import pyarrow.parquet as pq
import pytest
import yaml

from assay.local.runtime import fingerprint
from tests.conftest import BIN, Repo
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

QWEN = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
RUNS = ("qwen-bank-new", "qwen-bank-new-again")
PREFIX = "```python\ndef implement("


def _rows(repo: Repo, path: str) -> list[dict]:
    return pq.read_table(repo.path / path).to_pylist()


def _ledger_records(repo: Repo, run: str) -> list[dict]:
    (ledger,) = (repo.path / "ledger" / run).glob("*/ledger.jsonl")
    return [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]


def test_the_plan_binds_the_weights_runtime_and_decoding(study: Study) -> None:
    plan = json.loads(study.read(f"data/plan/{RUNS[0]}/plan.json"))
    local = plan["model"]["local"]
    assert plan["model"]["provider"] == "local"
    assert local["weights_sha256"] == QWEN == plan["runtime"]["weights_sha256"]
    assert plan["runtime"]["runtime"] == "llama-cpp-python 0.3.36"
    assert "AVX2 = 1" in plan["runtime"]["build"]
    # built for x86-64-v3, not natively: no AMX code, whose weight repacking crashed here
    assert "AMX" not in plan["runtime"]["build"]
    assert plan["runtime"]["weights_bytes"] == 1_117_320_768
    assert plan["runtime"]["chat_template_sha256"]  # an instruct model: its chat template
    # chat-prefill: the template applied, the assistant's turn begun with the prefix
    assert local["prompting"] == "chat" and local["answer_prefix"] == PREFIX
    assert plan["model"]["temperature"] == 0.7 and local["top_p"] == 0.8 and local["top_k"] == 20
    assert local["threads"] == 2 and local["batch_tokens"] == 32
    assert plan["budget"]["paid"] is False
    other = json.loads(study.read(f"data/plan/{RUNS[1]}/plan.json"))
    # a reproduction: the same plan apart from its run id and the sample of cells it sends
    assert other["reproduces"] == {
        "run": RUNS[0],
        "sample": len(other["cells"]),
        "of": len(plan["cells"]),
    }
    assert {c["cell_id"] for c in other["cells"]} <= {c["cell_id"] for c in plan["cells"]}
    same = {"run", "cells", "budget", "reproduces"}
    assert {k: v for k, v in other.items() if k not in same} == {
        k: v for k, v in plan.items() if k not in same
    }


def test_answers_are_real_and_scored_from_the_real_text(study: Study) -> None:
    repo = study.repo
    plan = json.loads(study.read(f"data/plan/{RUNS[0]}/plan.json"))
    for run in RUNS:
        cells = _rows(repo, f"data/execute/{run}/cells.parquet")
        assert cells and {c["status"] for c in cells} == {"completed"}
        assert {c["served_model"] for c in cells} == {"qwen2.5-coder-1.5b-instruct-q4_k_m"}
        assert {c["served_provider"] for c in cells} == {fingerprint(plan["runtime"])}
        assert all(c["text"].startswith(PREFIX) for c in cells)
        assert all(0 < c["completion_tokens"] <= 256 for c in cells)
        # the server's output is beside the run's ledger, not in the send stage's outputs
        (log,) = (repo.path / "ledger" / run).glob("*/server.log")
        assert log.read_text().count("POST /v1/chat/completions") == len(cells)
        assert sorted(p.name for p in (repo.path / "data" / "send" / run).iterdir()) == [
            "receipt.json"
        ]
        verdicts = _rows(repo, f"data/structure/{run}/verdicts.parquet")
        assert {v["cell_id"] for v in verdicts} == {c["cell_id"] for c in cells}
        correctness = _rows(repo, f"data/correctness/{run}/correctness.parquet")
        assert len(correctness) == len(cells)
        report = study.read(f"data/report/runs/{run}/abstraction.md")
        assert "REAL LOCAL MODEL" in report
        assert "Qwen2.5 Coder 1.5B Instruct GGUF, 1.5B parameters" in report
        assert "SIMULATED" not in report


def test_a_reproduction_reports_its_byte_identity(study: Study) -> None:
    repo = study.repo
    texts = [
        {
            (c["cell_id"], c["step"]): c["text"]
            for c in _rows(repo, f"data/execute/{r}/cells.parquet")
        }
        for r in RUNS
    ]
    identical = sum(texts[1][key] == texts[0].get(key) for key in texts[1])
    calls = len(texts[1])
    report = study.read(f"data/report/runs/{RUNS[0]}/abstraction.md")
    assert f"{identical} of the {calls} calls both runs answered gave byte-identical text" in report
    metrics = json.loads(study.read("reports/metrics.json"))
    assert metrics[RUNS[0]]["identical"] == round(identical / calls, 4)
    assert "identical" not in metrics["sim-follower-v1"]
    page = study.read("data/report/index.html")
    assert (
        "real local model" in page and f"byte-identical to those of <code>{RUNS[1]}</code>" in page
    )
    # sampled with per-call seeds, the prompt cache on: the same draws, byte for byte
    assert identical == calls


def _server_of(repo: Repo, timeout: float = 300) -> psutil.Process:
    """The local model's server a `dvc repro` in ``repo`` started."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for process in psutil.process_iter(["cmdline", "cwd"]):
            cmdline = process.info["cmdline"] or []
            if "assay.local.server" in cmdline and process.info["cwd"] == str(repo.path):
                return process
        time.sleep(0.2)
    raise AssertionError("no local model server started")


def test_a_killed_server_halts_its_run_only_and_nothing_answered_is_sent_again(
    study_copy: Repo,
) -> None:
    """The run whose server is killed halts; the `dvc repro` still succeeds, and the run added
    beside it gets its evidence and report in that same `dvc repro`. The halted run's report
    and `assay run list` say why it stopped and what comes next, never `budget-halted` (a free
    run has no budget); the next `dvc repro` sends its unanswered calls, nothing twice."""
    repo, run, beside = study_copy, "qwen-bank-new-killed", "sim-follower-v1-beside"
    params = yaml.safe_load(repo.read("params.yaml"))
    params["runs"][run] = {**params["runs"][RUNS[0]], "repeats": 2}
    params["runs"][beside] = params["runs"]["sim-follower-v1"]
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))

    dvc = repo.dvc_process("repro")
    server = _server_of(repo)
    ledger_dir = repo.path / "ledger" / run
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:  # kill it once one call is answered, mid-way through
        if any('"type":"outcome"' in f.read_text() for f in ledger_dir.glob("*/ledger.jsonl")):
            break
        time.sleep(0.1)
    os.kill(server.pid, signal.SIGKILL)
    output, _ = dvc.communicate(timeout=1200)
    assert dvc.returncode == 0, output
    assert f"assay: run {run!r}: halted after local-server-exited on " in output, output
    assert "the next `uv run dvc repro` sends them again" in output
    assert "budget-halted" not in output
    assert "Every call completed." in repo.read(f"data/report/runs/{beside}/abstraction.md")
    halted_report = repo.read(f"data/report/runs/{run}/abstraction.md")
    assert "Halted after call" in halted_report and "(`local-server-exited`)" in halted_report
    assert "the next `uv run dvc repro` sends the calls not answered again" in halted_report
    statuses = Counter(c["status"] for c in _rows(repo, f"data/execute/{run}/cells.parquet"))
    assert statuses["provider-error"] == 1 and "budget-halted" not in statuses, statuses
    listed = repo.run(str(BIN / "assay"), "run", "list").stdout
    (line,) = [line for line in listed.splitlines() if line.startswith(run + " ")]
    assert "halted after local-server-exited on" in line and "budget-halted" not in line, line
    before = _ledger_records(repo, run)
    answered_before = {
        r["key"] for r in before if r["type"] == "outcome" and r["status"] == "completed"
    }
    failed = [r for r in before if r["type"] == "outcome" and r["status"] != "completed"]
    assert answered_before and len(failed) == 1 and failed[0]["reason"] == "local-server-exited"
    assert any(r["type"] == "halt" for r in before)
    planned = 2 * 2 * 2  # two subjects x two arms x two repeats

    done = repo.dvc("repro", timeout=1200)
    assert "execute@" + run in done.stdout
    after = _ledger_records(repo, run)
    intents = Counter(r["key"] for r in after if r["type"] == "intent")
    completed = {r["key"] for r in after if r["type"] == "outcome" and r["status"] == "completed"}
    assert len(completed) == planned
    assert all(intents[key] == 1 for key in answered_before)  # never sent again
    assert intents[failed[0]["key"]] == 2  # the call in flight, sent again (free) and recorded
    assert sum(intents.values()) == planned + 1
    cells = {c["cell_id"]: c for c in _rows(repo, f"data/execute/{run}/cells.parquet")}
    assert cells[failed[0]["key"].split("#")[0]]["attempts"] == 2
    assert "Calls that took more than one attempt" in repo.read(
        f"data/report/runs/{run}/abstraction.md"
    )
    assert not list(Path(repo.path / "data" / "send" / run).glob("*.partial"))

"""`assay run list`: each declared run's model, scenario, where it stands, and its spend."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from assay.cli import main
from assay.config.params import load_params
from assay.paid.run_status import run_statuses

ROOT = Path(__file__).resolve().parents[2]


def test_statuses_follow_the_evidence(tmp_path):
    data = tmp_path / "data"
    (data / "plan" / "haiku-v1").mkdir(parents=True)
    (data / "plan" / "haiku-v1" / "plan.sha256").write_text("ab" * 32 + "\n")
    (data / "authorize" / "haiku-v1").mkdir(parents=True)
    (data / "authorize" / "haiku-v1" / "authorization.json").write_text(
        json.dumps({"state": "awaiting-authorization"})
    )
    (data / "execute" / "haiku-v1").mkdir(parents=True)  # an unauthorized run's not-run cells
    pq.write_table(
        pa.table({"status": ["not-run"], "reservation_usd": [0.0], "cost_usd": [None]}),
        data / "execute" / "haiku-v1" / "cells.parquet",
    )
    (data / "execute" / "sim-follower-dose").mkdir(parents=True)
    pq.write_table(
        pa.table(
            {
                "status": ["completed", "completed", "budget-halted"],
                "reservation_usd": [0.0, 0.0, 0.0],
                "cost_usd": [None, None, None],
            }
        ),
        data / "execute" / "sim-follower-dose" / "cells.parquet",
    )
    (data / "plan" / "sim-follower-v1").mkdir(parents=True)
    (data / "plan" / "sim-follower-v1" / "plan.sha256").write_text("cd" * 32 + "\n")
    (data / "execute" / "qwen-bank-new").mkdir(parents=True)  # a free run halted by its server
    pq.write_table(
        pa.table(
            {
                "status": ["completed", "provider-error", "halted"],
                "reservation_usd": [0.0, 0.0, 0.0],
                "cost_usd": [0.0, None, None],
                "halt": [False, True, False],
                "reason": [None, "local-server-exited", "halted-after: s/clean/r1 step 1"],
                "cell_id": ["s/clean/r0", "s/clean/r1", "s/inconsistent/r0"],
                "step": [1, 1, 1],
            }
        ),
        data / "execute" / "qwen-bank-new" / "cells.parquet",
    )
    statuses = {s.run: s for s in run_statuses(load_params(ROOT / "params.yaml"), data)}
    assert statuses["qwen-bank-new"].status == (
        "executed: 1 completed, 1 halted, 1 provider-error (halted after local-server-exited on "
        "s/clean/r1 step 1; the next `dvc repro` tries again)"
    )
    assert statuses["haiku-v1"].status.startswith("awaiting authorization (plan abababababab")
    assert statuses["haiku-v1"].spend == "$0.00"
    assert statuses["sim-follower-dose"].status == "executed: 1 budget-halted, 2 completed"
    assert statuses["sim-follower-dose"].spend == "free"
    assert statuses["sim-follower-v1"].status == "planned, not executed yet"
    assert statuses["sim-follower-placement"].status == "not planned yet (`dvc repro`)"
    assert (statuses["haiku-v1"].model, statuses["haiku-v1"].scenario) == ("haiku-3-bedrock", "v1")


def test_paid_spend_sums_reservations_and_reported_costs(tmp_path):
    data = tmp_path / "data"
    (data / "execute" / "haiku-v1").mkdir(parents=True)
    pq.write_table(
        pa.table(
            {
                "status": ["completed", "provider-error"],
                "reservation_usd": [0.06, 0.06],
                "cost_usd": [0.0012, None],
            }
        ),
        data / "execute" / "haiku-v1" / "cells.parquet",
    )
    (status,) = [
        s for s in run_statuses(load_params(ROOT / "params.yaml"), data) if s.run == "haiku-v1"
    ]
    assert status.spend == "$0.12 reserved, $0.0012 reported"


def test_run_list_prints_a_table(tmp_path, capsys):
    assert (
        main(["run", "list", "--params", str(ROOT / "params.yaml"), "--data", str(tmp_path)]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["run", "model", "mode", "scenario", "status", "spend"]
    assert len(lines) == 1 + len(load_params(ROOT / "params.yaml").runs)
    cells = {line.split()[0]: [c.strip() for c in line.split("  ") if c.strip()] for line in lines}
    assert cells["qwen-bank-new"][1:4] == [
        "qwen-coder-1-5b",
        "chat, answer prefilled with ```python⏎def implement(, sampled at temperature 0.7",
        "bank-new",
    ]
    assert cells["sim-follower-v1"][1:4] == ["sim-follower", "simulated", "v1"]


def test_an_inspect_log_run_spends_nothing_through_assay_and_a_refused_log_waits_for_another(
    tmp_path, monkeypatch
):
    import yaml

    monkeypatch.chdir(tmp_path)
    (tmp_path / "inspect-logs").mkdir()
    (tmp_path / "inspect-logs" / "run.eval").write_bytes(b"a log")
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["fixtures"] = str(ROOT / "fixtures")
    params["models"]["logged"] = {
        "provider": "inspect-log",
        "model": "openai-api/local/qwen",
        "log": "inspect-logs/run.eval",
    }
    params["runs"] = {"logged-v1": {"model": "logged", "scenario": "v1"}}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    data = tmp_path / "data"
    (data / "execute" / "logged-v1").mkdir(parents=True)
    refused = "send-refused: Inspect log inspect-logs/run.eval: 1 problem"
    pq.write_table(
        pa.table(
            {
                "status": ["not-run", "not-run"],
                "reservation_usd": [0.0, 0.0],
                "cost_usd": [None, None],
                "halt": [False, False],
                "reason": [refused, refused],
                "cell_id": ["s/clean/r1", "s/inconsistent/r1"],
                "step": [1, 1],
            }
        ),
        data / "execute" / "logged-v1" / "cells.parquet",
    )
    (status,) = run_statuses(load_params(tmp_path / "params.yaml"), data)
    assert status.mode == "Inspect log"
    assert status.spend == "none through assay (Inspect log: spent outside assay)"
    assert status.status == (
        "executed: 2 not-run (not sent: Inspect log inspect-logs/run.eval: 1 problem; a changed "
        "log re-plans the run)"
    )

"""Through real ``dvc repro`` of the default study (the shared study, tests/study.py): the prompt
every call was sent, chain steps 2-5 included, is recorded (``data/execute/RUN/prompts.parquet``
under its sha256, named by ``cells.prompt_digest``), readable in SQL (``sent_prompts``) and by
``assay show``, carried by the export bundles and checked by ``assay verify``; and adjudication
is blind (opaque ids, no run, subject or arm until decided)."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
import yaml

from assay.core.digest import sha256_hex
from assay.export.verify import verify_bundle
from tests.conftest import stages_ran
from tests.export.test_export_bundles import _reseal, _rewrite
from tests.study import Study

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

CHAIN = "sim-follower-chain"


def _assay(study: Study, *args: str, check: bool = True):
    return study.repo.run("python", "-m", "assay.cli", *args, check=check)


def _sql(study: Study, query: str) -> list[dict[str, str]]:
    out = _assay(study, "sql", query, "--format", "csv").stdout
    return list(csv.DictReader(io.StringIO(out, newline="")))


def test_every_chain_call_has_its_sent_prompt_in_sql(study: Study) -> None:
    calls = _sql(study, f"SELECT cell_id, step, status, prompt_digest FROM cells "
                 f"WHERE run = '{CHAIN}' ORDER BY cell_id, step")  # fmt: skip
    sent = _sql(study, f"SELECT cell_id, step, prompt_digest, prompt FROM sent_prompts "
                f"WHERE run = '{CHAIN}' ORDER BY cell_id, step")  # fmt: skip
    completed = [c for c in calls if c["status"] == "completed"]
    assert completed and all(c["prompt_digest"] for c in completed)
    assert len(sent) == sum(1 for c in calls if c["prompt_digest"])
    assert {int(s["step"]) for s in sent} == {1, 2, 3, 4, 5}
    later = [s for s in sent if int(s["step"]) > 1]
    assert len(later) == sum(1 for c in completed if c["step"] != "1") > 0, "steps 2-5 missing"
    for row in sent:
        assert row["prompt"], row
        assert sha256_hex(row["prompt"]) == row["prompt_digest"]
        step = int(row["step"])
        assert f"def implement_step_{step - 1}(" in row["prompt"] or step == 1
        assert f"def implement_step_{step}(" not in row["prompt"]
    rendered = _sql(study, "SELECT prompt_digest FROM prompts WHERE scenario = 'chain'")
    assert {s["prompt_digest"] for s in sent if s["step"] == "1"} <= {
        r["prompt_digest"] for r in rendered
    }
    every = _sql(study, "SELECT count(*) AS n FROM cells WHERE prompt_digest IS NOT NULL "
                 "AND prompt_digest NOT IN (SELECT prompt_digest FROM sent_prompts "
                 "WHERE prompt IS NOT NULL)")  # fmt: skip
    assert every == [{"n": "0"}], "a call of some run has no recorded prompt"


def test_assay_show_prints_a_chain_step_s_sent_prompt(study: Study) -> None:
    (row,) = _sql(study, f"SELECT cell_id, prompt_digest, prompt FROM sent_prompts "
                  f"WHERE run = '{CHAIN}' AND step = 3 ORDER BY cell_id LIMIT 1")  # fmt: skip
    shown = _assay(study, "show", CHAIN, row["cell_id"], "--step", "3").stdout
    assert f"## Prompt sent (sha256 {row['prompt_digest']})" in shown
    assert "def implement_step_2(" in shown.split("## Prompt sent", 1)[1]


@pytest.fixture
def chain_bundle(study: Study, tmp_path: Path) -> Path:
    copy = tmp_path / "bundle"
    shutil.copytree(study.repo.path / "data" / "export" / CHAIN / "abstraction", copy)
    return copy


def test_bundles_carry_the_sent_prompts_and_verify_checks_them(chain_bundle: Path) -> None:
    table = chain_bundle / "data" / "execute" / CHAIN / "prompts.parquet"
    assert table.is_file()
    assert verify_bundle(chain_bundle).verified

    def other_step_prompt(row):
        return {**row, "prompt": row["prompt"].replace("implement_step_1", "implement_step_9")}

    _rewrite(table, other_step_prompt)
    _reseal(chain_bundle)
    result = verify_bundle(chain_bundle)
    assert result.path == f"data/execute/{CHAIN}/prompts.parquet", result.line()
    assert "not the text of its digest" in result.reason


def test_a_resealed_prompt_with_its_digest_is_caught(chain_bundle: Path) -> None:
    table = chain_bundle / "data" / "execute" / CHAIN / "prompts.parquet"
    cells = chain_bundle / "data" / "execute" / CHAIN / "cells.parquet"
    changed: dict[str, str] = {}

    def forged(row):
        if "implement_step_2" not in row["prompt"]:
            return row
        prompt = row["prompt"] + "\n# also: never call the helper\n"
        changed[row["prompt_digest"]] = sha256_hex(prompt)
        return {**row, "prompt": prompt, "prompt_digest": changed[row["prompt_digest"]]}

    _rewrite(table, forged)
    _rewrite(cells, lambda r: {**r, "prompt_digest": changed.get(r["prompt_digest"],
                                                               r["prompt_digest"])})  # fmt: skip
    assert changed
    _reseal(chain_bundle)
    result = verify_bundle(chain_bundle)
    assert result.path == f"data/execute/{CHAIN}/prompts.parquet", result.line()
    assert "not the prompt the ledger's intent names" in result.reason


def test_adjudication_is_blind(study: Study, tmp_path: Path) -> None:
    decisions = tmp_path / "adjudications.yaml"
    listed = _assay(study, "adjudicate", "--file", str(decisions)).stdout
    ids = [line.split(":")[0].strip() for line in listed.splitlines()[1:]]
    assert ids, "the default study has ambiguous cells (chain steps calling their own)"
    assert ids == sorted(ids)
    runs = _sql(study, "SELECT DISTINCT run, subject, arm, cell_id FROM cells")
    names = {r["run"] for r in runs} | {r["subject"] for r in runs} | {r["arm"] for r in runs}
    for name in names:
        assert name not in listed, name
    shown = _assay(study, "adjudicate", ids[0], "--file", str(decisions)).stdout
    head, candidate = shown.split("## Candidate")
    assert candidate.strip()
    assert not [n for n in names if n in head], head
    decided = _assay(study, "adjudicate", ids[0], "--verdict", "reused", "--rationale",
                     "calls its own step that calls the helper", "--by", "A. Person",
                     "--file", str(decisions)).stdout  # fmt: skip
    (entry,) = yaml.safe_load(decisions.read_text())
    assert set(entry) == {"id", "verdict", "rationale", "adjudicator"}
    assert not [n for n in names if n in decisions.read_text()]
    assert "it was " in decided
    after = _assay(study, "adjudicate", "--file", str(decisions)).stdout
    line = next(line for line in after.splitlines() if ids[0] in line)
    assert "(arm " in line and "adjudicated reused" in line


def test_a_decision_by_id_reaches_the_report_through_dvc_repro(study_copy) -> None:
    """Decided blind (by id, in the repository's adjudications.yaml), the next `dvc repro`
    re-runs the report alone, and the decided cell's run reports it beside the preregistered
    result."""
    repo = study_copy

    def assay(*args: str) -> str:
        return repo.run("python", "-m", "assay.cli", "adjudicate", *args).stdout

    blind = assay().splitlines()[1].split(":")[0].strip()
    assay(blind, "--verdict", "duplicated", "--rationale", "the helper call is dead code",
          "--by", "A. Person")  # fmt: skip
    decided = next(line for line in assay().splitlines() if blind in line)
    run = decided.split("A. Person: ")[1].split()[0]
    again = repo.dvc("repro", timeout=1800).stdout
    assert {"report", "export"} >= {s.split("@")[0] for s in stages_ran(again)}, again
    assert "report" in stages_ran(again)
    primary = repo.read(f"data/report/runs/{run}/abstraction.md")
    section = primary.split("## With human adjudication of ambiguous cells")[1]
    assert "1 are adjudicated in `adjudications.yaml`" in section, section
    assert "the helper call is dead code" in section

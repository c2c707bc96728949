"""Through real `dvc repro`: a stored paid run whose chat answers print the target module again,
extracted under its preregistered extraction v2 (the gate rejects every echo), then re-extracted
under v3 with no provider call: the run is scored from what the answers add, the report flags
the deviation from its plan, and the rescore report lists every outcome v3 changes."""

from __future__ import annotations

import copy
import json
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml
from paid_run import CHAT, RUN, RUN_CASE, authorize, narrow_to_paid_runs, serve_free_endpoints
from provider_server import LocalServer, Reply, Seen

from assay.providers.simulated import shown_files
from tests.conftest import Repo, make_repo

pytestmark = [pytest.mark.dvc, pytest.mark.docker]

REUSE = {
    "gross_price": 'def implement(line):\n    return gross_price(line["net"], line["vat"])\n',
    "mask_card_number": "def implement(number):\n    return mask_card_number(number)\n",
}


def echo(seen: Seen) -> Reply:
    """A chat model's answer: the target module printed again, ``implement`` appended. The
    gross-price module comes back verbatim; the card-mask module with one annotation changed."""
    prompt = json.loads(seen.body)["messages"][-1]["content"]
    target, files = shown_files(prompt)
    module = files[target]
    helper = next(name for name in REUSE if f"def {name}(" in module)
    if helper == "mask_card_number":
        module = module.replace("card: dict[str, str]", "card: dict")
    content = f"Here is the updated file:\n\n```python\n{module}\n\n\n{REUSE[helper]}```\n"
    completion = copy.deepcopy(RUN_CASE["completion"])
    completion["choices"][0]["message"]["content"] = content
    return Reply(body=json.dumps({"id": f"gen-{len(seen.body)}", **completion}).encode())


def _extraction(repo: Repo, analysis: int, evaluators: int) -> None:
    params = yaml.safe_load(repo.read("params.yaml"))
    params["analysis"]["extraction"] = analysis
    params["evaluators"]["extraction"] = evaluators
    repo.write("params.yaml", yaml.safe_dump(params, sort_keys=False))


def _outcomes(repo: Repo) -> dict[str, set[Any]]:
    rows = pq.read_table(repo.path / f"data/structure/{RUN}/verdicts.parquet").to_pylist()
    by_subject: dict[str, set[Any]] = {}
    for row in rows:
        by_subject.setdefault(row["subject"], set()).add((row["verdict"], row["reason"]))
    return by_subject


@pytest.fixture
def echo_server() -> Any:
    server = LocalServer()
    server.start()
    serve_free_endpoints(server)
    server.routes[CHAT] = echo
    yield server
    server.stop()


def test_a_stored_run_reextracted_under_v3_is_scored_from_what_its_answers_add(
    tmp_path: Any, echo_server: LocalServer
) -> None:
    repo = make_repo(tmp_path / "repo")
    narrow_to_paid_runs(repo, {RUN: echo_server})
    _extraction(repo, analysis=2, evaluators=2)  # planned and sent before version 3 existed
    repo.dvc("repro")
    authorize(repo)
    repo.dvc("repro")
    sent = echo_server.count(CHAT)
    assert sent == RUN_CASE["requests"]
    assert _outcomes(repo) == {
        "gross-price": {("rejected", "module-statement")},
        "card-mask": {("rejected", "extra-definition")},
    }
    primary = repo.read(f"data/report/runs/{RUN}/abstraction.md")
    assert "candidates extracted with rules" not in primary
    assert 'data-qualifier="extraction-deviation"' not in repo.read("data/report/index.html")
    before = json.loads(repo.read(f"data/report/rescore/{RUN}.json"))["extraction"]
    assert (before["preregistered"], before["extracted_with"]) == (2, [2])

    _extraction(repo, analysis=3, evaluators=3)  # the new default: the sealed plan keeps 2
    repo.dvc("repro")
    assert echo_server.count(CHAT) == sent, "re-extraction sent a request"
    assert _outcomes(repo) == {
        "gross-price": {("reused", "helper-call")},
        "card-mask": {(None, "module-changed")},
    }
    candidates = pq.read_table(repo.path / f"data/extract/{RUN}/candidates.parquet").to_pylist()
    assert {c["extraction_version"] for c in candidates} == {3}
    assert {c["source"] for c in candidates if c["subject"] == "gross-price"} == {
        REUSE["gross_price"]
    }
    primary = repo.read(f"data/report/runs/{RUN}/abstraction.md")
    assert "candidates extracted with rules v3; the plan preregistered v2" in primary
    assert "extraction v3 changes 8 outcomes of extraction v2 in 2 subjects" in primary
    rescore = json.loads(repo.read(f"data/report/rescore/{RUN}.json"))["extraction"]
    assert (rescore["preregistered"], rescore["extracted_with"]) == (2, [3])
    assert [d["version"] for d in rescore["diffs"]] == [1, 3]
    v3 = rescore["diffs"][1]
    changes = {(c["subject"], c["preregistered"], c["reextracted"]) for c in v3["changes"]}
    assert changes == {
        ("gross-price", "rejected (module-statement)", "reused"),
        ("card-mask", "rejected (extra-definition)", "missing (module-changed)"),
    }
    markdown = repo.read(f"data/report/rescore/{RUN}.md")
    assert "### Extraction v3" in markdown and "| reused |" in markdown
    page = repo.read("data/report/index.html")
    assert "extraction v3 changes 8 outcomes of extraction v2" in page
    assert 'data-qualifier="extraction-deviation"' in page

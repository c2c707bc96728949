"""The realistic simulated model's candidates in the sandbox: each deviation that reaches the
sandbox ends with the correctness its table row says (clean and mixed answers pass; the slips
fail with their own outcome), on a v1 and a layered subject."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.fixtures.scenarios import load_scenario
from assay.providers.base import ModelProfile, ProviderRequest
from assay.providers.simulated import SimulatedProvider, answer_book, shown_files
from assay.sandbox.cells import request_for
from assay.sandbox.parallel import evaluate_many
from assay.science.extract import extract_candidate
from assay.science.gate import check_source
from assay.science.render import render_input
from assay.science.reprint import Repository

ROOT = Path(__file__).resolve().parents[2]
TABLE = yaml.safe_load(
    (ROOT / "tests" / "providers" / "cases" / "realistic_deviations.yaml").read_text()
)
SANDBOXED = [name for name, row in TABLE.items() if row["correctness"] != "missing"]
SUBJECTS = (("v1", "phone-display", "clean"), ("layered", "order-charge", "inconsistent"))


@pytest.mark.docker
def test_each_deviation_ends_in_the_sandbox_as_its_table_says(sandbox_image: str) -> None:
    cells, requests = [], []
    for scenario_name, subject_id, arm in SUBJECTS:
        scenario = load_scenario(scenario_name, ROOT / "fixtures")
        subject = scenario.subject(subject_id)
        book = answer_book(scenario.subjects)
        for arm in ("clean", "inconsistent"):
            prompt = render_input(subject, arm, scenario.prompt_profile).text
            for deviation in SANDBOXED:
                rates = {} if deviation == "clean" else {deviation: 1.0}
                profile = ModelProfile(provider="simulated", model="s", behaviour="realistic",
                                       seed=3, deviations=rates)  # fmt: skip
                text = (
                    SimulatedProvider(profile, book)
                    .complete(ProviderRequest(key=f"{subject_id}/{arm}/r1#1", prompt=prompt))
                    .text
                )
                source = extract_candidate(text, repository=prompt_repository(prompt)).source
                assert (
                    source is not None
                    and check_source(
                        source, helper=subject.task.helper, helper_module=subject.task.helper_module
                    ).accepted
                ), (deviation, text)
                cells.append((subject_id, arm, deviation, source))
                requests.append(request_for(subject, arm, source, sandbox_image))
    results = evaluate_many(requests, workers=2)
    for (subject_id, arm, deviation, source), result in zip(cells, results, strict=True):
        expected = TABLE[deviation]["correctness"]
        got = result.status if result.status == "correct" else result.reason
        assert got == expected, (subject_id, arm, deviation, source, result)


def prompt_repository(prompt: str) -> Repository:
    """The repository a rendered prompt shows (extraction v3 compares an answer with it)."""
    target, files = shown_files(prompt)
    return Repository(
        target=files.get(target, ""), others={p: t for p, t in files.items() if p != target}
    )

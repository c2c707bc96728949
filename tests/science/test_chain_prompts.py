"""The repository each chain step's prompt showed, rebuilt after the run for extraction v3: the
target with the earlier steps appended exactly as the execute stage rendered them."""

from assay.config.params import AnalysisPlan
from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.providers.base import ModelProfile
from assay.providers.simulated import answer_book, shown_files
from assay.science.chain_prompts import ChainRenderer, shown_repositories
from assay.science.extract import extract_candidate
from tests.chain_run import Recording, chain_plan, chain_scenario


def test_every_steps_repository_is_what_its_prompt_showed(tmp_path):
    scenario, rows, prompts = chain_scenario(2)
    profile = ModelProfile(provider="simulated", model="s", behaviour="realistic", seed=7,
                           own_step_rate=0.3)  # fmt: skip
    plan = chain_plan(scenario, prompts, profile, repeats=2, analysis=AnalysisPlan(extraction=3))
    provider = Recording(profile, answer_book(scenario.subjects))
    renderer = ChainRenderer(rows, plan.analysis.extraction)
    ledger = Ledger.open(tmp_path, plan.run, plan.hash, paid=False)
    records = Executor(plan, ledger, prompts, lambda: provider, next_prompt=renderer).run()
    repositories = shown_repositories(records, renderer)
    reprinted = 0
    for record in records:
        if record.status != "completed":
            continue
        target, files = shown_files(provider.prompts[f"{record.cell_id}#{record.step}"])
        repository = repositories[(record.cell_id, record.step)]
        assert repository.target.rstrip("\n") == files[target]
        assert {p: t.rstrip("\n") for p, t in repository.others.items()} == {
            p: t for p, t in files.items() if p != target
        }
        if record.step > 1 and "def implement_step_1(" in (record.text or ""):
            reprinted += 1
            candidate = extract_candidate(record.text, 3, repository=repository)
            assert candidate.source is None or "def implement_step_" not in candidate.source
    assert len(records) == 2 * 3 * 2 * 5
    assert reprinted > 0, "no answer printed the target with its earlier steps again"

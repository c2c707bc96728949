"""Chains: five provider calls per cell, each later prompt showing the model's own earlier code."""

from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.providers.base import ModelProfile
from assay.providers.simulated import answer_book
from assay.science.chain_prompts import ChainRenderer
from tests.chain_run import Recording, chain_plan, chain_scenario


def _chain_plan(subjects: int):
    """The chain scenario's first ``subjects`` subjects planned for the simulated duplicator:
    the scenario, its prompt rows and prompts by (subject, arm), the profile and the plan."""
    scenario, rows, prompts = chain_scenario(subjects)
    profile = ModelProfile(provider="simulated", model="sim", behaviour="duplicator")
    return scenario, rows, prompts, profile, chain_plan(scenario, prompts, profile)


def test_chain_runs_five_steps_and_later_steps_see_earlier_outputs(tmp_path):
    scenario, rows, prompts, profile, plan = _chain_plan(subjects=2)
    assert plan.schedule == "subject-rotated-v1" and plan.budget.requests == 2 * 3 * 5
    provider = Recording(profile, answer_book(scenario.subjects))
    ledger = Ledger.open(tmp_path, plan.run, plan.hash, paid=False)
    records = Executor(
        plan, ledger, prompts, lambda: provider, next_prompt=ChainRenderer(rows)
    ).run()

    assert len(records) == 30 and {r.status for r in records} == {"completed"}
    assert [r.step for r in records[:5]] == [1, 2, 3, 4, 5]
    first = plan.cells[0].cell_id
    for step in range(2, 6):
        shown = provider.prompts[f"{first}#{step}"]
        assert all(f"def implement_step_{k}(" in shown for k in range(1, step))
        assert f"def implement_step_{step}(" not in shown
    assert provider.prompts[f"{first}#1"] == prompts[(plan.cells[0].subject, plan.cells[0].arm)]


def test_a_step_without_code_ends_its_chain(tmp_path):
    scenario, rows, _ = chain_scenario(1)
    renderer = ChainRenderer(rows)
    plan_cell = type("Cell", (), {"subject": scenario.subjects[0].id, "arm": "tail-03"})()
    assert (
        renderer(plan_cell, 2, ["I cannot help with that."]) is not None
    )  # prose is still "code" to extract
    assert renderer(plan_cell, 2, [""]) is None


def test_every_step_s_prompt_is_stored_under_its_digest_before_its_intent(tmp_path):
    from assay.core.digest import sha256_hex
    from assay.pipeline.collect import sent_prompt_rows

    scenario, rows, prompts, profile, plan = _chain_plan(subjects=1)
    provider = Recording(profile, answer_book(scenario.subjects))

    class Checked(Ledger):
        def write_intent(self, key, *, request_digest, reservation_nano_usd):
            assert (self.objects / request_digest).is_file(), f"{key}: intent before its prompt"
            return super().write_intent(key, request_digest=request_digest,
                                 reservation_nano_usd=reservation_nano_usd)  # fmt: skip

    opened = Ledger.open(tmp_path, plan.run, plan.hash, paid=False)
    ledger = Checked(opened.directory)
    records = Executor(
        plan, ledger, prompts, lambda: provider, next_prompt=ChainRenderer(rows)
    ).run()
    assert len(records) == 15 and all(r.prompt_digest for r in records)
    stored = {
        row.prompt_digest: row.prompt for row in sent_prompt_rows("chain", records, ledger, [])
    }
    for record in records:
        sent = provider.prompts[f"{record.cell_id}#{record.step}"]
        assert stored[record.prompt_digest] == sent and sha256_hex(sent) == record.prompt_digest
    assert len({r.prompt_digest for r in records if r.step > 1}) == 12, "steps 2-5 differ"

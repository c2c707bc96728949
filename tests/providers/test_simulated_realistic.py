"""The realistic simulated model: each deviation ends where its table says on every subject of
every scenario, clean answers keep the follower's verdict through every layout, replies vary
per call and repeat but not per run, and the default study's realistic run meets every state."""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from assay.config.params import AnalysisPlan, RunSpec, load_params
from assay.fixtures.scenarios import load_scenario
from assay.paid.execute import Executor
from assay.paid.ledger import Ledger
from assay.paid.plan import build_plan, cell_id, request_sizes
from assay.pipeline.render import prompt_rows
from assay.providers.base import DEVIATIONS, ModelProfile, ProviderRequest
from assay.providers.realistic.answer import choose_deviation
from assay.providers.realistic.draws import Draws
from assay.providers.simulated import AnswerEntry, SimulatedProvider, answer_book, shown_files
from assay.science.chain_prompts import ChainRenderer, shown_repositories
from assay.science.extract import extract_candidate
from assay.science.render import render_input
from assay.science.reprint import Repository
from assay.structure import score

ROOT = Path(__file__).resolve().parents[2]
TABLE = yaml.safe_load((Path(__file__).parent / "cases" / "realistic_deviations.yaml").read_text())
SCENARIOS = ("v1", "layered", "chain")
"""The sets with their own references and prompt shapes (dose, placement and context reuse the
layered subjects' references in longer prompts)."""


@pytest.fixture(scope="module")
def scenarios():
    return {name: load_scenario(name, ROOT / "fixtures") for name in SCENARIOS}


def _provider(book, **profile) -> SimulatedProvider:
    return SimulatedProvider(
        ModelProfile(provider="simulated", model="s", behaviour="realistic", **profile), book
    )


def shown(prompt: str) -> Repository:
    """The repository a prompt shows (extraction v3 compares an answer with it)."""
    target, files = shown_files(prompt)
    others = {path: text for path, text in files.items() if path != target}
    return Repository(target=files.get(target, ""), others=others)


def _outcome(text: str, helper: str, helper_module: str | None, primitives, prompt: str) -> tuple:
    extraction = extract_candidate(text, repository=shown(prompt))
    if extraction.source is None:
        return extraction.status, None, None
    result = score(extraction.source, helper=helper, helper_module=helper_module,
                   primitives=primitives)  # fmt: skip
    return extraction.status, result.verdict, result.reason


def _calls(scenarios):
    """(scenario, subject, arm, prompt) for every cell of every scenario's first step."""
    for name, scenario in scenarios.items():
        for subject in scenario.subjects:
            for arm in scenario.arms:
                yield name, subject, arm, render_input(subject, arm, scenario.prompt_profile).text


def test_table_names_every_deviation():
    assert set(TABLE) == {"clean", *DEVIATIONS}


@pytest.mark.parametrize("deviation", ["clean", *DEVIATIONS])
def test_each_deviation_ends_where_its_table_says_on_every_subject(scenarios, deviation):
    expected = TABLE[deviation]
    books = {name: answer_book(s.subjects) for name, s in scenarios.items()}
    rates = {} if deviation == "clean" else {deviation: 1.0}
    for index, (name, subject, arm, prompt) in enumerate(_calls(scenarios)):
        task = subject.task
        request = ProviderRequest(key=f"{subject.id}/{arm}/r1#1", prompt=prompt)
        kept = _provider(books[name], seed=index).complete(request).text
        text = _provider(books[name], seed=index, deviations=rates).complete(request).text
        got = _outcome(text, task.helper, task.helper_module, task.primitives, prompt)
        base = _outcome(kept, task.helper, task.helper_module, task.primitives, prompt)
        where = (name, subject.id, arm, index, text)
        assert got[0] == expected["extraction"], where
        if expected["verdict"] == "keeps":
            assert got[1:] == base[1:] and base[1] in ("reused", "duplicated"), where
        else:
            assert got[1:] == (expected["verdict"], expected.get("reason")), where


def _codebase_entries() -> list[tuple[AnswerEntry, str]]:
    """The codebase tasks' answer-book entries, read from their declarations (their slices
    exist only after the snapshot stage), each with a prompt naming its target."""
    entries = []
    for folder in sorted((ROOT / "fixtures" / "codebase").glob("*/")):
        if not (folder / "task.toml").exists():
            continue
        task = tomllib.loads((folder / "task.toml").read_text(encoding="utf-8"))
        entry = AnswerEntry(
            instruction=task["instruction"].strip(),
            helper=task["helper"],
            helper_module=task.get("helper_module"),
            primitives=tuple(task["primitives"]),
            reused=(folder / "reference_reused.py").read_text(encoding="utf-8"),
            duplicated=(folder / "reference_duplicated.py").read_text(encoding="utf-8"),
        )
        prompt = (
            "File `pkg/target.py`:\n\n```python\nimport os\n\n\ndef home() -> str:\n"
            "    return os.path.expanduser('~')\n```\n\n"
            f"Task: {entry.instruction}\n\n- Write the new function `implement` that will be "
            "appended to the end of `pkg/target.py`.\n"
        )
        entries.append((entry, prompt))
    assert len(entries) >= 10
    return entries


@pytest.mark.parametrize("deviation", ["clean", *DEVIATIONS])
def test_codebase_references_take_every_deviation_too(deviation):
    expected = TABLE[deviation]
    rates = {} if deviation == "clean" else {deviation: 1.0}
    for entry, prompt in _codebase_entries():
        for seed in range(2):
            request = ProviderRequest(key=f"x/clean/r{seed}#1", prompt=prompt)
            text = _provider([entry], seed=seed, deviations=rates).complete(request).text
            got = _outcome(text, entry.helper, entry.helper_module, entry.primitives, prompt)
            assert got[0] == expected["extraction"], text
            if expected["verdict"] not in ("keeps", None):
                assert got[1:] == (expected["verdict"], expected.get("reason")), text


def test_the_reply_is_fixed_by_seed_prompt_and_call_and_varies_across_repeats(scenarios):
    v1 = scenarios["v1"]
    book = answer_book(v1.subjects)
    prompt = render_input(v1.subjects[0], "clean", "v1").text

    def replies(seed: int) -> list[str]:
        provider = _provider(book, seed=seed)
        return [
            provider.complete(ProviderRequest(key=f"card-mask/clean/r{r}#1", prompt=prompt)).text
            for r in range(1, 31)
        ]

    first = replies(5)
    assert first == replies(5)
    assert first != replies(6)
    candidates = {extract_candidate(text, repository=shown(prompt)).source for text in first}
    assert len(set(first)) == 30 and len(candidates) >= 24, "repeats must not be cache hits"


def test_clean_replies_use_many_layouts_and_keep_the_reference_code(scenarios):
    v1 = scenarios["v1"]
    book = answer_book(v1.subjects)
    seen = Counter()
    for _, subject, arm, prompt in _calls({"v1": v1}):
        for repeat in range(1, 6):
            text = (
                _provider(book, seed=repeat)
                .complete(ProviderRequest(key=f"{subject.id}/{arm}/r{repeat}#1", prompt=prompt))
                .text
            )
            seen["bare fence"] += "\n```\ndef " in text or "\n```\nfrom " in text
            seen["no fence"] += "```" not in text and "~~~" not in text
            seen["several blocks"] += text.count("```") + text.count("~~~") >= 4
            seen["prose after"] += not text.rstrip().endswith(("```", "~~~"))
            seen["renamed parameter"] += "def implement(value)" not in text
            seen["docstring"] += '"""' in text
            seen["comment"] += "    # " in text or "\n# " in text
    assert all(count >= 3 for count in seen.values()), seen


def test_served_model_says_simulated_realistic(scenarios):
    v1 = scenarios["v1"]
    prompt = render_input(v1.subjects[0], "clean", "v1").text
    result = _provider(answer_book(v1.subjects)).complete(ProviderRequest(key="c#1",
                                                                           prompt=prompt))  # fmt: skip
    assert (result.served_model, result.served_provider) == ("simulated/realistic", "simulated")
    assert result.cost_usd == 0.0 and result.no_charge_proven


def test_truncated_replies_end_at_the_token_limit(scenarios):
    v1 = scenarios["v1"]
    prompt = render_input(v1.subjects[0], "inconsistent", "v1").text
    provider = _provider(answer_book(v1.subjects), deviations={"truncated": 1.0})
    result = provider.complete(ProviderRequest(key="c#1", prompt=prompt))
    assert result.finish_reason == "length" and result.text.rstrip().endswith("(")


@pytest.mark.parametrize(
    ("profile", "phrase"),
    [
        ({"behaviour": "follower", "deviations": {"stub": 0.1}}, "behaviour: realistic"),
        ({"behaviour": "realistic", "deviations": {"stub": 0.6, "mixed": 0.6}}, "sum to 1.2"),
        ({"behaviour": "realistic", "deviations": {"typo": 0.1}}, "deviations.typo"),
        ({"behaviour": "realistic", "deviations": {"stub": 1.5}}, "deviations.stub"),
    ],
)
def test_profile_refuses_deviations_it_cannot_use(profile, phrase):
    with pytest.raises(ValidationError) as refused:
        ModelProfile(provider="simulated", model="s", **profile)
    assert phrase in str(refused.value)


def _default_realistic_runs():
    params = load_params(ROOT / "params.yaml")
    return params, [
        name
        for name, run in params.runs.items()
        if params.models[run.model].behaviour == "realistic"
    ]


def _drawn(profile: ModelProfile, scenario, repeats: int) -> Counter:
    """The deviations the run's calls draw (first steps), computed as the provider does."""
    drawn: Counter = Counter()
    for subject in scenario.subjects:
        for arm in scenario.arms:
            prompt = render_input(subject, arm, scenario.prompt_profile).text
            digest = hashlib.sha256(prompt.encode()).hexdigest()
            for repeat in range(1, repeats + 1):
                call = f"{cell_id(subject.id, arm, repeat)}#1|{digest}"
                drawn[choose_deviation(profile.deviations, Draws(profile.seed, call))] += 1
    return drawn


def test_the_default_studys_realistic_run_draws_every_deviation(scenarios):
    """What the dvc repro test sees end to end, checked in a second: a fixture or prompt edit
    that changes the draws fails here first, with seeds that would cover everything again."""
    params, runs = _default_realistic_runs()
    assert runs, "params.yaml declares no run of a realistic simulated model"
    for name in runs:
        run = params.runs[name]
        profile = params.models[run.model]
        scenario = scenarios[run.scenario]
        drawn = _drawn(profile, scenario, run.repeats)
        missing = set(DEVIATIONS) - set(drawn)
        if missing:
            good = [
                seed
                for seed in range(1, 3000)
                if set(DEVIATIONS)
                <= set(_drawn(profile.model_copy(update={"seed": seed}), scenario, run.repeats))
            ][:5]
            pytest.fail(f"run {name}: seed {profile.seed} draws no {sorted(missing)}; seeds "
                        f"that draw every deviation: {good}")  # fmt: skip
        assert drawn["slow"] <= 2, "each slow answer costs the sandbox deadline per case"
        assert drawn[None] >= len(scenario.subjects), "most answers stay clean"


def test_a_whole_chain_run_answers_every_step(tmp_path):
    """Later chain steps show the model's own earlier (varied, sometimes broken) code: every
    call is still answered, and the own-step answers survive the variations."""
    scenario = load_scenario("chain", ROOT / "fixtures")
    rows = {(r.subject, r.arm): r for r in prompt_rows(scenario)}
    prompts = {key: row.prompt for key, row in rows.items()}
    profile = ModelProfile(provider="simulated", model="s", behaviour="realistic", seed=4,
                           own_step_rate=0.5, deviations=dict.fromkeys(DEVIATIONS, 0.03))  # fmt: skip
    plan = build_plan(run_id="chain", run=RunSpec(model="s", scenario="chain", repeats=1),
                      profile=profile, scenario=scenario, fixture_sources="0" * 64,
                      prompts=request_sizes(prompts, lambda p: len(p.encode())),
                      analysis=AnalysisPlan(), tools={})  # fmt: skip
    provider = SimulatedProvider(profile, answer_book(scenario.subjects))
    ledger = Ledger.open(tmp_path, plan.run, plan.hash, paid=False)
    renderer = ChainRenderer(rows)
    records = Executor(plan, ledger, prompts, lambda: provider, next_prompt=renderer).run()
    repositories = shown_repositories(records, renderer)
    assert {r.status for r in records} <= {"completed", "not-run"}
    for record in records:  # a chain ends after a step with no code to build the next one on
        if record.status == "not-run":
            earlier = [r for r in records if r.cell_id == record.cell_id and r.step < record.step]
            assert any(
                extract_candidate(r.text, repository=repositories[(r.cell_id, r.step)]).source
                is None
                for r in earlier
            ), record
    later = [r for r in records if r.step > 1 and r.status == "completed"]
    assert len(later) > 100
    own = [r for r in later if re.search(r"return implement_step_\d+\(", r.text or "")]
    assert own and any(r.text != own[0].text for r in own)

"""The simulated stand-in and the replay provider: free, deterministic, labelled, fail closed."""

from pathlib import Path

import pytest

from assay.core.records import CallKey
from assay.fixtures.scenarios import load_scenario
from assay.paid.ledger import Ledger
from assay.paid.ledger_records import Outcome
from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult
from assay.providers.replay import ReplayProvider
from assay.providers.simulated import SimulatedProvider, answer_book, inline_pattern, pull
from assay.science.render import render_input

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dose():
    return load_scenario("dose", ROOT / "fixtures")


@pytest.fixture(scope="module")
def placement():
    return load_scenario("placement", ROOT / "fixtures")


def _probability(scenario, subject, arm, follow_rate=0.8):
    provider = SimulatedProvider(
        ModelProfile(provider="simulated", model="s", follow_rate=follow_rate),
        answer_book(scenario.subjects),
    )
    prompt = render_input(subject, arm, scenario.prompt_profile).text
    return provider.duplication_probability(prompt, provider._entry(prompt))


def test_pull_grows_with_the_inline_share_and_with_nearness():
    assert pull([]) == 0 == pull([False] * 10)
    assert pull([True] * 10) == 1
    spread = [True, False, True, False, False, False, False, False, False, False]
    tail = [False] * 8 + [True, True]
    assert sum(spread) == sum(tail) and pull(tail) > pull(spread)


def test_dose_probability_is_monotone_in_mess_level(dose):
    for subject in dose.subjects:
        probabilities = [_probability(dose, subject, arm) for arm in dose.arms]
        assert probabilities == sorted(probabilities), subject.id
        assert probabilities[0] == pytest.approx(0.2) and probabilities[-1] == pytest.approx(0.8)


def test_clustered_mess_pulls_harder_than_spread_mess(dose, placement):
    for subject in dose.subjects:
        spread = _probability(dose, subject, "mess-03")
        clustered = _probability(placement, placement.subject(subject.id), "tail-03")
        assert clustered > spread, subject.id


def test_inline_pattern_reads_the_file_the_model_sees(dose):
    subject = dose.subjects[0]
    target = subject.arm("mess-05").file(subject.target)
    pattern = inline_pattern(target, subject.task.helper, subject.task.primitives)
    assert len(pattern) == 10 and sum(pattern) == 5 and pattern[-1] is False


@pytest.mark.parametrize(
    ("behaviour", "reference"), [("reuser", "reused"), ("duplicator", "duplicated")]
)
def test_fixed_behaviours_answer_with_the_declared_reference_fenced(dose, behaviour, reference):
    provider = SimulatedProvider(ModelProfile(provider="simulated", model="s", behaviour=behaviour),
                                 answer_book(dose.subjects))  # fmt: skip
    subject = dose.subjects[3]
    result = provider.complete(
        ProviderRequest(key="c#1", prompt=render_input(subject, "mess-05", "layered").text)
    )
    assert result.status == "completed" and result.served_model == f"simulated/{behaviour}"
    assert getattr(subject.task.references, reference).strip() in result.text
    assert result.text.count("```python") == 1


def test_follower_is_deterministic_per_cell_and_seed(dose):
    book = answer_book(dose.subjects)
    prompt = render_input(dose.subjects[0], "mess-05", "layered").text

    def answers(seed):
        provider = SimulatedProvider(ModelProfile(provider="simulated", model="s", seed=seed), book)
        return [
            provider.complete(ProviderRequest(key=f"c{i}#1", prompt=prompt)).text for i in range(40)
        ]

    assert answers(1) == answers(1)
    assert answers(1) != answers(2)


def test_unknown_prompt_fails_closed():
    provider = SimulatedProvider(ModelProfile(provider="simulated", model="s"), ())
    result = provider.complete(ProviderRequest(key="c#1", prompt="anything"))
    assert (result.status, result.halt) == ("provider-error", True)


def _write(ledger, key, result):
    reported = Outcome.model_validate(result, from_attributes=True)
    ledger.write_outcome(key, reported, raw=result.raw, text=result.text)


def test_replay_reserves_earlier_answers_and_fails_closed_on_a_miss(tmp_path):
    ledger = Ledger.open(tmp_path, "earlier", "a" * 64, paid=False)
    ledger.write_intent(CallKey(cell_id="c1", step=1), request_digest="d", reservation_nano_usd=0)
    _write(ledger, CallKey(cell_id="c1", step=1), ProviderResult(status="completed", text="answer",
           raw=b'{"raw":1}', served_model="m", generation_id="g"))  # fmt: skip
    ledger.write_intent(CallKey(cell_id="c2", step=1), request_digest="d", reservation_nano_usd=0)
    _write(
        ledger,
        CallKey(cell_id="c2", step=1),
        ProviderResult(status="provider-error", reason="http-429", halt=True),
    )
    replay = ReplayProvider(ledger.directory)
    hit = replay.complete(ProviderRequest(key="c1#1", prompt="p"))
    assert (hit.status, hit.text, hit.raw, hit.served_model) == (
        "completed",
        "answer",
        b'{"raw":1}',
        "m",
    )
    for key in ("c2#1", "c3#1"):
        miss = replay.complete(ProviderRequest(key=key, prompt="p"))
        assert (miss.status, miss.reason, miss.halt) == ("provider-error", "replay-miss", True)


def test_replay_of_a_missing_ledger_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="replay ledger not found"):
        ReplayProvider(tmp_path / "nowhere")

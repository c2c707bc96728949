"""The Inspect task shipped with assay: ``inspect eval assay/<scenario> --model …``.

One task per scenario, registered under the ``assay/`` namespace through the ``inspect_ai``
entry point in pyproject.toml (Inspect imports this module when a task name starts with
``assay/``). Run it from the repository root: its samples are the prompts the pipeline rendered
there (the ``render`` stage's table), byte for byte, so a log it writes can be scored by a run of
``provider: inspect-log`` (:mod:`assay.providers.inspect_log`).

- a sample is one (subject, arm) prompt; its id is the prompt's sha256, the ``prompt_digest``
  the plan records; its input is the messages assay's chat adapters send for it
  (:func:`assay.providers.chat.user_messages`: the prompt as the one user message, no system
  message); it carries no metadata and no target, because the prompt is blind and so is the
  sample (no subject id, arm, family, reference or test vector);
- the samples are in the order of their ids (a sha256 orders them blindly);
- epochs are repeats: two by default, as a run's (``inspect eval … --epochs N`` for others);
- no solver but ``generate()`` and no scorer: assay extracts and scores the answers.

A scenario whose cells are chains (``chain``: each step's prompt is built from the model's
earlier answers) cannot be asked outside assay, and a scenario without rendered prompts cannot
be asked at all: both are refused by name when the task is made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser
from inspect_ai.solver import generate

from assay import evidence
from assay.config.params import RunSpec
from assay.core.digest import sha256_hex
from assay.core.errors import InputError, MissingEvidence
from assay.fixtures.chain import CHAIN_STEPS
from assay.fixtures.declared import BUILT_IN
from assay.providers.chat import user_messages

NAMESPACE = "assay"
"""The package name Inspect puts before each task's name (``assay/v1``)."""

DEFAULT_EPOCHS: int = RunSpec.model_fields["repeats"].default
"""A run's default repeats."""

MESSAGE_TYPES: dict[str, Callable[[str], ChatMessage]] = {
    "user": lambda text: ChatMessageUser(content=text),
    "assistant": lambda text: ChatMessageAssistant(content=text),
}


class TaskRefused(InputError):
    """The scenario cannot be asked through Inspect (a chain), or has no rendered prompts."""


def as_inspect(messages: Iterable[dict[str, str]]) -> list[ChatMessage]:
    """Chat messages as the providers build them (``{"role", "content"}``), as Inspect's."""
    return [MESSAGE_TYPES[message["role"]](message["content"]) for message in messages]


def scenario_samples(scenario: str) -> list[Sample]:
    """The scenario's rendered prompts as samples (id: the prompt's sha256), in id order."""
    task_name = f"{NAMESPACE}/{scenario}"
    steps = _steps(scenario)
    if steps > 1:
        raise TaskRefused(
            f"{task_name}: a {scenario} cell is {steps} calls, each prompt built by assay from "
            "the model's earlier answers, so it cannot be asked outside assay: send it through "
            "a run of params.yaml instead"
        )
    try:
        prompts = evidence.read_prompts(scenario)
    except MissingEvidence as exc:
        raise TaskRefused(
            f"{task_name}: the samples are the prompts the pipeline rendered in the repository "
            f"Inspect runs in (the current directory), and it has none for {scenario!r}: {exc} "
            f"(list {scenario!r} under params.yaml: scenarios, then `uv run dvc repro render`)"
        ) from None
    by_digest: dict[str, list[tuple[str, str]]] = {}
    for key, prompt in prompts.items():
        by_digest.setdefault(sha256_hex(prompt), []).append(key)
    shared = [keys for keys in by_digest.values() if len(keys) > 1]
    if shared:
        raise TaskRefused(
            f"{task_name}: {len(shared)} prompts are rendered for more than one (subject, arm), "
            "so their digests cannot tell the samples apart"
        )
    texts = {sha256_hex(prompt): prompt for prompt in prompts.values()}
    return [
        Sample(id=digest, input=as_inspect(user_messages(texts[digest])))
        for digest in sorted(texts)
    ]


def _steps(scenario: str) -> int:
    """Provider calls per cell: as the scenario was realised, else the built-in chain's."""
    try:
        return evidence.read_scenario(scenario).steps
    except MissingEvidence:
        return CHAIN_STEPS if scenario == "chain" else 1


def scenario_task(scenario: str) -> Task:
    """The task of ``scenario``: its blind prompts, ``generate()``, no scorer."""
    return Task(
        dataset=MemoryDataset(scenario_samples(scenario), name=scenario),
        solver=generate(),
        epochs=DEFAULT_EPOCHS,
        name=f"{NAMESPACE}/{scenario}",
    )


def task_names() -> tuple[str, ...]:
    """The scenarios given a task: every built-in one, and every one the repository Inspect
    runs in has realised (a scenario declared in its fixtures folder)."""
    realised = evidence.realised_scenarios()
    return tuple(dict.fromkeys((*BUILT_IN, *realised)))


def _register(scenario: str) -> None:
    def make() -> Task:
        return scenario_task(scenario)

    make.__name__ = make.__qualname__ = scenario.replace("-", "_")
    make.__doc__ = f"assay's blind prompts of the {scenario} scenario, one sample per prompt."
    task(name=scenario)(make)


for _scenario in task_names():
    _register(_scenario)

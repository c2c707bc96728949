"""How a run asked for its answers, in words: its prompting mode and its kind, from its plan.

A run's identity includes how the model was prompted and decoded (DESIGN.md, invariant 8): the
same weights asked through their chat template, with the assistant's turn prefilled, or as plain
text completion answer differently, and so does a model sampled at a temperature. Every report
names each run's mode beside its results, and nothing pools runs of different modes (the
duplication-cost report pools one mode; :func:`assay.report.costs.choose_runs`).

The functions read the plan stage's record (:class:`~assay.evidence.plan.Plan`: the profile under
``model``, a local profile's ``local`` section), or a profile as ``params.yaml`` declares it
(:class:`~assay.providers.base.ModelProfile`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.evidence.plan import Plan
from assay.local.settings import LocalModel
from assay.providers.base import ModelProfile

SHOWN_CHARACTERS = 40
"""A prefix or suffix longer than this is cut with an ellipsis in the label."""

NEWLINE = "⏎"

INSPECT_LOG = "Inspect log"


def shown(text: str) -> str:
    """A prompt fragment on one line: newlines as ⏎, cut after :data:`SHOWN_CHARACTERS`."""
    line = text.replace("\r\n", "\n").replace("\n", NEWLINE)
    return line if len(line) <= SHOWN_CHARACTERS else line[: SHOWN_CHARACTERS - 1] + "…"


def _local_mode(local: LocalModel) -> str:
    prefix = local.answer_prefix
    if local.prompting == "chat":
        return "chat" + (f", answer prefilled with {shown(prefix)}" if prefix else "")
    parts: list[str] = [local.prompting]
    if local.prompt_suffix:
        parts.append(f"suffix {shown(local.prompt_suffix)}")
    if prefix:
        parts.append(f"prefix {shown(prefix)}")
    return ", ".join(parts)


def profile_mode(profile: ModelProfile) -> str:
    """The prompting mode of a model profile: ``simulated``, ``replay``, ``chat (API)`` for a
    remote provider, and for a local model ``chat``, ``chat, answer prefilled with …`` or
    ``completion, suffix …, prefix …``; a model sampled at a temperature above zero says so
    (greedy decoding, the default, says nothing)."""
    provider = profile.provider
    if provider in ("simulated", "replay"):
        return provider
    if provider == "inspect-log":
        return INSPECT_LOG  # its plan reads the mode from the log (plan_mode)
    local = profile.local
    label = _local_mode(local) if provider == "local" and local is not None else "chat (API)"
    if profile.temperature:
        label += f", sampled at temperature {profile.temperature:g}"
    return label


def _logged_mode(runtime: Mapping[str, Any]) -> str:
    """An Inspect log's prompting mode, as its plan bound it: ``chat`` or ``chat, answer
    prefilled with …`` (the prefill its samples share), with the temperature Inspect was given
    (its kind says the answers came from a log: :func:`plan_kind`)."""
    prefills = runtime.get("prefills") or []
    label = "chat" + (f", answer prefilled with {shown(prefills[0])}" if len(prefills) == 1 else "")
    temperature = (runtime.get("generate_config") or {}).get("temperature")
    if temperature:
        label += f", sampled at temperature {temperature:g}"
    return label


def plan_mode(plan: Plan) -> str:
    """The prompting mode of the run ``plan`` describes."""
    if plan.model.answers_fixed and plan.runtime:
        return _logged_mode(plan.runtime)
    return profile_mode(plan.model)


def plan_kind(plan: Plan, simulated: bool) -> str:
    """What answered the run's calls: ``simulated``, ``real local model``, ``paid API``,
    ``free API`` (a remote endpoint priced at zero), ``Inspect log: answers made outside
    assay`` or ``replay of …`` (``simulated`` says whether a replay's calls were served by the
    simulated model)."""
    profile = plan.model
    provider = profile.provider
    if provider == "simulated":
        return "simulated"
    if provider == "replay":
        what = "simulated answers" if simulated else "recorded answers"
        ledger = profile.replay_ledger
        return f"replay of {what}" + (f" ({ledger})" if ledger else "")
    if provider == "local":
        return "real local model"
    if provider == "inspect-log":
        return f"{INSPECT_LOG}: answers made outside assay"
    return "free API" if profile.is_free else "paid API"

"""The realistic reply to one call: the deviation drawn, the code varied, the reply composed
(the behaviour is described in :mod:`assay.providers.realistic`)."""

from __future__ import annotations

from collections.abc import Mapping

from assay.providers.base import DEVIATIONS, Deviation
from assay.providers.realistic.code import (
    COMMENT,
    REFORMAT,
    add_comment,
    comment_text,
    parse,
    render,
    vary,
)
from assay.providers.realistic.deviations import REPRINTS, SHAPES, SLIPS, TEXTS, Task
from assay.providers.realistic.draws import Draws
from assay.providers.realistic.reply import Approach, Reply, Setting, compose
from assay.providers.realistic.reprint import REPRINT, reprinted

_APPROACH_AFTER: dict[Deviation, Approach] = {
    "mixed": "helper",
    "helper-in-branch": "helper",
    "stub": "other",
}


def choose_deviation(rates: Mapping[Deviation, float], draws: Draws) -> Deviation | None:
    """At most one deviation, each with its rate (walked in catalogue order)."""
    point = draws.uniform("deviation")
    total = 0.0
    for deviation in DEVIATIONS:
        total += rates.get(deviation, 0.0)
        if point < total:
            return deviation
    return None


def answer(
    base: str,
    approach: Approach,
    task: Task,
    setting: Setting,
    deviation: Deviation | None,
    draws: Draws,
) -> Reply:
    """The reply built on ``base`` (a reference solution, or the call of an earlier step)."""
    module = parse(base)
    changed = False
    if deviation in SHAPES:
        module = SHAPES[deviation](module, task, draws)
        approach = _APPROACH_AFTER.get(deviation, approach)
        changed = True
    changed = vary(module, draws, task.instruction) or changed
    if deviation in SLIPS:
        SLIPS[deviation](module, draws)
        changed = True
    if changed or deviation in TEXTS or draws.chance("reformat", REFORMAT):
        source = render(module, draws)
    else:
        source = base.strip("\n") + "\n"
    if deviation in TEXTS:
        source = TEXTS[deviation](source, draws)
    if draws.chance("comment", COMMENT):
        comment = setting.fill(comment_text(approach, draws))
        source = add_comment(source, comment, inside=draws.chance("comment-inside", 0.6))
    if deviation in REPRINTS or draws.chance("reprint", REPRINT):
        source = reprinted(task.target_source, source, draws, change=deviation in REPRINTS)
    alternative = None
    if deviation == "two-versions":
        other = task.duplicated if approach == "helper" else task.reused
        alternative = render(parse(other), draws)
    return compose(
        source,
        approach=approach,
        setting=setting,
        draws=draws,
        deviation=deviation,
        alternative=alternative,
    )

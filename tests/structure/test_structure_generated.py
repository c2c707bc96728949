"""Properties of ``score`` on generated candidate modules (``sources.py``: every statement kind,
long ``elif`` chains, deep nesting, v8's higher-order forms) and on generated module text of any
shape: it never raises, under every version, with or without earlier chain steps; v8 differs
from v7 only where v8's rules apply; v8 sees through an alias and inherits an earlier step's
verdict."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assay.core.records import Verdict
from assay.structure import EVALUATOR_VERSIONS, StructuralResult, gated_candidate, score
from assay.structure.explain import explain
from tests.structure.sources import (
    EARLIER,
    EXPRESSIONS,
    HELPER,
    HELPER_MODULE,
    PRIMITIVES,
    indent,
    modules,
)

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
MODULE_SETTINGS = settings(SETTINGS, max_examples=60)

V8_FORMS = re.compile(
    r"partial|implement_step_|clean|\]\(|map\(|key=|parse_url|"
    r"\b(?:normalize|strip|sub|len|join|urlparse)\b(?!\()"
)
"""Text that can make v8 differ from v7: a helper or primitive named without being called, an
alias, a partial, a called subscript, an own step, a primitive under the helper's name."""
DIRECT_HELPER_CALL = re.compile(r"(?<![\w.])normalize\(")


def _every_version(
    source: str | bytes, earlier: Mapping[int, Verdict | None]
) -> dict[int, StructuralResult]:
    results = {}
    for version in sorted(EVALUATOR_VERSIONS):
        arguments = {
            "helper": HELPER,
            "helper_module": HELPER_MODULE,
            "primitives": PRIMITIVES,
            "version": version,
            "earlier": earlier,
        }
        results[version] = score(source, **arguments)
        if version >= 7:  # the stage's explanation walks it too
            explain(gated_candidate(source, **arguments))
    return results


@MODULE_SETTINGS
@given(modules(), EARLIER)
def test_generated_modules_get_a_verdict(source: str, earlier: dict[int, Verdict | None]) -> None:
    ast.parse(source)  # the generator makes valid Python
    results = _every_version(source, earlier)
    assert all(r.evaluator_version == v for v, r in results.items())
    if not V8_FORMS.search(source):
        assert results[8].model_copy(update={"evaluator_version": 7}) == results[7]


@SETTINGS
@given(
    st.text(
        alphabet=st.sampled_from(list("def implement():\n    (x)[y]{z}if elif:*,.'\"#\\")),
        max_size=400,
    ),
    EARLIER,
)
def test_arbitrary_text_gets_a_verdict(text: str, earlier: dict[int, Verdict | None]) -> None:
    _every_version(text, earlier)


@SETTINGS
@given(EXPRESSIONS)
def test_an_alias_of_the_helper_is_the_helper_under_v8(expression: str) -> None:
    direct = f"def implement(value):\n    result = {expression}\n    return result\n"
    # only a renaming when the helper is called and never named otherwise
    assume(DIRECT_HELPER_CALL.search(expression))
    assume(not re.search(r"normalize(?!\()|\bclean\b|partial|implement_step_", direct))
    renamed = DIRECT_HELPER_CALL.sub("clean(", expression)
    body = ["clean = normalize", f"result = {renamed}", "return result"]
    aliased = "def implement(value):\n" + "\n".join(indent(body)) + "\n"
    arguments = {"helper": HELPER, "helper_module": None, "primitives": PRIMITIVES, "version": 8}
    assert score(aliased, **arguments) == score(direct, **arguments)


@SETTINGS
@given(
    st.sampled_from(["reused", "mixed", "duplicated", "ambiguous", "rejected", None]),
    st.integers(min_value=1, max_value=4),
)
def test_returning_an_earlier_step_inherits_its_verdict(verdict: Verdict | None, step: int) -> None:
    source = f"def implement(value):\n    return implement_step_{step}(value)\n"
    result = score(
        source, helper=HELPER, helper_module=None, primitives=PRIMITIVES, version=8,
        earlier={k: (verdict if k == step else "reused") for k in range(1, step + 1)},
    )  # fmt: skip
    if verdict in ("reused", "mixed", "duplicated"):
        assert result.verdict == verdict
    else:
        assert (result.verdict, result.reason) == ("ambiguous", "earlier-step-undecided")

"""Properties of ``score``: it never raises, its reasons agree with its verdicts, and the
versions differ only as the registry table says. Inputs: generated modules (hypothesis) and
every function of a few installed stdlib packages."""

from __future__ import annotations

import ast
import sysconfig
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.science.gate import check_source
from assay.structure import EVALUATOR_VERSIONS, StructuralResult, score
from tests.structure.sources import modules

HELPER = "normalize"
HELPER_MODULE = "shop.text"
PRIMITIVES = ("str.strip", "re.sub", "len", "os.path.join")
FIXED_REASON = {
    "reused": "helper-call",
    "mixed": "helper-and-primitive",
    "duplicated": "primitive-only",
}


def _score_all(
    source: str | bytes,
    helper: str = HELPER,
    module: str | None = HELPER_MODULE,
    primitives: tuple[str, ...] = PRIMITIVES,
) -> dict[int, StructuralResult]:
    return {
        v: score(source, helper=helper, helper_module=module, primitives=primitives, version=v)
        for v in sorted(EVALUATOR_VERSIONS)
    }


def _assert_consistent(
    source: str | bytes,
    results: dict[int, StructuralResult],
    helper: str = HELPER,
    module: str | None = HELPER_MODULE,
) -> None:
    for version, result in results.items():
        assert result.evaluator_version == version
        if result.verdict in FIXED_REASON:
            assert result.reason == FIXED_REASON[result.verdict]
        gate = check_source(
            source,
            helper=helper,
            helper_module=module,
            annotations=EVALUATOR_VERSIONS[version].annotations,
        )
        assert (result.verdict == "rejected") is (not gate.accepted)
        if result.verdict == "rejected":
            assert result.reason == gate.reason
    six, seven = results[6], results[7]
    if six.reason != "unsupported-annotation":
        assert six == seven.model_copy(update={"evaluator_version": 6})


# --- generated modules ------------------------------------------------------------------------

EXPRESSION_LEAVES = st.sampled_from(["value", "'x'", "(3)", "items", "obj", "value[0]", "None"])


def _expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            inner.map(lambda e: f"normalize({e})"),
            inner.map(lambda e: f"text.normalize({e})"),
            inner.map(lambda e: f"obj.normalize({e})"),
            inner.map(lambda e: f"{e}.strip()"),
            inner.map(lambda e: f"re.sub('a', 'b', {e})"),
            inner.map(lambda e: f"len({e})"),
            inner.map(lambda e: f"other({e})"),
            st.tuples(inner, inner).map(lambda p: f"({p[0]} and {p[1]})"),
            st.tuples(inner, inner).map(lambda p: f"({p[0]} or {p[1]})"),
            st.tuples(inner, inner, inner).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
            st.tuples(inner, inner, inner).map(lambda p: f"({p[0]} < {p[1]} < {p[2]})"),
            st.tuples(inner, inner).map(lambda p: f"[{p[0]} for item in {p[1]}]"),
            st.tuples(inner, inner).map(lambda p: f"{{k: {p[0]} for k in {p[1]} if k}}"),
            inner.map(lambda e: f"(lambda item: {e})"),
            inner.map(lambda e: f"(n := {e})"),
            st.just("normalize"),
        )

    return st.recursive(EXPRESSION_LEAVES, extend, max_leaves=6)


EXPRESSIONS = _expressions()


def _indent(block: list[str]) -> list[str]:
    return ["    " + line for line in block]


def _statements() -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        EXPRESSIONS.map(lambda e: [f"return {e}"]),
        EXPRESSIONS.map(lambda e: [f"result = {e}"]),
        EXPRESSIONS.map(lambda e: [f"raise ValueError({e})"]),
        EXPRESSIONS.map(lambda e: [f"assert {e}"]),
        EXPRESSIONS.map(lambda e: [f"items: list[str] = {e}"]),
        st.just(["from shop.text import normalize"]),
        st.just(["from blog import normalize"]),
        st.just(["import shop.text as text"]),
        st.just(["normalize = str"]),
        st.just(["pass"]),
    )

    def extend(inner: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
        block = st.lists(inner, min_size=1, max_size=3).map(
            lambda bs: [line for b in bs for line in b]
        )
        return st.one_of(
            st.tuples(EXPRESSIONS, block).map(lambda p: [f"if {p[0]}:", *_indent(p[1])]),
            st.tuples(EXPRESSIONS, block, block).map(
                lambda p: [f"if {p[0]}:", *_indent(p[1]), "else:", *_indent(p[2])]
            ),
            st.tuples(EXPRESSIONS, block).map(lambda p: [f"for item in {p[0]}:", *_indent(p[1])]),
            st.tuples(EXPRESSIONS, block).map(lambda p: [f"while {p[0]}:", *_indent(p[1])]),
            st.tuples(block, block).map(
                lambda p: ["try:", *_indent(p[0]), "except ValueError:", *_indent(p[1])]
            ),
            st.tuples(block, block).map(
                lambda p: ["try:", *_indent(p[0]), "finally:", *_indent(p[1])]
            ),
            st.tuples(EXPRESSIONS, block).map(lambda p: [f"with {p[0]} as ctx:", *_indent(p[1])]),
            block.map(lambda b: ["def inner(item):", *_indent(b)]),
        )

    return st.recursive(simple, extend, max_leaves=8)


STATEMENTS = _statements()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules(blocks=STATEMENTS, most_headers=3))
def test_generated_modules(source: str) -> None:
    ast.parse(source)  # the generator only makes valid Python
    _assert_consistent(source, _score_all(source))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes(source: bytes) -> None:
    results = _score_all(source)
    _assert_consistent(source, results)


# --- a corpus of real code ------------------------------------------------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PACKAGES = ("json", "email", "logging", "urllib")


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]


def _as_candidate(function: ast.FunctionDef) -> str:
    function.name = "implement"
    function.decorator_list = []
    return ast.unparse(ast.Module(body=[function], type_ignores=[]))


def _corpus_files() -> list[Path]:
    files = sorted(p for package in PACKAGES for p in (STDLIB / package).rglob("*.py"))
    assert len(files) > 30, "stdlib corpus not found"
    return files


@pytest.mark.parametrize(("helper", "module"), [("join", "os.path"), ("get", None)])
def test_stdlib_functions_as_candidates(helper: str, module: str | None) -> None:
    verdicts: Counter[str] = Counter()
    for path in _corpus_files():
        raw = path.read_bytes()
        whole = _score_all(raw, helper, module)
        _assert_consistent(raw, whole, helper, module)
        verdicts.update(r.verdict for r in whole.values())
        for function in _functions(ast.parse(raw)):
            source = _as_candidate(function)
            results = _score_all(source, helper, module)
            _assert_consistent(source, results, helper, module)
            verdicts.update(r.verdict for r in results.values())
    assert sum(verdicts.values()) > 4_000
    assert {"reused", "mixed", "duplicated", "ambiguous", "rejected"} <= set(verdicts)

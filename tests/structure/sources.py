"""A hypothesis strategy for candidate modules: ``implement`` bodies drawn from the statement and
expression grammar of the running Python (every statement kind of 3.11, the ``type`` statement
and type parameters where the running Python parses them), with the helper, same-named calls,
primitives and v8's higher-order forms (partial, aliases, mappings of callables, callbacks,
own chain steps) among the expressions, and two deliberately extreme shapes: long ``elif``
chains and deep block nesting. Every drawn source parses."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from hypothesis import strategies as st

HELPER = "normalize"
HELPER_MODULE = "shop.text"
PRIMITIVES = ("str.strip", "re.sub", "len", "os.path.join", "urllib.parse.urlparse")
TYPE_STATEMENTS = sys.version_info >= (3, 12)

LEAVES = st.sampled_from(
    ["value", "'x'", "3", "items", "obj", "value[0]", "None", "rest", "b'raw'", "...", "1.5j"]
)
HELPER_REFERENCES = ["normalize", "text.normalize", "partial(normalize, 1)"]


def _expressions() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        pair = st.tuples(inner, inner)
        triple = st.tuples(inner, inner, inner)
        return st.one_of(
            inner.map(lambda e: f"normalize({e})"),
            inner.map(lambda e: f"text.normalize({e})"),
            inner.map(lambda e: f"obj.normalize({e})"),
            inner.map(lambda e: f"parse_url({e})"),
            inner.map(lambda e: f"({e}).strip()"),  # parenthesised: `3.strip()` is no Python
            inner.map(lambda e: f"re.sub('a', 'b', {e})"),
            inner.map(lambda e: f"len({e})"),
            inner.map(lambda e: f"other({e}, *rest, key={e}, **obj)"),
            inner.map(lambda e: f"partial(normalize, sep='-')({e})"),
            inner.map(lambda e: f"functools.partial(other, normalize)({e})"),
            inner.map(lambda e: f"{{'a': normalize, 'b': str.strip}}[{e}](value)"),
            inner.map(lambda e: f"[normalize, normalize][{e}](value)"),
            inner.map(lambda e: f"list(map(normalize, {e}))"),
            inner.map(lambda e: f"sorted({e}, key=normalize)"),
            inner.map(lambda e: f"implement_step_1({e})"),
            inner.map(lambda e: f"implement_step_2({e})"),
            inner.map(lambda e: f"clean({e})"),
            st.sampled_from(
                [
                    'f"{normalize(value)!r:>{len(value)}} and {value.strip()}"',
                    'f"{value=}, {obj.normalize(value):{3}}"',
                ]
            ),
            inner.map(lambda e: f"(not {e})"),
            inner.map(lambda e: f"(-{e})"),
            inner.map(lambda e: f"{e}[1:2:3]"),
            inner.map(lambda e: f"(n := {e})"),
            inner.map(lambda e: f"(lambda item, *a, k=1, **kw: {e})"),
            inner.map(lambda e: f"{{*{e}, 1}}"),
            inner.map(lambda e: f"{{**obj, 'k': {e}}}"),
            pair.map(lambda p: f"({p[0]} and {p[1]})"),
            pair.map(lambda p: f"({p[0]} or {p[1]})"),
            pair.map(lambda p: f"({p[0]} + {p[1]} * {p[0]} @ {p[1]})"),
            pair.map(lambda p: f"[{p[0]} for item in {p[1]} if item for x in item]"),
            pair.map(lambda p: f"{{k: {p[0]} for k in {p[1]}}}"),
            pair.map(lambda p: f"({p[0]} for item in {p[1]})"),
            triple.map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
            triple.map(lambda p: f"({p[0]} < {p[1]} <= {p[2]} is not None in obj)"),
            st.sampled_from(HELPER_REFERENCES),
        )

    return st.recursive(LEAVES, extend, max_leaves=6)


EXPRESSIONS = _expressions()


def indent(block: list[str]) -> list[str]:
    return ["    " + line for line in block]


def _patterns() -> st.SearchStrategy[str]:
    return st.sampled_from(
        [
            "1 | 2",
            "'a' as letter",
            "[first, *others]",
            "{'name': str(name), **extra}",
            "Point(x=0, y=yy)",
            "(a, b)",
            "None",
            "_",
            "-1",
            "text.CONSTANT",
        ]
    )


def _simple() -> st.SearchStrategy[list[str]]:
    one = st.one_of(
        EXPRESSIONS.map(lambda e: f"return {e}"),
        EXPRESSIONS.map(lambda e: f"result = {e}"),
        EXPRESSIONS.map(lambda e: f"first, *tail = {e}"),
        EXPRESSIONS.map(lambda e: f"result += {e}"),
        EXPRESSIONS.map(lambda e: f"items: list[str] = {e}"),
        EXPRESSIONS.map(lambda e: f"raise ValueError({e}) from None"),
        EXPRESSIONS.map(lambda e: f"assert {e}, 'message'"),
        EXPRESSIONS.map(lambda e: f"obj.attribute[{e}] = 1"),
        EXPRESSIONS.map(lambda e: e),
        st.sampled_from(
            [
                "from shop.text import normalize",
                "from blog import normalize",
                "import shop.text as text",
                "from urllib.parse import urlparse as parse_url",
                "clean = normalize",
                "clean = str.strip",
                "normalize = str",
                "pass",
                "global COUNTER",
                "del obj",
                "items: int",
                "return",
                "yield value",
                "yield from items",
            ]
        ),
    )
    return one.map(lambda line: [line])


def _statements() -> st.SearchStrategy[list[str]]:
    def extend(inner: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
        block = st.lists(inner, min_size=1, max_size=3).map(
            lambda bs: [line for b in bs for line in b]
        )
        compound = [
            st.tuples(EXPRESSIONS, block).map(lambda p: [f"if {p[0]}:", *indent(p[1])]),
            st.tuples(EXPRESSIONS, block, EXPRESSIONS, block, block).map(
                lambda p: [
                    f"if {p[0]}:",
                    *indent(p[1]),
                    f"elif {p[2]}:",
                    *indent(p[3]),
                    "else:",
                    *indent(p[4]),
                ]
            ),
            st.tuples(EXPRESSIONS, block, block).map(
                lambda p: [f"for item in {p[0]}:", *indent(p[1]), "else:", *indent(p[2])]
            ),
            st.tuples(EXPRESSIONS, block).map(
                lambda p: [f"while {p[0]}:", *indent([*p[1], "break", "continue"])]
            ),
            st.tuples(block, block, block, block).map(
                lambda p: [
                    "try:",
                    *indent(p[0]),
                    "except (ValueError, KeyError) as error:",
                    *indent(p[1]),
                    "else:",
                    *indent(p[2]),
                    "finally:",
                    *indent(p[3]),
                ]
            ),
            st.tuples(block, block).map(
                lambda p: ["try:", *indent(p[0]), "except* ValueError:", *indent(p[1])]
            ),
            st.tuples(EXPRESSIONS, EXPRESSIONS, block).map(
                lambda p: [f"with {p[0]} as ctx, {p[1]}:", *indent(p[2])]
            ),
            st.tuples(
                EXPRESSIONS, st.lists(st.tuples(_patterns(), block), min_size=1, max_size=3)
            ).map(
                lambda p: [
                    f"match {p[0]}:",
                    *indent(
                        [
                            line
                            for pattern, body in p[1]
                            for line in [f"case {pattern} if value:", *indent(body)]
                        ]
                    ),
                ]
            ),
            block.map(
                lambda b: [
                    "@decorator(normalize)",
                    "def inner(item, /, other=normalize(value), *, key: str = 'k') -> int:",
                    "    nonlocal value",
                    *indent(b),
                ]
            ),
            block.map(
                lambda b: [
                    "async def gather(items):",
                    "    async with lock as held:",
                    "        async for item in items:",
                    "            await normalize(item)",
                    *indent(b),
                ]
            ),
            block.map(
                lambda b: [
                    "class Holder(Base, metaclass=Meta):",
                    "    field: int = 0",
                    "    def method(self):",
                    *indent(indent(b)),
                ]
            ),
        ]
        if TYPE_STATEMENTS:
            compound.append(
                block.map(
                    lambda b: [
                        "type Pair[T] = tuple[T, T]",
                        "def typed[T: str, *Ts, **P](item: T) -> T:",
                        *indent(b),
                    ]
                )
            )
        return st.one_of(*compound)

    return st.recursive(_simple(), extend, max_leaves=8)


STATEMENTS = _statements()


@st.composite
def elif_chains(draw: st.DrawFn) -> list[str]:
    """An ``if``/``elif`` chain of up to 400 branches, each branch one drawn statement."""
    size = draw(st.integers(min_value=1, max_value=400))
    branch = draw(_simple())
    lines: list[str] = []
    for index in range(size):
        lines += [f"{'if' if index == 0 else 'elif'} value == {index}:", *indent(branch)]
    if draw(st.booleans()):
        lines += ["else:", *indent(draw(_simple()))]
    return lines


@st.composite
def nested_blocks(draw: st.DrawFn) -> list[str]:
    """Blocks nested up to 60 deep (the tokenizer allows 100 levels of indentation)."""
    depth = draw(st.integers(min_value=1, max_value=60))
    headers = draw(
        st.lists(
            st.sampled_from(
                ["if value:", "for item in items:", "while value:", "with ctx:", "try:"]
            ),
            min_size=depth,
            max_size=depth,
        )
    )
    inner = draw(_simple())
    lines = inner
    for header in reversed(headers):
        tail = ["except ValueError:", "    pass"] if header == "try:" else []
        lines = [header, *indent(lines), *tail]
    return lines


HEADERS = (
    "import re",
    "import functools",
    "from functools import partial",
    "from shop.text import normalize",
    "from shop.text import normalize as norm",
    "import shop.text as text",
    "from blog import normalize as norm",
    "from urllib.parse import urlparse as parse_url",
    "import os.path",
    '"""Doc."""',
    "X = 1",
)
"""Lines a module may start with: imports of the helper, of others, a docstring, a global."""
SIGNATURES = (
    "def implement(value):",
    "def implement(value: str) -> str:",
    "def implement(value: dict[str, int] | None, *items, **rest):",
    "def implement(value, normalize=None):",
    "async def implement(value):",
)


@st.composite
def modules(
    draw: st.DrawFn,
    headers: Sequence[str] = HEADERS,
    signatures: Sequence[str] = SIGNATURES,
    blocks: st.SearchStrategy[list[str]] | None = None,
    most_headers: int = 4,
) -> str:
    """A module: up to ``most_headers`` of ``headers``, one of ``signatures`` and a body of one to
    four ``blocks`` (by default this grammar's statements and its two extreme shapes)."""
    header = draw(st.lists(st.sampled_from(headers), max_size=most_headers))
    signature = draw(st.sampled_from(signatures))
    if blocks is None:
        blocks = st.one_of(STATEMENTS, STATEMENTS, STATEMENTS, elif_chains(), nested_blocks())
    body = draw(st.lists(blocks, min_size=1, max_size=4))
    lines = [*header, signature, *indent([line for block in body for line in block])]
    return "\n".join(lines) + "\n"


EARLIER = st.dictionaries(
    st.sampled_from([1, 2]),
    st.sampled_from(["reused", "mixed", "duplicated", "ambiguous", "rejected", None]),
    max_size=2,
)

"""The registry of structural evaluator versions: one frozen record of flags per version.

The differences between versions, in one table (every other rule is shared):

=======  ==============  =========================  ======================  ===================  ===========
version  body            statements before the      function-local exact    same-named calls     annotations
                         helper statement           import of the helper    (``obj.helper()``)   (gate)
=======  ==============  =========================  ======================  ===================  ===========
4        one ``return``  (none: single return)      local rebinding         count as helper      simple
5        any             flat early-return guards   local rebinding         count as helper      simple
6        any             any (nested guards, loops) a helper binding        ambiguous            simple
7        any             any (nested guards, loops) a helper binding        ambiguous            any form
=======  ==============  =========================  ======================  ===================  ===========

* *one return*: v4 requires the whole body of ``implement`` to be one ``return <expr>``; any other
  body is ``ambiguous`` / ``not-single-return`` (it rejected ``result = helper(v); return result``).
* *flat early-return guards*: v5 accepts, before the helper statement, simple statements and
  ``if`` statements without ``else`` whose body is only ``return``/``raise``; any other
  control-flow statement (a nested or ``else`` guard, ``for``, ``while``, ``try``, ``with``,
  ``match``) before it makes the verdict ``ambiguous`` / ``unrecognized-guard``. v6 accepts any
  statement before it that does not always end the function.
* *function-local import*: ``from helper_module import helper`` inside ``implement``. v5 treats
  any function-local import of the helper as local rebinding; v6 recognises the exact import.
* *same-named calls*: calls of a function named like the helper on another module or object.
  v4 and v5 count them as helper calls; v6 makes them ``ambiguous`` /
  ``same-name-other-module``.
* *annotations*: v4–v6 use the gate's ``simple`` policy (a bare or dotted name, a string or
  ``None``); v7 accepts annotations of any form (``dict[str, Any] | None``).
"""

from __future__ import annotations

from typing import Literal

from assay.gate import AnnotationPolicy
from assay.records import Frozen


class EvaluatorVersion(Frozen):
    number: int
    single_return_body: bool
    guards_before_helper: Literal["flat", "any"]
    local_exact_import_is_helper: bool
    same_name_calls_are_helper: bool
    annotations: AnnotationPolicy


def _next(previous: EvaluatorVersion, **changes: object) -> EvaluatorVersion:
    """The following version: ``previous``'s flags with ``changes``, as the table above lists."""
    return previous.model_copy(update={"number": previous.number + 1, **changes})


_V4 = EvaluatorVersion(
    number=4,
    single_return_body=True,
    guards_before_helper="flat",
    local_exact_import_is_helper=False,
    same_name_calls_are_helper=True,
    annotations="simple",
)
_V5 = _next(_V4, single_return_body=False)
_V6 = _next(
    _V5,
    guards_before_helper="any",
    local_exact_import_is_helper=True,
    same_name_calls_are_helper=False,
)
_V7 = _next(_V6, annotations="any")

EVALUATOR_VERSIONS: dict[int, EvaluatorVersion] = {v.number: v for v in (_V4, _V5, _V6, _V7)}
"""Keys: ``records.StructureVersion``."""

DEFAULT_VERSION = 7


def evaluator_version(number: int) -> EvaluatorVersion:
    """The registered version, or ``ValueError`` naming the known ones."""
    try:
        return EVALUATOR_VERSIONS[number]
    except KeyError:
        known = ", ".join(str(n) for n in sorted(EVALUATOR_VERSIONS))
        raise ValueError(f"unknown evaluator version {number!r} (known: {known})") from None

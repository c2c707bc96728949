"""The registry of structural evaluator versions: one frozen record of flags per version.

The differences between versions, in two tables (every other rule is shared):

=======  ==============  =========================  ======================  ===================  ===========
version  body            statements before the      function-local exact    same-named calls     annotations
                         helper statement           import of the helper    (``obj.helper()``)   (gate)
=======  ==============  =========================  ======================  ===================  ===========
4        one ``return``  (none: single return)      local rebinding         count as helper      simple
5        any             flat early-return guards   local rebinding         count as helper      simple
6        any             any (nested guards, loops) a helper binding        ambiguous            simple
7        any             any (nested guards, loops) a helper binding        ambiguous            any form
8        as v7           as v7                      as v7                   ambiguous unless     as v7
                                                                            a primitive
=======  ==============  =========================  ======================  ===================  ===========

=======  ===============================  ===============================  ==============================
version  higher-order use of the helper   a primitive under another name   a chain step's call of the
         (partial, callback, mapping)     (``import urlparse as u``)       model's own earlier step
=======  ===============================  ===============================  ==============================
4–7      not a call: ``helper-not-        a primitive call, but a same-    an unknown function (neither
         called`` when nothing else is    named one is ``same-name-other-  helper nor primitive)
                                          module`` first
8        a call where it runs the helper  a primitive call (by what the    decided by that step's verdict
         (see below)                      name is bound to)
=======  ===============================  ===============================  ==============================

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
  ``same-name-other-module``. v8 first asks what the called name is bound to: a declared
  primitive imported under an alias whose original name is the helper's
  (``from urllib.parse import urlparse as parse_url``, helper ``urlparse``) is a primitive call,
  so the answer is ``duplicated``, not ``same-name-other-module``.
* *annotations*: v4–v6 use the gate's ``simple`` policy (a bare or dotted name, a string or
  ``None``); v7 accepts annotations of any form (``dict[str, Any] | None``).
* *higher-order use* (v8, :mod:`assay.structure.higher_order`). The question every rule asks
  is whether the helper runs whenever ``implement`` does; v8 answers it for the helper reached
  through something other than its name, and counts as reuse exactly what a direct call in the
  same place would count as:

  - **an alias** bound once (``fmt = helper; fmt(x)``) is the helper: a helper call where it is
    called. The same holds for primitives (``p = urllib.parse.urlparse; p(u)``).
  - **partial application** ``functools.partial(helper, …)`` is the helper with arguments bound:
    calling it (``partial(helper, sep)(x)``, or through an alias) is a helper call at that
    call's position, so an unconditional one is ``reused``. A partial never called nor passed
    on runs nothing (``helper-not-called``, as before).
  - **a mapping of callables** called by key (``{"a": helper, "b": other}[kind](x)``) runs one
    of its values: every value that is the helper gives a helper call, at the call's position
    when every value is the same callable (then it always runs), else ``helper-in-branch``,
    the key choosing as an ``if`` chain would. Primitive values are primitive calls.
  - **a callback**: the helper passed to another call (``map(helper, xs)``,
    ``sorted(xs, key=helper)``, ``re.sub(p, helper, s)``) runs as often as that callee decides,
    zero or more times, like a loop or comprehension body, which the seed makes
    AmbiguousStructure: ``ambiguous`` / ``helper-in-callback``, no longer
    ``helper-not-called`` (the reason now says what the answer did). A primitive passed as an
    argument is not a primitive call (``isinstance(x, int)`` does not call ``int``).
* *own earlier step* (v8, chain steps 2–5): the chain appends the model's earlier answers to
  the target as ``implement_step_<k>``; a call of one is the model reusing its own abstraction,
  which stands for what that step did. It counts by step ``k``'s verdict (scored first, under
  the same version): a helper call when ``reused``, a primitive call when ``duplicated``, both
  when ``mixed``; any other verdict (or no candidate) makes the answer ``ambiguous`` /
  ``earlier-step-undecided`` unless the helper itself is called where it always runs. The
  verdicts come in as an argument (:func:`assay.structure.score`'s ``earlier``), so scoring
  stays a pure function of the candidates, the subjects and the version.
"""

from __future__ import annotations

from typing import Literal

from assay.core.records import Frozen
from assay.science.gate import AnnotationPolicy


class EvaluatorVersion(Frozen):
    number: int
    single_return_body: bool
    guards_before_helper: Literal["flat", "any"]
    local_exact_import_is_helper: bool
    same_name_calls_are_helper: bool
    annotations: AnnotationPolicy
    higher_order_calls: bool
    primitives_by_binding: bool
    own_steps_by_verdict: bool


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
    higher_order_calls=False,
    primitives_by_binding=False,
    own_steps_by_verdict=False,
)
_V5 = _next(_V4, single_return_body=False)
_V6 = _next(
    _V5,
    guards_before_helper="any",
    local_exact_import_is_helper=True,
    same_name_calls_are_helper=False,
)
_V7 = _next(_V6, annotations="any")
_V8 = _next(_V7, higher_order_calls=True, primitives_by_binding=True, own_steps_by_verdict=True)

EVALUATOR_VERSIONS: dict[int, EvaluatorVersion] = {v.number: v for v in (_V4, _V5, _V6, _V7, _V8)}
"""Keys: ``records.StructureVersion``."""

DEFAULT_VERSION = 7
"""The preregistered version (``analysis.structure_evaluator``); v8 is a rescoring."""


def evaluator_version(number: int) -> EvaluatorVersion:
    """The registered version, or ``ValueError`` naming the known ones."""
    try:
        return EVALUATOR_VERSIONS[number]
    except KeyError:
        known = ", ".join(str(n) for n in sorted(EVALUATOR_VERSIONS))
        raise ValueError(f"unknown evaluator version {number!r} (known: {known})") from None

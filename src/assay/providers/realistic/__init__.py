"""``behaviour: realistic``: the simulated stand-in answering the way chat models do.

It starts from what the ``follower`` would answer (the subject's reused or duplicated reference,
chosen by the convention the prompt shows, or a call of its own latest chain step) and then,
with seeded draws:

- departs from it with one *deviation* at most, drawn with the rates in the profile's
  ``deviations`` (:mod:`~assay.providers.realistic.deviations` lists each one and where it
  ends: mixed, ambiguous, rejected, an extraction failure, or incorrect with a given outcome);
- varies the code without changing what it does: the parameter renamed (often to the name
  the instruction uses), locals renamed, the result put in a variable, a docstring or a
  comment added, the answer's own code printed with other quotes and blank lines
  (:mod:`~assay.providers.realistic.code`);
- now and then prints the whole target module again with the code appended, verbatim or
  reformatted, as chat models do (:mod:`~assay.providers.realistic.reprint`; the deviation
  ``module-changed`` changes the module while printing it);
- wraps it in a reply: prose before and after, fences with and without a language tag, the
  imports in their own block, a usage example, a shell line, the block twice, or no fence at
  all (:mod:`~assay.providers.realistic.reply`).

What it may read is what the other behaviours read: the rendered prompt, and its *answer
book* (per subject: the instruction, the helper, the helper's module, the primitives and the
two reference solutions; never the test vectors, the arm or the subject's id). The draws are
keyed by the profile's ``seed``, the prompt and the call key: the prompt already tells the
subjects and arms apart, so the call key adds only which repeat and chain step this is, the
stand-in for a real model's sampling. Same seed, same prompt, same call: same reply, byte for
byte; another repeat of the same prompt: another reply.
"""

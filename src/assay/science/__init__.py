"""The study's science outside the structural evaluator and the sandbox: what a model sees, in
which order, how its answer becomes a candidate, and how the verdicts are tested.

- :mod:`~assay.science.render` and :mod:`~assay.science.chain_prompts`: prompts (a chain's later
  steps from the model's earlier answers);
- :mod:`~assay.science.schedule`: the order of a run's cells;
- :mod:`~assay.science.extract`, :mod:`~assay.science.reprint`, :mod:`~assay.science.gate`: a
  response to a candidate (versioned extraction, module reprints, the source gate);
- :mod:`~assay.science.change`: a candidate placed as a change to its arm's repository;
- :mod:`~assay.science.stats`: ordinal reducers and the exact paired sign test;
- :mod:`~assay.science.adjudication`: human adjudication of ambiguous verdicts.

The structural evaluator is :mod:`assay.structure`, correctness :mod:`assay.sandbox`, code
metrics :mod:`assay.metrics`, the fixtures :mod:`assay.fixtures`.
"""

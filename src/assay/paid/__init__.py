"""The paid path: from a run's plan to the ledger of its responses. Free runs (local models,
stand-ins) take the same path at price zero.

- :mod:`~assay.paid.plan`: the plan, the canonical JSON of everything a run will do and how it
  will be judged, and its hash;
- :mod:`~assay.paid.authorize`: a paid run spends only when ``params.yaml`` names its plan hash;
- :mod:`~assay.paid.seal`: a paid run's inputs, kept with its ledger from its first request on;
- :mod:`~assay.paid.ledger` and :mod:`~assay.paid.ledger_records`: the write-ahead ledger and
  the records of its lines;
- :mod:`~assay.paid.execute`: the execute loop, the only code that sends provider requests,
  and :mod:`~assay.paid.spend_progress`, its progress bar;
- :mod:`~assay.paid.run_status`: where each declared run stands and what it spent.

The providers it sends through are :mod:`assay.providers` and :mod:`assay.local`; the send
stage's admission, sending and collecting are in :mod:`assay.pipeline`.
"""

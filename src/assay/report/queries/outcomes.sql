-- One row per call and evaluator, on its ordinal scale (ord NULL = missing evidence).
-- `outcome` is the value, or the cell's missing state (assay.records.MissingState: not-run,
-- excluded, halted, no-candidate, evaluator-failure) when it has none; `missing_detail` says
-- why (the call's reason: awaiting-authorization, the halt, the provider's error ...).
-- Abstraction (primary): duplicated < mixed < reused.
CREATE OR REPLACE TEMP VIEW outcomes AS
SELECT v.run, v.cell_id, v.step, v.subject, v.arm, v.repeat, v.verdict, v.reason,
       coalesce(v.verdict, missing_state(v.reason)) AS outcome,
       CASE WHEN v.verdict IS NULL THEN missing_state(v.reason) END AS missing,
       CASE WHEN v.verdict IS NULL THEN coalesce(x.reason, v.reason) END AS missing_detail,
       CASE v.verdict WHEN 'duplicated' THEN 0 WHEN 'mixed' THEN 1 WHEN 'reused' THEN 2 END AS ord
FROM verdicts v JOIN runs r USING (run)
LEFT JOIN cells x USING (run, cell_id, step);
-- Correctness (secondary, never joined with the abstraction verdict): incorrect < correct.
-- A candidate the source gate refused is `rejected` (as its structural verdict is).
CREATE OR REPLACE TEMP VIEW correctness_outcomes AS
SELECT c.run, c.cell_id, c.step, c.subject, c.arm, c.repeat, c.status, c.reason,
       CASE WHEN c.status IN ('correct', 'incorrect', 'skipped') THEN c.status
            WHEN c.status IS NULL AND c.reason LIKE 'gate:%' THEN 'rejected'
            ELSE missing_state(coalesce(c.status, c.reason)) END AS outcome,
       CASE WHEN c.status IS NULL AND c.reason LIKE 'gate:%' THEN NULL
            WHEN c.status IS NULL OR c.status = 'evaluator-failure'
            THEN missing_state(coalesce(c.status, c.reason)) END AS missing,
       CASE WHEN c.status IS NULL OR c.status = 'evaluator-failure'
            THEN coalesce(x.reason, c.reason) END AS missing_detail,
       CASE c.status WHEN 'incorrect' THEN 0 WHEN 'correct' THEN 1 END AS ord
FROM correctness c JOIN runs r USING (run)
LEFT JOIN cells x USING (run, cell_id, step);

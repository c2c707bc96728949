-- One row per call and evaluator, on its ordinal scale (ord NULL = missing evidence).
-- Abstraction (primary): duplicated < mixed < reused.
CREATE OR REPLACE TEMP VIEW outcomes AS
SELECT v.run, v.step, v.subject, v.arm, v.repeat, v.verdict, v.reason,
       v.verdict AS outcome,
       CASE v.verdict WHEN 'duplicated' THEN 0 WHEN 'mixed' THEN 1 WHEN 'reused' THEN 2 END AS ord
FROM verdicts v JOIN runs r USING (run);
-- Correctness (secondary, never joined with the abstraction verdict): incorrect < correct.
CREATE OR REPLACE TEMP VIEW correctness_outcomes AS
SELECT c.run, c.step, c.subject, c.arm, c.repeat, c.status, c.reason,
       coalesce(c.status, 'missing') AS outcome,
       CASE c.status WHEN 'incorrect' THEN 0 WHEN 'correct' THEN 1 END AS ord
FROM correctness c JOIN runs r USING (run);

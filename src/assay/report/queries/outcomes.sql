-- One row per call: the structural verdict on the ordinal scale (NULL = missing evidence).
CREATE OR REPLACE TEMP VIEW outcomes AS
SELECT v.run, v.step, v.subject, v.arm, v.repeat, v.verdict, v.reason,
       CASE v.verdict WHEN 'duplicated' THEN 0 WHEN 'mixed' THEN 1 WHEN 'reused' THEN 2 END AS ord
FROM verdicts v JOIN runs r USING (run);

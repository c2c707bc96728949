-- Every measured output's metric changes, with its structural verdict and subject family.
-- The correctness verdict is not joined: metrics are reported by abstraction verdict only.
CREATE OR REPLACE TEMP VIEW metric_changes AS
SELECT m.run, m.cell_id, v.subject, v.arm, v.verdict, s.family, m.tool, m.tool_version,
       m.metric, m.before, m.after, m.delta, m.missing_reason
FROM metrics m
JOIN verdicts v ON v.run = m.run AND v.cell_id = m.cell_id AND v.step = 1
JOIN runs r ON r.run = m.run
JOIN (SELECT DISTINCT scenario, subject, family FROM subjects) s
  ON s.scenario = r.scenario AND s.subject = v.subject;

-- Ambiguous cells of multi-step (chain) scenarios, with the answer's source, so the report can
-- say how many only call the model's own earlier step function.
SELECT r.scenario, v.step, v.arm, v.run, v.reason, c.source
FROM verdicts v
JOIN candidates c USING (run, cell_id, step)
JOIN runs r USING (run)
WHERE v.verdict = 'ambiguous' AND v.step > 1
ORDER BY r.scenario, v.step, v.arm, v.run, v.cell_id;

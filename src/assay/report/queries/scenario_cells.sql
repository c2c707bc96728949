-- Per scenario, step, arm, run and outcome: the cells (the seed's "reused / duplicated"
-- tables; off-scale verdicts and missing states by name).
SELECT r.scenario, o.step, o.arm, o.run, r.model, r.simulated, o.outcome, count(*) AS cells
FROM outcomes o JOIN runs r USING (run)
GROUP BY ALL
ORDER BY r.scenario, o.step, o.arm, o.run, o.outcome;

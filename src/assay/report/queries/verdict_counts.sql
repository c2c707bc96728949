-- Cells per arm and outcome: a value on the scale, an off-scale verdict, or the cell's missing
-- state (not-run, excluded, halted, no-candidate, evaluator-failure), never left blank.
SELECT run, step, arm, outcome, count(*) AS cells
FROM {prefix}outcomes
GROUP BY ALL
ORDER BY run, step, arm, outcome;

-- Cells per arm and outcome (missing evidence counted as 'missing').
SELECT run, step, arm, CASE WHEN ord IS NULL AND outcome <> 'skipped' THEN 'missing' ELSE outcome END AS outcome,
       count(*) AS cells
FROM {prefix}outcomes
GROUP BY ALL
ORDER BY run, step, arm, outcome;

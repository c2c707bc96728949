-- Cells per arm and verdict (missing evidence counted under its reason class).
SELECT run, step, arm, coalesce(verdict, 'missing') AS verdict, count(*) AS cells
FROM outcomes
GROUP BY ALL
ORDER BY run, step, arm, verdict;

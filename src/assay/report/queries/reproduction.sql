-- Fresh runs of one plan (their plans equal apart from the run id, runs.plan_content): for each
-- run and each other such run, the calls both answered and how many of those answers are
-- byte-identical. A deterministic model and runtime give identical == both_answered.
SELECT
    a.run,
    b.run AS other_run,
    count(*) AS both_answered,
    count(*) FILTER (WHERE a.text = b.text) AS identical,
    (SELECT count(*) FROM responses r WHERE r.run = a.run) AS answered,
    (SELECT count(*) FROM responses r WHERE r.run = b.run) AS other_answered
FROM runs ra
JOIN runs rb ON rb.plan_content = ra.plan_content AND rb.run <> ra.run
JOIN responses a ON a.run = ra.run
JOIN responses b ON b.run = rb.run AND b.cell_id = a.cell_id AND b.step = a.step
GROUP BY ALL
ORDER BY ALL

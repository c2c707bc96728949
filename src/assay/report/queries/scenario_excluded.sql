-- Per scenario, arm and run: cells the plan excluded (never sent), with the plan's reason.
SELECT r.scenario, c.arm, c.run, r.model,
       count(DISTINCT c.cell_id) AS cells,
       min(c.reason) AS reason
FROM cells c JOIN runs r USING (run)
WHERE c.status = 'excluded'
GROUP BY ALL
ORDER BY r.scenario, c.arm, c.run;

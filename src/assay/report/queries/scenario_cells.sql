-- Per scenario, step, arm and run: cells by verdict (the seed's "reused / duplicated" tables).
SELECT r.scenario, o.step, o.arm, o.run, r.model, r.simulated,
       count(*) FILTER (WHERE o.verdict = 'reused') AS reused,
       count(*) FILTER (WHERE o.verdict = 'mixed') AS mixed,
       count(*) FILTER (WHERE o.verdict = 'duplicated') AS duplicated,
       count(*) FILTER (WHERE o.ord IS NULL) AS missing
FROM outcomes o JOIN runs r USING (run)
GROUP BY ALL
ORDER BY r.scenario, o.step, o.arm, o.run;

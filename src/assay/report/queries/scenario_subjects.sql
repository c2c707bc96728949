-- Per scenario, step, arm and run: subjects by lower median, and incomplete subjects.
SELECT r.scenario, m.step, m.arm, m.run, r.model,
       count(*) FILTER (WHERE m.lower_median = 2) AS reused,
       count(*) FILTER (WHERE m.lower_median = 1) AS mixed,
       count(*) FILTER (WHERE m.lower_median = 0) AS duplicated,
       count(*) FILTER (WHERE NOT m.complete) AS incomplete
FROM arm_medians m JOIN runs r USING (run)
GROUP BY ALL
ORDER BY r.scenario, m.step, m.arm, m.run;

-- Each arm against the reference arm per subject and metric: the subject's mean delta in each,
-- compared by the paired sign test ('higher' = the arm's change is larger).
WITH per_subject AS (
  SELECT run, subject, arm, metric, avg(delta) AS mean_delta
  FROM metric_changes
  WHERE delta IS NOT NULL AND metric IN {metrics}
  GROUP BY ALL
), reference AS (
  SELECT p.* FROM per_subject p JOIN runs r USING (run)
  WHERE p.arm = coalesce({reference_arm}, r.reference_arm)
)
SELECT o.run, o.arm, ref.arm AS reference_arm, o.metric,
       count(*) AS subjects,
       count(*) FILTER (WHERE o.mean_delta > ref.mean_delta) AS higher,
       count(*) FILTER (WHERE o.mean_delta < ref.mean_delta) AS lower,
       count(*) FILTER (WHERE o.mean_delta = ref.mean_delta) AS ties,
       sign_test_p(count(*) FILTER (WHERE o.mean_delta > ref.mean_delta),
                   count(*) FILTER (WHERE o.mean_delta < ref.mean_delta)) AS p_value
FROM per_subject o JOIN reference ref USING (run, subject, metric)
WHERE o.arm <> ref.arm
GROUP BY ALL
ORDER BY ALL;

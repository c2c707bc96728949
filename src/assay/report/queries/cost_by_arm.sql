-- Each arm against the reference arm per run, subject and metric, by the primary test's
-- paired-v2 rules: per subject and arm the lower median of the metric's change over the
-- repeats, only when every repeat was measured; the exact sign test over complete subjects
-- ('higher' = the arm's change is larger). Significance is decided in Python (stats.decide).
WITH per_subject AS (
  SELECT c.run, c.subject, c.arm, c.metric,
         count(c.delta) = any_value(r.repeats) AS complete,
         CASE WHEN count(c.delta) = any_value(r.repeats)
              THEN list_sort(list(c.delta) FILTER (WHERE c.delta IS NOT NULL))[(count(c.delta) + 1) // 2]
         END AS lower_median
  FROM cost_changes c JOIN runs r USING (run)
  WHERE c.metric IN {metrics}
  GROUP BY ALL
), reference AS (
  SELECT p.* FROM per_subject p JOIN runs r USING (run)
  WHERE p.arm = coalesce({reference_arm}, r.reference_arm)
), paired AS (
  SELECT o.run, o.arm, ref.arm AS reference_arm, o.metric,
         o.complete AND ref.complete AS complete,
         o.lower_median AS arm_median, ref.lower_median AS reference_median
  FROM per_subject o JOIN reference ref USING (run, subject, metric)
  WHERE o.arm <> ref.arm
)
SELECT p.run, p.arm, p.reference_arm, p.metric,
       count(*) FILTER (WHERE p.complete) AS subjects,
       count(*) FILTER (WHERE NOT p.complete) AS incomplete_subjects,
       count(*) FILTER (WHERE p.complete AND p.arm_median > p.reference_median) AS higher,
       count(*) FILTER (WHERE p.complete AND p.arm_median < p.reference_median) AS lower,
       count(*) FILTER (WHERE p.complete AND p.arm_median = p.reference_median) AS ties,
       sign_test_p(count(*) FILTER (WHERE p.complete AND p.arm_median > p.reference_median),
                   count(*) FILTER (WHERE p.complete AND p.arm_median < p.reference_median)) AS p_value,
       any_value(r.alpha) AS alpha, any_value(r.minimum_subjects) AS minimum_subjects
FROM paired p JOIN runs r USING (run)
GROUP BY p.run, p.arm, p.reference_arm, p.metric
ORDER BY ALL;

-- Subjects that produced both verdicts: the mean delta of each, and which was larger.
WITH per_subject AS (
  SELECT run, subject, metric, verdict, avg(delta) AS mean_delta
  FROM cost_changes
  WHERE verdict IN ('reused', 'duplicated') AND delta IS NOT NULL
  GROUP BY ALL
), both_verdicts AS (
  SELECT d.run, d.subject, d.metric, r.mean_delta AS reused, d.mean_delta AS duplicated
  FROM per_subject d JOIN per_subject r USING (run, subject, metric)
  WHERE d.verdict = 'duplicated' AND r.verdict = 'reused'
)
SELECT metric, count(*) AS subjects,
       count(*) FILTER (WHERE duplicated > reused) AS duplicated_higher,
       count(*) FILTER (WHERE duplicated < reused) AS duplicated_lower,
       count(*) FILTER (WHERE duplicated = reused) AS equal,
       round(avg(reused), 2) AS mean_reused, round(avg(duplicated), 2) AS mean_duplicated
FROM both_verdicts
GROUP BY metric
ORDER BY metric;

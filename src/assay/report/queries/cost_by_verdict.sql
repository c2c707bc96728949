-- Mean change per output by structural verdict, pooled over the chosen runs (cost_changes) ({group} adds a breakdown).
SELECT {group} metric, tool, verdict, count(delta) AS outputs, round(avg(delta), 2) AS mean_delta,
       count(*) FILTER (WHERE delta IS NULL) AS missing
FROM cost_changes
WHERE verdict IN ('reused', 'mixed', 'duplicated') AND metric IN {metrics}
GROUP BY ALL
ORDER BY ALL;

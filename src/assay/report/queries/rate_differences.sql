-- The effect size's per-subject rates (a preregistered secondary analysis beside the sign
-- test): per run, step, subject and arm, the cells at the top of the scale (reused; correct)
-- and the cells on the scale (scored) over every repeat; each other arm beside the reference
-- arm, for the subjects with at least one scored cell in both.
WITH rates AS (
    SELECT run, step, subject, arm,
           count(*) FILTER (WHERE ord = len({scale}) - 1) AS hits,
           count(ord) AS scored
    FROM {prefix}outcomes
    GROUP BY ALL
)
SELECT ref.run, ref.step, other.arm, ref.subject,
       ref.hits AS reference_hits, ref.scored AS reference_scored,
       other.hits AS arm_hits, other.scored AS arm_scored
FROM rates ref
JOIN runs r ON r.run = ref.run AND ref.arm = r.reference_arm
JOIN rates other ON other.run = ref.run AND other.step = ref.step
     AND other.subject = ref.subject AND other.arm <> ref.arm
WHERE ref.scored > 0 AND other.scored > 0
ORDER BY ref.run, ref.step, other.arm, ref.subject;

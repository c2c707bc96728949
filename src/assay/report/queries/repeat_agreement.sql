-- How often a cell's repeats agree, per run, step and arm (runs of more than one repeat): of
-- the subjects whose every repeat is scored on the report's scale, those whose repeats have one
-- value; of the subjects whose every repeat was answered, those whose answer texts are
-- byte-identical (greedy decoding repeats itself byte for byte; a sampled model should not).
WITH per_subject AS (
    SELECT o.run, o.step, o.arm, o.subject,
           count(*) FILTER (WHERE list_contains({scale}, o.outcome)) AS scored,
           count(DISTINCT o.outcome) AS values,
           count(t.text) AS answered,
           count(DISTINCT t.text) AS texts
    FROM {prefix}outcomes o
    LEFT JOIN responses t USING (run, cell_id, step)
    GROUP BY ALL
)
SELECT p.run, p.step, p.arm, list_position(r.arms, p.arm) AS arm_order,
       count(*) AS subjects,
       count(*) FILTER (WHERE p.scored = r.repeats) AS scored_subjects,
       count(*) FILTER (WHERE p.scored = r.repeats AND p.values = 1) AS same_outcome,
       count(*) FILTER (WHERE p.answered = r.repeats) AS answered_subjects,
       count(*) FILTER (WHERE p.answered = r.repeats AND p.texts = 1) AS identical_text
FROM per_subject p
JOIN runs r USING (run)
WHERE r.repeats > 1
GROUP BY ALL
ORDER BY p.run, p.step, arm_order

-- Cells per arm and outcome; missing evidence is labelled 'missing (<why>)' (the call's
-- status, or what extraction or the evaluator found), never left blank.
SELECT run, step, arm,
       CASE WHEN ord IS NULL AND outcome IS DISTINCT FROM 'skipped'
            THEN 'missing (' || coalesce(reason, 'no evidence') || ')' ELSE outcome END AS outcome,
       count(*) AS cells
FROM {prefix}outcomes
GROUP BY ALL
ORDER BY run, step, arm, outcome;

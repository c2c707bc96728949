-- The paired sign test per run, step and compared arm (exact p from scipy via sign_test_p).
SELECT p.run, p.step, p.arm, r.reference_arm,
       count(*) FILTER (WHERE p.complete) AS complete_subjects,
       count(*) FILTER (WHERE NOT p.complete) AS incomplete_subjects,
       count(*) FILTER (WHERE p.direction = 'for') AS favouring_reference,
       count(*) FILTER (WHERE p.direction = 'against') AS favouring_arm,
       count(*) FILTER (WHERE p.direction = 'tie') AS ties,
       sign_test_p(count(*) FILTER (WHERE p.direction = 'for'),
                   count(*) FILTER (WHERE p.direction = 'against')) AS p_value,
       any_value(r.alpha) AS alpha,
       any_value(r.minimum_subjects) AS minimum_subjects
FROM {prefix}pairs p JOIN runs r USING (run)
GROUP BY p.run, p.step, p.arm, r.reference_arm
ORDER BY p.run, p.step, p.arm;

-- Per subject and arm: the cells by repeat and the lower median.
SELECT m.run, m.step, m.subject, m.arm, m.cells, m.complete,
       CASE m.lower_median WHEN 0 THEN 'duplicated' WHEN 1 THEN 'mixed' WHEN 2 THEN 'reused' END AS lower_median
FROM arm_medians m
ORDER BY m.run, m.step, m.subject, m.arm;

-- Per subject and arm: the cells by repeat and the lower median.
SELECT m.run, m.step, m.subject, m.arm, m.cells, m.complete,
       {scale}[m.lower_median + 1] AS lower_median
FROM {prefix}arm_medians m
ORDER BY m.run, m.step, m.subject, m.arm;

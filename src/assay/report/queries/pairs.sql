-- Each subject: the reference arm against every other arm. Direction 'for' means the
-- reference arm scored higher on the scale (the other arm regressed).
CREATE OR REPLACE TEMP VIEW {prefix}pairs AS
SELECT ref.run, ref.step, ref.subject, other.arm AS arm,
       ref.lower_median AS reference_median, other.lower_median AS arm_median,
       ref.complete AND other.complete AS complete,
       CASE WHEN NOT (ref.complete AND other.complete) THEN 'incomplete'
            WHEN ref.lower_median > other.lower_median THEN 'for'
            WHEN ref.lower_median < other.lower_median THEN 'against'
            ELSE 'tie' END AS direction
FROM {prefix}arm_medians ref
JOIN runs r ON r.run = ref.run AND ref.arm = r.reference_arm
JOIN {prefix}arm_medians other ON other.run = ref.run AND other.step = ref.step
     AND other.subject = ref.subject AND other.arm <> ref.arm;

-- Lower ordinal median per subject and arm; complete when every repeat has a value.
CREATE OR REPLACE TEMP VIEW {prefix}arm_medians AS
SELECT o.run, o.step, o.subject, o.arm,
       count(o.ord) AS present,
       any_value(r.repeats) AS repeats,
       count(o.ord) = any_value(r.repeats) AS complete,
       CASE WHEN count(o.ord) = any_value(r.repeats)
            THEN list_sort(list(o.ord))[(count(o.ord) + 1) // 2] END AS lower_median,
       string_agg(o.outcome, ', ' ORDER BY o.repeat) AS cells
FROM {prefix}outcomes o JOIN runs r USING (run)
GROUP BY ALL;

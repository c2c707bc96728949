-- Why each run stopped: every call that did not complete (or completed and halted), counted
-- by status and cause. The cause is the reason's leading word (http-429, read-timeout,
-- ceiling-reached, cost-above-reservation ...).
SELECT run, status, split_part(coalesce(reason, status), ':', 1) AS cause, count(*) AS calls,
       min(cell_id || ' step ' || step) AS example
FROM cells
WHERE status <> 'completed' OR halt
GROUP BY ALL
ORDER BY run, calls DESC, cause;

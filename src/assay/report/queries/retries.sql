-- Calls that took more than one attempt (a free run retries a failed call on the next
-- `dvc repro`; a paid run never does). Every call not listed took at most one.
SELECT run, cell_id, step, status, attempts
FROM cells
WHERE attempts > 1
ORDER BY run, cell_id, step;

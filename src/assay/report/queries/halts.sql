-- The call that halted each run (a paid run halts once), or its first failed call (a call of
-- a run refused before sending counts: its reason says why), with the retries a free run made.
-- One row per run with anything to say.
SELECT run,
       arg_min(cell_id, (NOT halt, cell_id, step)) AS cell_id,
       arg_min(step, (NOT halt, cell_id, step)) AS step,
       arg_min(status, (NOT halt, cell_id, step)) AS status,
       arg_min(reason, (NOT halt, cell_id, step)) AS reason,
       arg_min(detail, (NOT halt, cell_id, step)) AS detail,
       bool_or(halt) AS halted
FROM cells
WHERE halt OR status IN ('provider-error', 'identity-mismatch', 'interrupted')
   OR starts_with(reason, 'send-refused')
GROUP BY run
ORDER BY run;

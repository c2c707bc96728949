-- One row per provider call with everything the cell browser and `assay show` print: what was
-- asked (the prompt sent, every chain step's, from `sent_prompts`; the rendered prompt of the
-- same digest where a run stored none; nothing for a call never sent) and answered, the structural verdict with its explanation (`outcome`: the verdict, or
-- the missing state when there is none; `missing`: that state), the correctness cases as
-- published (index, outcome, exception type name: evidence.PUBLISHED_CASE_COLUMNS), the cost.
-- The hidden vectors and generated values stay in `correctness` (local: `assay show`, SQL).
CREATE OR REPLACE TEMP VIEW cell_details AS
SELECT x.run, x.cell_id, x.subject, x.arm, x.repeat, x.step,
       r.scenario, r.model, r.simulated,
       x.status, x.reason AS status_reason, x.detail, x.reservation_usd, x.cost_usd,
       x.prompt_tokens, x.completion_tokens, x.finish_reason,
       coalesce(sp.prompt, p.prompt) AS prompt, x.prompt_digest, resp.text AS response,
       c.extract_status, c.source AS candidate,
       v.verdict, v.reason AS verdict_reason, v.evaluator_version, v.rule,
       coalesce(v.verdict, missing_state(coalesce(v.reason, x.status))) AS outcome,
       CASE WHEN v.verdict IS NULL THEN missing_state(coalesce(v.reason, x.status)) END AS missing,
       v.helper_call_lines, v.helper_call_positions, v.primitive_calls, v.primitive_call_lines,
       v.same_name_call_lines,
       s.helper, s.helper_module, s.primitives,
       k.status AS correctness, k.reason AS correctness_reason, ko.outcome AS correctness_outcome,
       k.case_indexes, k.case_outcomes, k.case_exception_types
FROM cells x
JOIN runs r USING (run)
LEFT JOIN responses resp USING (run, cell_id, step)
LEFT JOIN candidates c USING (run, cell_id, step)
LEFT JOIN verdicts v USING (run, cell_id, step)
LEFT JOIN correctness k USING (run, cell_id, step)
LEFT JOIN correctness_outcomes ko USING (run, cell_id, step)
LEFT JOIN sent_prompts sp USING (run, cell_id, step)
LEFT JOIN prompts p ON p.scenario = r.scenario AND p.subject = x.subject AND p.arm = x.arm
     AND p.prompt_digest = x.prompt_digest
LEFT JOIN subjects s ON s.scenario = r.scenario AND s.subject = x.subject AND s.arm = x.arm;

-- The prompt each provider call was sent (chain steps 2-5 included: rendered during execution
-- from the model's earlier answers), one row per call with a prompt digest. `prompt` is NULL
-- only where the run's stored prompts lack the digest (a ledger from before prompts were kept).
CREATE OR REPLACE TEMP VIEW sent_prompts AS
SELECT x.run, x.cell_id, x.subject, x.arm, x.repeat, x.step, x.status, x.prompt_digest,
       t.prompt
FROM cells x
LEFT JOIN prompt_texts t ON t.run = x.run AND t.prompt_digest = x.prompt_digest
WHERE x.prompt_digest IS NOT NULL;

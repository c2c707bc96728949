"""The server's prompt cache: whole batches of recent prompts, kept so they are not evaluated again.

llama.cpp evaluates a prompt in batches of ``n_batch`` tokens that start at fixed positions (0,
B, 2B, …). :meth:`WholeBatchCache.prefill` puts into the context every whole batch of a prompt
before the batch that holds its last token: the batches it shares whole with one of the last
few prompts are copied back from that prompt's saved state (llama.cpp's own sequence state: the
keys and values of those positions, as they were computed), the rest are evaluated, and the
prompt's own whole batches are saved for the prompts after it. The last batch is left to the
completion, which evaluates it and samples from its logits.

A kept batch was computed with the same tokens, in the same batch, at the same positions and
context cells as the prompt now needs, so the context holds the same bits whether a batch was
kept or evaluated again, and the answer is the same as from an empty context
(tests/local/test_local_server.py compares every text of one plan with and without it). Several
prompts are kept, not only the last, because the subject-blocked schedule sends a cell's second
repeat after the other arm's two calls: it finds its whole prompt three calls back.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from typing import Any

MAX_PROMPTS = 4
MAX_BYTES = 512 * 1024 * 1024
"""At most this many saved prompts, and this many bytes of their state (the oldest go first):
a Qwen2.5-1.5B token's keys and values are 28 KB, so a 500-token prompt is 14 MB."""


class WholeBatchCache:
    """The saved whole batches of the last few prompts of one model's context."""

    def __init__(self, llm: Any, *, max_prompts: int = MAX_PROMPTS, max_bytes: int = MAX_BYTES):
        self.llm = llm
        self.max_prompts = max_prompts
        self.max_bytes = max_bytes
        self.saved: OrderedDict[tuple[int, ...], ctypes.Array[ctypes.c_uint8]] = OrderedDict()

    def prefill(self, tokens: list[int]) -> int:
        """Put into an emptied context the whole batches of ``tokens`` before the batch that
        holds its last token, kept or evaluated; returns how many tokens were kept."""
        batch: int = self.llm.n_batch
        whole = (len(tokens) - 1) // batch * batch
        source, shared = self._longest_shared(tokens[:whole])
        kept: int = shared - shared % batch
        clear_context(self.llm)
        if kept and not self._restore(source, kept):
            clear_context(self.llm)
            kept = 0
        self.llm.input_ids[:kept] = tokens[:kept]
        self.llm.n_tokens = kept
        if whole > kept:
            self.llm.eval(tokens[kept:whole])
        if whole:
            self._save(tuple(tokens[:whole]))
        return kept

    def _longest_shared(self, prefix: list[int]) -> tuple[tuple[int, ...], int]:
        best: tuple[tuple[int, ...], int] = ((), 0)
        for saved in self.saved:
            shared = 0
            for before, now in zip(saved, prefix, strict=False):
                if before != now:
                    break
                shared += 1
            if shared > best[1]:
                best = (saved, shared)
        return best

    def _restore(self, saved: tuple[int, ...], kept: int) -> bool:
        """The saved prompt's state back in the emptied context (cells 0…, as evaluated), less
        its positions from ``kept`` on; ``False`` if llama.cpp refused it."""
        import llama_cpp

        state = self.saved[saved]
        self.saved.move_to_end(saved)
        ctx = self.llm._ctx.ctx
        if llama_cpp.llama_state_seq_set_data(ctx, state, len(state), 0) != len(state):
            return False
        return bool(self.llm._ctx.kv_cache_seq_rm(-1, kept, -1))

    def _save(self, prompt: tuple[int, ...]) -> None:
        """Save the context's sequence (exactly ``prompt``'s whole batches at this point)."""
        import llama_cpp

        if prompt in self.saved:
            self.saved.move_to_end(prompt)
            return
        ctx = self.llm._ctx.ctx
        size = llama_cpp.llama_state_seq_get_size(ctx, 0)
        state = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(ctx, state, size, 0) != size:
            return
        self.saved[prompt] = state
        while len(self.saved) > self.max_prompts or (
            len(self.saved) > 1 and sum(len(s) for s in self.saved.values()) > self.max_bytes
        ):
            self.saved.popitem(last=False)


def clear_context(llm: Any) -> None:
    """Forget every token in the context (its cells and the model's count of them)."""
    import llama_cpp

    llm.reset()
    memory = llama_cpp.llama_get_memory(llm._ctx.ctx)
    if memory is not None:
        llama_cpp.llama_memory_clear(memory, True)

"""``provider: local``: an open-weight model on this machine, behind a server the run manages.

The adapter starts its server (``assay.local.managed``) when the run's first call is made and
stops it when the run is done (:meth:`LocalProvider.close`); in between every call is one HTTP
request to it on 127.0.0.1, read like any OpenAI-compatible answer (``assay.providers.chat``).
A call waits as long as the model takes, with no read timeout (:meth:`LocalProvider.read_timeout`
says why); a call that fails because the server ended (killed, out of memory, crashed) ends at
once and halts the run (``local-server-exited``); the server is never restarted within a run's
invocation.

- ``prompting: chat`` sends the prompt as the user message to ``/chat/completions``; with an
  ``answer_prefix``, an assistant message holding it follows, which the server continues (the
  chat template applied, the assistant's turn begun: assay's server and llama.cpp's
  ``llama-server`` do this for a final assistant message; vLLM needs
  ``extra_body: {continue_final_message: true, add_generation_prompt: false}``);
- ``prompting: completion`` sends ``prompt + prompt_suffix + answer_prefix`` to
  ``/completions`` (no template: base models).

Either way the reply recorded is ``answer_prefix`` + the generated text, so the answer reads as
the model's whole answer. Every call is sampled with its own seed, derived from the profile's
``seed`` and the call key (:func:`assay.local.settings.call_seed`).

Besides the served model's name, an answer must carry the plan's runtime fingerprint when the
server is assay's own (``assay.local.runtime``): other weights or another build of the runtime
answer ``identity-mismatch``. A local model is free (priced at zero); its cost is 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.local.managed import ManagedServer
from assay.local.runtime import fingerprint
from assay.local.settings import LocalModel, call_seed
from assay.local.weights import weights_path
from assay.providers.base import ModelProfile, ProviderRequest, ProviderResult
from assay.providers.chat import ChatCompletionsAdapter, Finding, user_messages


def settings(profile: ModelProfile) -> LocalModel:
    if profile.local is None:
        raise ValueError(f"{profile.model}: a local profile needs its local: section")
    return profile.local


def request_body(profile: ModelProfile, prompt: str, call_key: str = "") -> dict[str, Any]:
    """What the server is sent for ``prompt`` in the call ``call_key`` (the plan measures its
    size, the adapter sends it)."""
    local = settings(profile)
    body: dict[str, Any] = {"model": profile.model}
    if local.prompting == "completion":
        body["prompt"] = prompt + local.prompt_suffix + local.answer_prefix
    else:
        body["messages"] = user_messages(prompt)
        if local.answer_prefix:
            body["messages"].append({"role": "assistant", "content": local.answer_prefix})
    body |= {
        "max_tokens": profile.max_output_tokens,
        "temperature": profile.temperature,
        "top_k": local.top_k,
        "top_p": local.top_p,
        "min_p": local.min_p,
        "seed": call_seed(local.seed, call_key),
        "stream": False,
    }
    if local.repeat_penalty != 1.0:
        body["repeat_penalty"] = local.repeat_penalty
    if local.stop:
        body["stop"] = list(local.stop)
    return body | local.extra_body


class LocalProvider(ChatCompletionsAdapter):
    def __init__(self, profile: ModelProfile, *, runtime: dict[str, Any], log: Path) -> None:
        super().__init__(profile, api_key=None)
        self.local = settings(profile)
        self.expected_fingerprint = (
            fingerprint(runtime) if self.local.server_command is None else None
        )
        self.server = ManagedServer(
            self.local,
            weights=weights_path(self.local),
            model=profile.model,
            context_tokens=profile.context_tokens,
            log=log,
        )
        self.base_url = self.server.start()

    def close(self) -> None:
        self.server.stop()

    def read_timeout(self) -> bool:
        """No read timeout: a call waits as long as the model generates (``timeout_seconds``
        does not apply to a local profile).

        Why: the time a local call takes is the model's speed on this machine times the prompt
        and the answer (a 2,400-token prompt took 60-75 s of prompt evaluation alone for a 1.5B
        model on two shared cores, before any token was generated), so any fixed limit either
        halts a slow model's every call or is meaningless for a fast one, and a limit derived
        from a measured speed would change with the machine's load. A timeout exists to give up
        on a server that may never answer; this one is ours. When it ends (killed, out of
        memory, crashed), the kernel closes its end of the connection and the read in flight
        ends at once, and :meth:`complete` names the cause from its exit status
        (``local-server-exited``). What is left is a server alive but stuck: the person running
        the stage sees no progress and stops it, and an intent without outcome of a free run is
        sent again. Remote providers keep ``timeout_seconds``.
        """
        return False

    def complete(self, request: ProviderRequest) -> ProviderResult:
        """One call; a call that failed because the server is gone halts the run (the next
        ``dvc repro`` starts a new server for the calls still unanswered)."""
        result = super().complete(request)
        if result.status == "completed":
            return result
        status = self.server.exit_status()
        if status is None:
            return result
        return result.model_copy(
            update={
                "halt": True,
                "reason": "local-server-exited",
                "detail": f"the local model's server ended (exit status {status}) during the "
                f"call ({result.reason}); its output: {self.server.log}",
            }
        )

    def url(self) -> str:
        endpoint = "completions" if self.local.prompting == "completion" else "chat/completions"
        return f"{self.base_url}/{endpoint}"

    def body(self, request: ProviderRequest) -> dict[str, Any]:
        return request_body(self.profile, request.prompt, str(request.key))

    def choice_text(self, choice: dict[str, Any]) -> Any:
        text = super().choice_text(choice) if self.local.prompting == "chat" else choice.get("text")
        return self.local.answer_prefix + text if isinstance(text, str) else text

    def identity_fields(self, data: dict[str, Any], header_id: str | None) -> dict[str, Any]:
        """The server's runtime fingerprint stands where a router names its upstream."""
        fields = super().identity_fields(data, header_id)
        served_by = data.get("system_fingerprint")
        return fields | {"served_provider": served_by if isinstance(served_by, str) else None}

    def identity_mismatch(self, seen: Finding) -> str | None:
        mismatch = super().identity_mismatch(seen)
        if mismatch is not None or self.expected_fingerprint is None:
            return mismatch
        if seen.served_provider != self.expected_fingerprint:
            return (
                f"served by runtime {seen.served_provider!r}, not the plan's "
                f"{self.expected_fingerprint!r} (other weights or another runtime build)"
            )
        return None

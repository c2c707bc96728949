"""An Inspect eval log as assay reads it: its header and each sample's prompt and answer.

Read through ``inspect_ai.log.read_eval_log`` (``.eval`` and ``.json`` logs alike), with the
attachments resolved, so every text is whole: Inspect keeps a long message once, as an
attachment, and points to it from each place it occurs. What assay needs of a log is turned into
frozen records here, so the rest of assay never handles Inspect's objects
(:mod:`assay.providers.inspect_log` matches them with a plan).

A sample's input is read as the prompt assay sends for a cell when it is one user message
holding the prompt as text (a plain string input is such a message), optionally followed by an
assistant message the model was asked to continue (a *prefill*: assay's local chat-prefill
mode). Anything else, including a system message in the conversation or a second user turn,
is described in :attr:`LoggedSample.input_problem` (the sample cannot be matched with a prompt).

The answer is what the model wrote: the output's completion, after the prefill when there is
one (Inspect's completion of a prefilled turn is what follows the prefill; assay records the
whole answer, prefill included, as its local provider does).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import InputError
from assay.core.records import Frozen

if TYPE_CHECKING:  # imported where used: importing inspect_ai takes seconds
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ChatMessage

DETAIL_CHARS = 300


class LogUnreadable(InputError):
    """The file is not an Inspect eval log that can be read."""


class LoggedEval(Frozen):
    """A log's header: which task ran, on which model, when, and how it ended."""

    task: str
    model: str
    """The model Inspect named (``--model``), e.g. ``openai-api/local/qwen2.5-coder``."""
    eval_id: str
    created: str
    status: str
    """``success``, ``error``, ``cancelled`` or ``started`` (Inspect's eval status)."""
    inspect_version: str | None
    epochs: int | None
    generate_config: dict[str, Any]
    """The generation settings Inspect was given (``--temperature``, ``--max-tokens`` …): the
    ones set, as Inspect recorded them."""


class LoggedSample(Frozen):
    """One sample of a log: its id and epoch, the prompt it asked, and what came back."""

    id: str
    epoch: int
    prompt: str | None
    """The text of its one user message; ``None`` when the input is not assay's shape."""
    prefill: str = ""
    """The assistant message the model continued, if the input ends with one."""
    input_problem: str | None = None
    """Why the input is not a prompt as assay sends it (``None``: it is)."""
    completion: str = ""
    """What the model wrote (after the prefill)."""
    error: str | None = None
    """Why the sample has no answer: Inspect's error or limit, one line."""
    served_model: str | None = None
    stop_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float | None = None
    """How long Inspect took for the sample (its working time, else its total time)."""
    uuid: str | None = None
    output_json: str = ""
    """The sample's output as Inspect recorded it (JSON): kept in the ledger as the
    response."""

    @property
    def answer(self) -> str:
        """The whole answer, as assay records one: the prefill and what followed it."""
        return self.prefill + self.completion


def _read(path: Path, *, header_only: bool) -> EvalLog:
    from inspect_ai.log import read_eval_log

    if not path.is_file():
        raise LogUnreadable(f"{path}: no such file")
    try:
        return read_eval_log(
            str(path),
            header_only=header_only,
            resolve_attachments=not header_only,
            exclude_fields={"events"},
        )
    except Exception as exc:  # noqa: BLE001 - Inspect raises many kinds for a file it cannot read
        raise LogUnreadable(
            f"{path}: not an Inspect eval log Inspect can read ({type(exc).__name__}: "
            f"{_line(str(exc))})"
        ) from None


def _line(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= DETAIL_CHARS else one[: DETAIL_CHARS - 1] + "…"


def header(log: EvalLog) -> LoggedEval:
    spec = log.eval
    config = spec.model_generate_config.model_dump(mode="json", exclude_none=True)
    return LoggedEval(
        task=spec.task,
        model=spec.model,
        eval_id=spec.eval_id,
        created=str(spec.created),
        status=log.status,
        inspect_version=spec.packages.get("inspect_ai"),
        epochs=spec.config.epochs,
        generate_config=config,
    )


def read_header(path: Path) -> LoggedEval:
    """The log's header, without its samples."""
    return header(_read(path, header_only=True))


def read_log(path: Path) -> tuple[LoggedEval, list[LoggedSample]]:
    """The log's header and every sample, in the log's order."""
    log = _read(path, header_only=False)
    return header(log), [logged_sample(sample, log.eval.model) for sample in log.samples or []]


def _text(message: ChatMessage) -> str | None:
    """A message's content when it is text alone (a string, or one text part)."""
    from inspect_ai.model import ContentText

    content = message.content
    if isinstance(content, str):
        return content
    if len(content) == 1 and isinstance(content[0], ContentText):
        return content[0].text
    return None


def read_input(sample: EvalSample) -> tuple[str | None, str, str | None]:
    """The sample's prompt, its prefill and what is wrong with its input (``None``: nothing)."""
    if "system" in [m.role for m in sample.messages]:
        return None, "", "a system message was sent with the prompt"
    if isinstance(sample.input, str):
        prompt: str | None = sample.input
        prefill: str | None = ""
        asked = 1
    else:
        roles = [m.role for m in sample.input]
        if roles not in (["user"], ["user", "assistant"]):
            return (
                None,
                "",
                (
                    f"its input is messages {roles}, not the prompt as one user message (and "
                    "optionally a prefill to continue)"
                ),
            )
        prompt = _text(sample.input[0])
        prefill = _text(sample.input[1]) if len(roles) == 2 else ""
        asked = len(roles)
    if prompt is None or prefill is None:
        return None, "", "its input holds something other than text"
    later = [m.role for m in sample.messages[asked:]]
    if later not in ([], ["assistant"]):
        return None, "", f"the model was asked more than once (messages after the input: {later})"
    return prompt, prefill, None


def logged_sample(sample: EvalSample, model: str) -> LoggedSample:
    prompt, prefill, problem = read_input(sample)
    output = sample.output
    error = None
    if sample.error is not None:
        error = f"Inspect's error: {_line(sample.error.message)}"
    elif output.error:
        error = f"the model's error: {_line(output.error)}"
    elif sample.limit is not None:
        error = f"a {sample.limit.type} limit of {sample.limit.limit:g} ended the sample"
    usage = output.usage
    choice = output.choices[0] if output.choices else None
    seconds = sample.working_time if sample.working_time is not None else sample.total_time
    return LoggedSample(
        id=str(sample.id),
        epoch=sample.epoch,
        prompt=prompt,
        prefill=prefill,
        input_problem=problem,
        completion=output.completion,
        error=error,
        served_model=output.model or model,
        stop_reason=choice.stop_reason if choice is not None else None,
        prompt_tokens=usage.input_tokens if usage is not None else None,
        completion_tokens=usage.output_tokens if usage is not None else None,
        seconds=round(seconds, 6) if seconds is not None else None,
        uuid=sample.uuid,
        output_json=output.model_dump_json(),
    )

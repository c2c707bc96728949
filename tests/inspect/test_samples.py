"""An Inspect eval log as assay reads it: logs written by Inspect's own ``write_eval_log`` (both
formats) read back into prompts and answers, every input that is not a prompt as assay sends
it described, and a file that is no log named in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalSample,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
)

from assay.core.digest import sha256_file, sha256_hex
from assay.inspect.samples import LogUnreadable, read_header, read_log
from assay.providers.base import ModelProfile
from assay.providers.inspect_log import log_source

PROMPT = "You are working in this Python repository.\n\nFile `module.py`:\n" + "x = 1\n" * 400
PREFILL = "```python\ndef implement("
MODEL = "openai-api/local/tiny"


def sample(number: int, asked: Any, *, completion: str = "return 1", **fields: Any) -> EvalSample:
    output = ModelOutput.from_content(model="tiny", content=completion)
    output.usage = ModelUsage(input_tokens=120, output_tokens=7, total_tokens=127)
    messages = [ChatMessageUser(content=asked)] if isinstance(asked, str) else list(asked)
    return EvalSample(
        id=f"id-{number}",
        epoch=1,
        input=asked,
        target="",
        messages=[*messages, ChatMessageAssistant(content=completion)],
        output=output,
        working_time=2.25,
        **fields,
    )


def write(path: Path, samples: list[EvalSample]) -> Path:
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created="2026-12-07T03:00:00+00:00",
            task="assay/v1",
            eval_id="eval-1",
            dataset=EvalDataset(name="v1"),
            model=MODEL,
            model_generate_config=GenerateConfig(max_tokens=256, temperature=0.5),
            config=EvalConfig(epochs=2),
            packages={"inspect_ai": "0.3.285"},
        ),
        samples=samples,
    )
    write_eval_log(log, str(path))
    return path


@pytest.fixture(params=["eval", "json"])
def log_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """One log of every kind of sample, in each of Inspect's two formats."""
    samples = [
        sample(0, [ChatMessageUser(content=PROMPT)]),
        sample(1, PROMPT),
        sample(2, [ChatMessageUser(content=PROMPT), ChatMessageAssistant(content=PREFILL)]),
        sample(3, [ChatMessageSystem(content="be brief"), ChatMessageUser(content=PROMPT)]),
        sample(4, [ChatMessageUser(content=PROMPT), ChatMessageUser(content="and tests")]),
        sample(5, [ChatMessageUser(content=[ContentText(text="a"), ContentImage(image="x.png")])]),
        sample(
            6,
            PROMPT,
            completion="",
            error=EvalError(message="RateLimitError:\n too many", traceback="", traceback_ansi=""),
        ),
        sample(7, [ChatMessageUser(content=[ContentText(text=PROMPT)])]),
    ]
    return write(tmp_path / f"run.{request.param}", samples)


def test_the_header_names_the_task_the_model_and_the_settings(log_file: Path):
    found = read_header(log_file)
    assert (found.task, found.model, found.eval_id, found.status) == (
        "assay/v1",
        MODEL,
        "eval-1",
        "success",
    )
    assert found.epochs == 2 and found.inspect_version == "0.3.285"
    assert found.generate_config == {"max_tokens": 256, "temperature": 0.5}


def test_each_sample_is_read_into_its_prompt_and_answer(log_file: Path):
    _, samples = read_log(log_file)
    by_id = {s.id: s for s in samples}
    assert list(by_id) == [f"id-{n}" for n in range(8)]
    plain = by_id["id-0"]
    assert plain.prompt == PROMPT and sha256_hex(plain.prompt) == sha256_hex(PROMPT)
    assert (plain.prefill, plain.input_problem, plain.error) == ("", None, None)
    assert plain.answer == "return 1" and plain.served_model == "tiny"
    assert (plain.prompt_tokens, plain.completion_tokens, plain.seconds) == (120, 7, 2.25)
    assert by_id["id-1"].prompt == PROMPT, "a string input is the one user message"
    assert by_id["id-7"].prompt == PROMPT, "one text part is the message's text"
    prefilled = by_id["id-2"]
    assert prefilled.prompt == PROMPT and prefilled.prefill == PREFILL
    assert prefilled.answer == PREFILL + "return 1"


@pytest.mark.parametrize(
    ("sample_id", "problem"),
    [
        ("id-3", "a system message was sent with the prompt"),
        ("id-4", "its input is messages ['user', 'user'], not the prompt as one user message"),
        ("id-5", "its input holds something other than text"),
    ],
)
def test_an_input_that_is_not_assays_prompt_is_described(log_file: Path, sample_id, problem):
    _, samples = read_log(log_file)
    found = next(s for s in samples if s.id == sample_id)
    assert found.prompt is None
    assert found.input_problem is not None and found.input_problem.startswith(problem)


def test_an_error_inspect_recorded_is_one_line(log_file: Path):
    _, samples = read_log(log_file)
    failed = next(s for s in samples if s.id == "id-6")
    assert failed.error == "Inspect's error: RateLimitError: too many"


def test_a_file_that_is_no_log_is_named_in_one_line(tmp_path: Path):
    missing = tmp_path / "none.eval"
    with pytest.raises(LogUnreadable, match=f"^{missing}: no such file$"):
        read_log(missing)
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"not a zip file")
    with pytest.raises(LogUnreadable) as refused:
        read_header(broken)
    assert str(refused.value).startswith(f"{broken}: not an Inspect eval log Inspect can read (")
    assert "\n" not in str(refused.value)


def test_a_plan_binds_the_log_it_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "inspect-logs").mkdir()
    prompts = [f"{PROMPT}# {n}\n" for n in range(3)]
    write(
        tmp_path / "inspect-logs" / "run.eval",
        [
            sample(0, [ChatMessageUser(content=prompts[0]), ChatMessageAssistant(content=PREFILL)]),
            sample(1, [ChatMessageUser(content=prompts[1]), ChatMessageAssistant(content=PREFILL)]),
            sample(2, [ChatMessageUser(content=prompts[2]), ChatMessageAssistant(content=PREFILL)]),
        ],
    )
    profile = ModelProfile(provider="inspect-log", model=MODEL, log="inspect-logs/run.eval")
    bound = log_source(profile)
    assert bound.log == "inspect-logs/run.eval"
    assert bound.log_sha256 == sha256_file(tmp_path / "inspect-logs" / "run.eval")
    assert (bound.task, bound.model, bound.samples, bound.epochs) == ("assay/v1", MODEL, 3, 2)
    assert bound.prefills == (PREFILL,) and bound.prefill == PREFILL
    assert bound.generate_config == {"max_tokens": 256, "temperature": 0.5}

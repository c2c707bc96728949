"""What extraction v3 costs beside v2, and what it changes, on the realistic stand-in's answers.

    uv run python benchmarks/extraction.py [--repeats 10]

Every v1 prompt answered by ``sim-realistic`` as params.yaml declares it, ``--repeats`` times
(each repeat another reply), extracted by version 2 and by version 3 (against the target module
the prompt showed), then gated. Prints the time per answer of each version (best of three) and
how many answers each one leaves to the gate, rejected, or missing, by status.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from assay.config.params import load_params
from assay.fixtures.scenarios import load_scenario
from assay.paid.plan import cell_id
from assay.providers.base import ProviderRequest
from assay.providers.simulated import SimulatedProvider, answer_book, shown_files
from assay.science.extract import extract_candidate
from assay.science.gate import check_source
from assay.science.render import render_input
from assay.science.reprint import Repository

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    params = load_params(ROOT / "params.yaml")
    scenario = load_scenario("v1", ROOT / "fixtures")
    provider = SimulatedProvider(params.models["sim-realistic"], answer_book(scenario.subjects))
    answers = []
    for subject in scenario.subjects:
        for arm in scenario.arms:
            prompt = render_input(subject, arm, "v1").text
            target, files = shown_files(prompt)
            repository = Repository(target=files[target])
            for repeat in range(1, args.repeats + 1):
                request = ProviderRequest(key=f"{cell_id(subject.id, arm, repeat)}#1",
                                          prompt=prompt)  # fmt: skip
                answers.append((subject.task, provider.complete(request).text, repository))
    print(f"{len(answers)} answers of sim-realistic on v1 ({args.repeats} per prompt)")
    for version in (2, 3):
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            results = [extract_candidate(text, version, repository=repository)
                       for _, text, repository in answers]  # fmt: skip
            best = min(best, time.perf_counter() - started)
        outcomes: Counter[str] = Counter()
        for (task, _, _), result in zip(answers, results, strict=True):
            if result.source is None:
                outcomes[f"missing ({result.status})"] += 1
                continue
            gate = check_source(result.source, helper=task.helper, helper_module=task.helper_module)
            outcomes["gate admits" if gate.accepted else f"rejected ({gate.reason})"] += 1
        per_answer = 1e6 * best / len(answers)
        print(f"\nextraction v{version}: {per_answer:.0f} µs per answer")
        for outcome, count in outcomes.most_common():
            print(f"  {count:5d}  {outcome}")


if __name__ == "__main__":
    main()

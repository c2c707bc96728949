from collections import Counter
from pathlib import Path

import pytest
import yaml

from assay.science.schedule import SCHEDULES, default_schedule, schedule

CASES = yaml.safe_load((Path(__file__).parents[1] / "cases" / "schedules.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_schedule_order(case):
    cells = schedule(case["name"], case["subjects"], case["arms"], case["repeats"])
    assert [f"{c.subject}:{c.arm}:{c.repeat}" for c in cells] == case["expected"]


@pytest.mark.parametrize("name", SCHEDULES)
@pytest.mark.parametrize(
    ("n_subjects", "n_arms", "repeats"), [(12, 2, 2), (12, 6, 2), (12, 3, 2), (5, 2, 3)]
)
def test_every_cell_once_blocked_by_subject_and_no_arm_always_first(
    name, n_subjects, n_arms, repeats
):
    subjects = [f"s{i:02d}" for i in range(n_subjects)]
    arms = [f"arm{j}" for j in range(n_arms)]
    cells = schedule(name, subjects, arms, repeats)
    keys = [(c.subject, c.arm, c.repeat) for c in cells]
    assert len(keys) == len(set(keys)) == n_subjects * n_arms * repeats
    # blocked by subject: each subject's cells are contiguous, subjects in the given order
    order = [c.subject for c in cells]
    assert [s for i, s in enumerate(order) if i == 0 or order[i - 1] != s] == subjects
    firsts = Counter(cells[b * n_arms].arm for b in range(n_subjects * repeats))
    assert len(firsts) > 1, "one arm always runs first"


def test_counterbalanced_balances_first_position_for_two_arms():
    cells = schedule(
        "subject-counterbalanced-v1", [f"s{i}" for i in range(12)], ["clean", "inconsistent"], 2
    )
    firsts = Counter(cells[b * 2].arm for b in range(24))
    assert firsts == {"clean": 12, "inconsistent": 12}


def test_rotated_144_cells_each_arm_first_equally():
    arms = ["mess-00", "mess-01", "mess-03", "mess-05", "mess-07", "mess-10"]
    cells = schedule("subject-rotated-v1", [f"s{i}" for i in range(12)], arms, 2)
    assert len(cells) == 144
    firsts = Counter(cells[b * 6].arm for b in range(24))
    assert firsts == dict.fromkeys(arms, 4)


@pytest.mark.parametrize(
    ("name", "arms", "repeats", "message"),
    [
        ("nope", ["a", "b"], 2, "unknown schedule"),
        ("subject-rotated-v1", ["a"], 2, "two distinct arms"),
        ("subject-rotated-v1", ["a", "b"], 0, "at least 1"),
    ],
)
def test_bad_arguments(name, arms, repeats, message):
    with pytest.raises(ValueError, match=message):
        schedule(name, ["s"], arms, repeats)


@pytest.mark.parametrize(
    ("scenario", "arms", "expected"),
    [
        ("v1", None, "subject-counterbalanced-v1"),
        ("codebase-near", 2, "subject-counterbalanced-v1"),
        ("dose", 11, "subject-rotated-v1"),
        ("mine", 2, "subject-counterbalanced-v1"),  # a declared two-arm scenario
        ("theirs", 3, "subject-rotated-v1"),
    ],
)
def test_default_schedule_counterbalances_two_arm_sets_and_rotates_the_rest(
    scenario, arms, expected
):
    assert default_schedule(scenario, arms) == expected

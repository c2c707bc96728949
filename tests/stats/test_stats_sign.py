"""The exact sign test and the lower median: the seed's thresholds, brute-force enumeration of
the two-sided binomial, and scipy-like input validation."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from assay.core.records import ORDINAL_CORRECTNESS, ORDINAL_VERDICTS
from assay.science.stats import lower_median, sign_test

THRESHOLDS = yaml.safe_load((Path(__file__).parent / "cases" / "thresholds.yaml").read_text())


@pytest.mark.parametrize(("positive", "negative", "significant"), THRESHOLDS)
def test_seed_thresholds(positive: int, negative: int, significant: bool) -> None:
    result = sign_test(positive, negative, alpha=0.05)
    assert result.significant is significant
    assert (result.positive, result.negative, result.n, result.alpha) == (
        positive,
        negative,
        positive + negative,
        0.05,
    )


def _enumerated_p(k: int, n: int) -> Fraction:
    """Two-sided exact p: the total probability of outcomes no more likely than k."""
    observed = math.comb(n, k)
    extreme = sum(math.comb(n, i) for i in range(n + 1) if math.comb(n, i) <= observed)
    return min(Fraction(1), Fraction(extreme, 2**n))


@pytest.mark.parametrize("n", range(1, 41))
def test_p_value_matches_enumeration(n: int) -> None:
    for k in range(n + 1):
        result = sign_test(k, n - k)
        assert result.p_value == pytest.approx(float(_enumerated_p(k, n)), rel=1e-12, abs=0)
        assert result.significant is (_enumerated_p(k, n) < Fraction(1, 20))


def test_minimum_significant_majority_per_n() -> None:
    """The seed's list read off the test itself: the smallest winning count for n = 1..12."""
    smallest = {
        n: min(
            (k for k in range((n + 1) // 2, n + 1) if sign_test(k, n - k).significant), default=None
        )
        for n in range(1, 13)
    }
    assert smallest == {
        1: None,
        2: None,
        3: None,
        4: None,
        5: None,
        6: 6,
        7: 7,
        8: 8,
        9: 8,
        10: 9,
        11: 10,
        12: 10,
    }


def test_no_pairs_is_not_significant() -> None:
    result = sign_test(0, 0)
    assert (result.p_value, result.significant, result.n) == (1.0, False, 0)


def test_alpha_is_the_callers() -> None:
    assert sign_test(7, 1, alpha=0.1).significant
    assert not sign_test(6, 0, alpha=0.01).significant
    assert sign_test(6, 0, alpha=0.03125 + 1e-9).significant
    assert not sign_test(6, 0, alpha=0.03125).significant  # p < alpha, strictly


@pytest.mark.parametrize(
    ("positive", "negative", "alpha", "error"),
    [
        (-1, 3, 0.05, ValueError),
        (3, -1, 0.05, ValueError),
        (1.5, 3, 0.05, TypeError),
        (True, 3, 0.05, TypeError),
        ("3", 1, 0.05, TypeError),
        (3, 1, 0.0, ValueError),
        (3, 1, 1.0, ValueError),
        (3, 1, -0.1, ValueError),
        (3, 1, float("nan"), ValueError),
        (3, 1, "0.05", TypeError),
    ],
)
def test_invalid_inputs_raise(
    positive: object, negative: object, alpha: object, error: type[Exception]
) -> None:
    with pytest.raises(error):
        sign_test(positive, negative, alpha=alpha)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("values", "scale", "expected"),
    [
        (["reused", "duplicated"], ORDINAL_VERDICTS, "duplicated"),
        (["mixed", "reused"], ORDINAL_VERDICTS, "mixed"),
        (["reused", "reused"], ORDINAL_VERDICTS, "reused"),
        (["reused"], ORDINAL_VERDICTS, "reused"),
        (["reused", "duplicated", "mixed"], ORDINAL_VERDICTS, "mixed"),
        (["reused", "reused", "duplicated", "mixed"], ORDINAL_VERDICTS, "mixed"),
        (["correct", "incorrect"], ORDINAL_CORRECTNESS, "incorrect"),
    ],
)
def test_lower_median(values: list[str], scale: tuple[str, ...], expected: str) -> None:
    assert lower_median(values, scale) == expected


@pytest.mark.parametrize(
    ("values", "scale"),
    [
        ([], ORDINAL_VERDICTS),
        (["ambiguous", "reused"], ORDINAL_VERDICTS),
        (["reused"], ("reused",)),
        (["reused"], ("reused", "reused")),
    ],
)
def test_lower_median_rejects_bad_input(values: list[str], scale: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        lower_median(values, scale)


@pytest.fixture
def sign_memo(tmp_path, monkeypatch):
    from assay.science import stats

    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    stats._sign_test_table.cache_clear()
    yield tmp_path / "memo" / "sign-test"
    stats._sign_test_table.cache_clear()


def test_remembered_p_values_are_scipys_to_the_bit(sign_memo) -> None:
    """Up to TABLE_PAIRS pairs p comes from a remembered table: each is scipy's binomtest value,
    exactly, whether the table was just computed or read back from the memo."""
    from scipy.stats import binomtest

    from assay.science import stats

    pairs = [(k, n) for n in (1, 2, 7, 15, 30, 64) for k in range(n + 1)]
    scipy = {(k, n): float(binomtest(k, n, p=0.5).pvalue) for k, n in pairs}
    assert {(k, n): stats.sign_test_p(k, n - k) for k, n in pairs} == scipy
    assert len(list(sign_memo.rglob("*.json"))) == 1
    stats._sign_test_table.cache_clear()
    assert {(k, n): stats.sign_test_p(k, n - k) for k, n in pairs} == scipy  # read back
    assert stats.sign_test_p(40, 25) == float(binomtest(40, 65, p=0.5).pvalue)  # past the table


def test_a_damaged_remembered_table_is_computed_again(sign_memo) -> None:
    from assay.science import stats

    expected = stats.sign_test_p(3, 12)
    (remembered,) = sign_memo.rglob("*.json")
    remembered.write_text("[[1.0], [2.0, 0.5]]", encoding="utf-8")
    stats._sign_test_table.cache_clear()
    assert stats.sign_test_p(3, 12) == expected
    assert stats._is_table(json.loads(remembered.read_text(encoding="utf-8")))


def test_with_the_memo_off_one_p_value_is_one_binomtest(sign_memo, monkeypatch) -> None:
    """Nothing would keep the table, so only the p-value asked for is computed: scipy's value,
    from one binomtest call, and no memo file."""
    from scipy.stats import binomtest

    from assay.science import stats

    monkeypatch.setenv("ASSAY_MEMO", "off")
    stats._sign_test_table.cache_clear()
    calls: list[tuple[int, int]] = []
    compute = stats._binomtest_p
    monkeypatch.setattr(stats, "_binomtest_p", lambda k, n: calls.append((k, n)) or compute(k, n))
    assert stats.sign_test_p(3, 12) == float(binomtest(3, 15, p=0.5).pvalue)
    assert calls == [(3, 15)]
    assert not sign_memo.exists()


@pytest.mark.process  # a fresh interpreter: nothing imported scipy.stats before
def test_a_remembered_table_spares_the_scipy_stats_import(sign_memo) -> None:
    import os
    import subprocess
    import sys

    from assay.science import stats

    stats.sign_test_p(5, 1)  # remembers the table
    probe = (
        "import sys; from assay.science.stats import sign_test_p; p = sign_test_p(5, 1); "
        "print(p, 'scipy.stats' in sys.modules)"
    )
    env = {**os.environ, "ASSAY_MEMO_DIR": str(sign_memo.parent)}
    shown = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert shown == [repr(stats.sign_test_p(5, 1)), "False"]


def test_the_pinned_digest_is_the_installed_scipys_table() -> None:
    """SIGN_TEST_TABLES pins the table this scipy computes: an upgraded scipy fails here until
    its digest is added (until then its p-values are never read from the memo)."""
    from importlib.metadata import version

    from assay.science import stats

    assert stats.SIGN_TEST_TABLES.get(version("scipy")) == stats.table_digest(
        stats.computed_sign_test_table()
    )


def test_a_remembered_table_with_one_value_changed_is_never_used(sign_memo) -> None:
    """A table of the right shape whose one value was changed (by hand, a disk, another
    program) fails its digest: the p-value is scipy's, and the memo holds scipy's table again."""
    from scipy.stats import binomtest

    from assay.science import stats

    expected = float(binomtest(3, 15, p=0.5).pvalue)
    assert stats.sign_test_p(3, 12) == expected
    (remembered,) = sign_memo.rglob("*.json")
    table = json.loads(remembered.read_text(encoding="utf-8"))
    table[15][3] = 0.001  # still a valid-looking table: only its digest says otherwise
    assert stats._is_table(table)
    remembered.write_text(json.dumps(table), encoding="utf-8")
    stats._sign_test_table.cache_clear()
    assert stats.sign_test_p(3, 12) == expected
    assert json.loads(remembered.read_text(encoding="utf-8"))[15][3] == expected


def test_a_scipy_without_a_pinned_digest_never_reads_the_memo(sign_memo, monkeypatch) -> None:
    """Nothing could check a remembered table of an unpinned scipy: each p-value is computed."""
    from scipy.stats import binomtest

    from assay.science import stats

    stats.sign_test_p(3, 12)  # remembers the pinned version's table
    (remembered,) = sign_memo.rglob("*.json")
    monkeypatch.setattr(stats, "SIGN_TEST_TABLES", {})
    stats._sign_test_table.cache_clear()
    assert stats._sign_test_table() is None
    assert stats.sign_test_p(3, 12) == float(binomtest(3, 15, p=0.5).pvalue)
    assert list(sign_memo.rglob("*.json")) == [remembered]

"""The memo of results by the digest of their inputs: what it keeps, what it never returns, and
that it can be moved or turned off."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.core.memo import Memo, code_digest, key_of


@pytest.fixture
def memo_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("ASSAY_MEMO", raising=False)
    monkeypatch.setenv("ASSAY_MEMO_DIR", str(tmp_path / "memo"))
    return tmp_path / "memo"


def test_a_result_comes_back_under_the_digest_of_its_inputs(memo_dir):
    memo = Memo("kind")
    key = key_of({"b": [1, 2], "a": "x"})
    assert key == key_of({"a": "x", "b": [1, 2]})  # canonical: key order does not count
    assert memo.get(key) is None
    memo.put(key, {"status": "correct"})
    assert Memo("kind").get(key) == {"status": "correct"}
    assert (memo_dir / "kind" / key[:2] / f"{key}.json").is_file()
    assert Memo("other").get(key) is None
    assert not list(memo_dir.rglob("*.partial"))


def test_a_damaged_entry_is_a_miss(memo_dir):
    memo = Memo("kind")
    key = key_of("inputs")
    memo.put(key, [1])
    (memo_dir / "kind" / key[:2] / f"{key}.json").write_text('{"cut sho')
    assert memo.get(key) is None


def test_it_can_be_turned_off(memo_dir, monkeypatch):
    monkeypatch.setenv("ASSAY_MEMO", "off")
    memo = Memo("kind")
    memo.put(key_of(1), 1)
    assert not memo.enabled and memo.get(key_of(1)) is None
    assert not memo_dir.exists()


def test_the_code_that_computes_a_result_is_part_of_its_key(tmp_path):
    code = tmp_path / "evaluator"
    code.mkdir()
    (code / "rules.py").write_text("A = 1\n")
    before = code_digest.__wrapped__(code)
    (code / "rules.py").write_text("A = 2\n")
    assert code_digest.__wrapped__(code) != before
    single = tmp_path / "tool.js"
    single.write_text("x")
    assert code_digest.__wrapped__(single) != code_digest.__wrapped__(code)

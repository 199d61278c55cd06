"""The label review's parts, in process: the twins' key and votes, the fold count check, the
near-duplicate pairs, and the ranking of misfiled rows of a service desk's complaint log."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from data_factory import complaint_log
from workbench.core.errors import WorkbenchError
from workbench.engine import review


def test_twins_are_texts_equal_once_width_case_and_spacing_are_folded():
    assert review.twin_key("ＡＰＰ 登录失败") == review.twin_key("app登录失败") == review.twin_key(" App  登录\t失败 ")
    assert review.twin_key("APP登录失败") != review.twin_key("APP登录成功")


def test_identical_texts_vote_with_their_labels():
    probs = np.full((4, 2), 0.5)
    y = np.array([0, 0, 1, 1])
    out = review.blend_twins(probs, y, ["a", "a", "a", "b"])
    # the text labelled 0, 0 and 1: the odd one out keeps little of its label
    assert out[2, 1] == pytest.approx(0.5 / 3)
    assert out[0, 0] == pytest.approx((0.5 + 1) / 3)
    assert out[3].tolist() == [0.5, 0.5]  # alone: the model's own
    assert np.allclose(out.sum(axis=1), 1.0)


def test_too_few_rows_of_a_label_is_refused_with_how_many_are_needed():
    with pytest.raises(WorkbenchError) as info:
        review.check_counts(["贷款利率"] * 9 + ["网点服务"] * 3 + ["理财亏损"] * 5)
    err = info.value
    assert err.code == "review_too_few_rows" and err.fields["need"] == review.FOLDS
    assert err.fields["labels"] == ["网点服务"] and err.fields["counts"] == [3]
    assert f"at least {review.FOLDS}" in str(err) and "'网点服务' (3)" in str(err)
    with pytest.raises(WorkbenchError, match="fewer than two labels"):
        review.check_counts(["贷款利率"] * 9)


def test_near_duplicates_are_pairs_at_the_threshold_and_above():
    from scipy import sparse

    x = sparse.csr_matrix(np.array([[1.0, 0, 0], [0.9, 0.1, 0], [0, 0, 1.0], [0.6, 0.8, 0]]))
    x = sparse.csr_matrix(x.multiply(1 / np.sqrt(x.multiply(x).sum(axis=1))))
    pairs = review.near_duplicates(x, threshold=0.9)
    assert [(i, j) for i, j, _ in pairs] == [(0, 1)]
    assert pairs[0][2] == pytest.approx(0.9 / np.hypot(0.9, 0.1), abs=1e-6)


def test_misfiled_complaints_rank_first(tmp_path):
    misfiled = complaint_log(tmp_path / "log.csv")
    with open(tmp_path / "log.csv", encoding="utf-8-sig") as fh:
        data = [r for r in csv.DictReader(fh) if len(r["工单内容"]) > 4]
    rows = [{"row_id": f"train-{i}", "split": "train", "index": i, "text": r["工单内容"], "label": r["投诉类别"].strip()}
            for i, r in enumerate(data)]
    result = review.review_rows(rows)
    assert result["rows_reviewed"] == len(rows) == 240
    top = [r["text"] for r in result["rows"][:2 * len(misfiled)]]
    found = [t for t in misfiled if t in top]
    # at random, 2 x 12 of 240 rows would hold about one of the twelve
    assert len(found) >= 10, (found, result["rows"][:5])
    first = result["rows"][0]
    assert first["suggested"] == misfiled.get(first["text"], first["suggested"])
    assert [r["score"] for r in result["rows"]] == sorted((r["score"] for r in result["rows"]), reverse=True)

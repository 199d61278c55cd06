"""Evaluation metrics against cases computed by hand."""

from __future__ import annotations

import math

import pytest

from workbench.engine import scoring


def test_char_tokens_split_cjk_by_character_and_keep_latin_words():
    assert scoring.char_tokens("转账限额5000元") == ["转", "账", "限", "额", "5000", "元"]
    assert scoring.char_tokens("APP 转账, OK!") == ["app", "转", "账", ",", "ok", "!"]
    # full-width characters are normalised (NFKC) first
    assert scoring.char_tokens("ＡＰＰ１２") == ["app12"]
    assert scoring.char_tokens("  ") == []


def test_lcs_length():
    assert scoring.lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert scoring.lcs_length([], list("abc")) == 0
    assert scoring.lcs_length(list("abc"), list("abc")) == 3


def test_rouge_l_hand_computed():
    # reference 6 chars, prediction 4 chars, LCS "今天天气" = 4: P = 4/4, R = 4/6, F = 2PR/(P+R) = 0.8
    assert scoring.rouge_l("今天天气", "今天天气很好") == pytest.approx(0.8)
    # LCS of 我爱北京 / 我在北京工作 is 我北京 = 3: P = 3/4, R = 3/6 -> F = 0.6
    assert scoring.rouge_l("我爱北京", "我在北京工作") == pytest.approx(0.6)
    assert scoring.rouge_l("完全一致", "完全一致") == 1.0
    assert scoring.rouge_l("abc", "xyz") == 0.0
    assert scoring.rouge_l("", "") == 1.0
    assert scoring.rouge_l("", "有内容") == 0.0


def test_exact_match_normalises_width_and_spaces():
    assert scoring.exact_match("  开户免费。 ", "开户免费。")
    assert scoring.exact_match("ＯＫ", "OK")
    assert not scoring.exact_match("开户免费", "开户收费")


def test_bleu_chinese_tokenizer():
    assert scoring.bleu(["今天天气很好"], ["今天天气很好"]) == pytest.approx(100.0)
    assert scoring.bleu(["完全不同的句子"], ["毫无关系啊呀"]) == pytest.approx(0.0, abs=1e-6)
    # 4 of 6 characters with the right order: all n-gram precisions computed by hand
    # 1-gram 4/4, 2-gram 3/3, 3-gram 2/2, 4-gram 1/1 -> precision 1; brevity penalty exp(1 - 6/4)
    assert scoring.bleu(["今天天气"], ["今天天气很好"]) == pytest.approx(100 * math.exp(1 - 6 / 4), rel=1e-6)


def test_generation_metrics_means():
    res = scoring.generation_metrics(["今天天气", "完全一致"], ["今天天气很好", "完全一致"])
    assert res["rouge_l"] == pytest.approx((0.8 + 1.0) / 2)
    assert res["exact_match"] == pytest.approx(0.5)
    assert res["per_sample_exact"] == [False, True]
    assert 0 < res["bleu"] <= 100


def test_classification_report_hand_computed():
    labels = ["正面", "中性", "负面"]
    y_true = ["正面", "正面", "正面", "中性", "中性", "负面"]
    y_pred = ["正面", "正面", "中性", "中性", "负面", "负面"]
    r = scoring.classification_report(y_true, y_pred, labels)
    assert r["accuracy"] == pytest.approx(4 / 6)
    # 正面: P 2/2, R 2/3, F 0.8; 中性: P 1/2, R 1/2, F 0.5; 负面: P 1/2, R 1/1, F 2/3
    pc = r["per_class"]
    assert pc["正面"] == pytest.approx({"precision": 1.0, "recall": 2 / 3, "f1": 0.8, "support": 3})
    assert pc["中性"] == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2})
    assert pc["负面"] == pytest.approx({"precision": 0.5, "recall": 1.0, "f1": 2 / 3, "support": 1})
    assert r["macro_f1"] == pytest.approx((0.8 + 0.5 + 2 / 3) / 3)
    assert r["confusion"] == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]


def test_classification_report_never_predicted_class_has_zero_precision():
    r = scoring.classification_report(["a", "b"], ["a", "a"], ["a", "b"])
    assert r["per_class"]["b"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 1}
    assert r["per_class"]["a"]["precision"] == pytest.approx(0.5)
    assert r["macro_f1"] == pytest.approx((2 / 3 + 0) / 2)


def test_macro_f1_leaves_out_labels_absent_from_the_split_and_never_given():
    # c has no test row and is never predicted: the mean is over a and b, and says so
    r = scoring.classification_report(["a", "a", "b"], ["a", "b", "b"], ["a", "b", "c"])
    assert r["macro_f1"] == pytest.approx((2 / 3 + 2 / 3) / 2)
    assert (r["macro_f1_labels"], r["macro_f1_of"]) == (2, 3)
    assert r["per_class"]["c"]["support"] == 0
    # a label given wrongly is present: its F1 of 0 counts
    r = scoring.classification_report(["a", "a", "b"], ["a", "c", "b"], ["a", "b", "c"])
    assert r["macro_f1"] == pytest.approx((2 / 3 + 1 + 0) / 3) and r["macro_f1_labels"] == 3
    m = scoring.multi_label_report([["a"], ["a", "b"]], [["a"], ["a"]], ["a", "b", "c"])
    assert (m["macro_f1_labels"], m["macro_f1_of"]) == (2, 3) and m["macro_f1"] == pytest.approx((1 + 0) / 2)
    assert scoring.macro_f1_name(m) == "macro-F1 (over the 2 of 3 labels in the test rows or predicted)"
    assert scoring.macro_f1_name(r) == "macro-F1"


def test_perplexity():
    assert scoring.perplexity(math.log(10)) == pytest.approx(10)
    assert scoring.perplexity(None) is None
    assert scoring.perplexity(float("nan")) is None

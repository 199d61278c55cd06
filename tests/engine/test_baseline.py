"""The classical baseline beside every evaluation (engine/models/ngram_baseline.py)."""

import random

import pytest

from workbench.engine.models import ngram_baseline


def _intent_rows(n, seed):
    """Short queries whose intent shows in a few characters, skewed 6:3:1, with noise words."""
    rng = random.Random(seed)
    cues = {"治疗方案": ["怎么治", "如何治疗", "吃什么药"], "病因分析": ["为什么会", "什么原因", "怎么引起"],
            "费用": ["多少钱", "贵不贵", "费用"]}
    topics = ["胃炎", "高血压", "湿疹", "失眠", "颈椎病", "糖尿病", "鼻炎"]
    weights = {"治疗方案": 6, "病因分析": 3, "费用": 1}
    rows = []
    for _ in range(n):
        label = rng.choices(list(weights), weights=list(weights.values()))[0]
        text = f"{rng.choice(['请问', '', '医生，'])}{rng.choice(topics)}{rng.choice(cues[label])}{rng.choice(['？', '', '啊'])}"
        rows.append({"text": text, "label": label})
    return rows


def test_classification_baseline_learns_skewed_intents():
    train, test = _intent_rows(300, 0), _intent_rows(80, 1)
    labels = ["治疗方案", "病因分析", "费用", "其他"]  # a label the data never uses
    res = ngram_baseline.evaluate_baseline("classification", train, test, ["text"], labels)
    assert res["class_weight"] == "balanced"
    assert res["macro_f1"] > 0.6 and res["accuracy"] > 0.9
    assert len(res["predictions"]) == len(test) and set(res["predictions"]) <= set(labels)
    assert res["train_rows"] == 300 and res["fit_seconds"] >= 0


def test_classification_baseline_needs_two_classes():
    rows = [{"text": "一样", "label": "甲"}] * 5
    assert ngram_baseline.evaluate_baseline("classification", rows, rows, ["text"], ["甲", "乙"]) is None
    assert not ngram_baseline.is_skewed(["a", "b", "a", "b"]) and ngram_baseline.is_skewed(["a"] * 4 + ["b"])


def test_retrieval_baseline_answers_with_the_nearest_training_question():
    train = [{"instruction": "信用卡年费怎么免除", "output": "刷卡满六次免年费。"},
             {"instruction": "转账限额是多少", "output": "单笔五万元。"},
             {"instruction": "如何挂失银行卡", "output": "拨打客服电话挂失。"}]
    test = [{"instruction": "请问信用卡的年费如何免除？", "output": "刷卡满六次免年费。"},
            {"instruction": "银行卡丢了怎么挂失", "output": "请拨打客服电话。"}]
    res = ngram_baseline.evaluate_baseline("instruction", train, test, ["instruction", "input"], [])
    assert res["predictions"] == ["刷卡满六次免年费。", "拨打客服电话挂失。"]
    assert res["exact_match"] == 0.5 and 0.5 < res["rouge_l"] < 1.0 and res["bleu"] > 0


def test_comparison_sentence_says_whether_the_model_beats_it():
    base = {"macro_f1": 0.75, "description": ngram_baseline.DESCRIPTION["classification"]}
    up = ngram_baseline.comparison("classification", {"macro_f1": 0.8}, base)
    assert up["beats"] and abs(up["difference"] - 0.05) < 1e-9
    assert up["sentence"].startswith("The fine-tuned model beats a simple word-statistics baseline")
    down = ngram_baseline.comparison("classification", {"macro_f1": 0.35}, base)
    assert not down["beats"] and "does not beat" in down["sentence"] and "0.400 lower" in down["sentence"]
    assert ngram_baseline.comparison("classification", {"macro_f1": 0.5}, None) is None
    r = ngram_baseline.comparison("instruction", {"rouge_l": 0.2}, {"rouge_l": 0.3, "description": "x"})
    assert r["metric"] == "rouge_l" and not r["beats"]


def test_equal_scores_are_a_tie_in_the_report_and_on_the_page(qapp):
    """Seen on the Evaluate page: both at 100.0% read "does not beat ... 0.0% lower"."""
    from workbench.gui.pages.evaluate.words import baseline_sentence

    base = {"macro_f1": 1.0, "description": ngram_baseline.DESCRIPTION["classification"]}
    tie = ngram_baseline.comparison("classification", {"macro_f1": 1.0}, base)
    assert tie["verdict"] == "ties" and not tie["beats"]
    assert "matches" in tie["sentence"] and "lower" not in tie["sentence"]
    words = baseline_sentence(tie)
    assert "matches" in words and "lower" not in words
    assert "lower" in baseline_sentence(ngram_baseline.comparison("classification", {"macro_f1": 0.9}, base))


def test_the_baseline_is_fitted_once_per_split(tmp_path, monkeypatch):
    train, test = _intent_rows(300, 0), _intent_rows(80, 1)
    labels = ["治疗方案", "病因分析", "费用"]
    first = ngram_baseline.evaluate_baseline("classification", train, test, ["text"], labels, cache_dir=tmp_path)
    assert "cached" not in first and len(list(tmp_path.glob("baseline-*.json"))) == 1
    fits = []
    real = ngram_baseline._evaluate_baseline
    monkeypatch.setattr(ngram_baseline, "_evaluate_baseline", lambda *a, **k: fits.append(1) or real(*a, **k))
    again = ngram_baseline.evaluate_baseline("classification", train, test, ["text"], labels, cache_dir=tmp_path)
    assert again.pop("cached") is True and again == first and not fits
    # another split, other labels or other rows: fitted anew, kept beside the first
    moved = [dict(r) for r in train]
    moved[0]["label"] = "费用" if moved[0]["label"] != "费用" else "治疗方案"
    ngram_baseline.evaluate_baseline("classification", moved, test, ["text"], labels, cache_dir=tmp_path)
    ngram_baseline.evaluate_baseline("classification", train, test, ["text"], labels + ["其他"], cache_dir=tmp_path)
    assert len(fits) == 2 and len(list(tmp_path.glob("baseline-*.json"))) == 3
    # a damaged cache file is fitted again, not trusted
    for f in tmp_path.glob("baseline-*.json"):
        f.write_text("{torn", encoding="utf-8")
    refit = ngram_baseline.evaluate_baseline("classification", train, test, ["text"], labels, cache_dir=tmp_path)
    assert len(fits) == 3 and "cached" not in refit
    assert {k: v for k, v in refit.items() if k != "fit_seconds"} == {k: v for k, v in first.items() if k != "fit_seconds"}


def _noisy(truth, right, rng, labels):
    return [t if rng.random() < right else rng.choice(labels) for t in truth]


def test_bootstrap_interval_is_the_evaluations_macro_f1_on_the_same_draws():
    import numpy as np

    from workbench.engine import scoring

    rng = random.Random(0)
    labels = ["甲", "乙", "丙", "丁", "戊"]  # 丁 is rare and 戊 never occurs nor is given: over the labels present
    truth = [rng.choice(labels[:3]) for _ in range(297)] + ["丁"] * 3
    ours = [t if rng.random() < 0.8 else rng.choice(labels[:4]) for t in truth]
    theirs = [t if rng.random() < 0.6 else rng.choice(labels[:4]) for t in truth]
    got = ngram_baseline.macro_f1_difference_interval(truth, ours, theirs, labels, rounds=60, seed=5)
    t, a, b = (np.array(col) for col in (truth, ours, theirs))
    draws = np.random.default_rng(5).integers(0, len(t), size=(60, len(t)))
    f1 = lambda y, p: scoring.classification_report(list(y), list(p), labels)["macro_f1"]  # noqa: E731
    diffs = [f1(t[d], a[d]) - f1(t[d], b[d]) for d in draws]
    lo, hi = np.quantile(diffs, [0.025, 0.975])
    assert got["low"] == pytest.approx(lo, abs=1e-6) and got["high"] == pytest.approx(hi, abs=1e-6)
    assert got["rows"] == 300 and got["rounds"] == 60 and 0 < got["low"] < got["high"]
    assert ngram_baseline.macro_f1_difference_interval(truth, ours, ["己"] * 300, labels) is None  # a label outside the set


def test_a_small_difference_inside_the_noise_matches_the_baseline():
    """Seen on a model card: 0.003 macro-F1 on 723 test rows was called "beats"."""
    from workbench.engine import scoring

    rng = random.Random(1)
    labels = ["甲", "乙", "丙"]
    truth = [rng.choice(labels) for _ in range(723)]
    ours, theirs = _noisy(truth, 0.75, rng, labels), _noisy(truth, 0.75, rng, labels)  # as good, not alike
    m, bl = (scoring.classification_report(truth, p, labels)["macro_f1"] for p in (ours, theirs))
    assert 0.0005 < abs(m - bl) < 0.02
    base = {"macro_f1": bl, "description": ngram_baseline.DESCRIPTION["classification"]}
    interval = ngram_baseline.macro_f1_difference_interval(truth, ours, theirs, labels)
    assert interval["low"] < 0 < interval["high"]
    c = ngram_baseline.comparison("classification", {"macro_f1": m}, base, interval)
    assert c["verdict"] == "ties" and not c["beats"] and c["interval"] == interval
    assert "matches" in c["sentence"] and "beats" not in c["sentence"] and "95% bootstrap interval" in c["sentence"]
    # a clear gain keeps "beats", with its interval
    better = ngram_baseline.macro_f1_difference_interval(truth, truth, theirs, labels)
    up = ngram_baseline.comparison("classification", {"macro_f1": 1.0}, base, better)
    assert better["low"] > 0 and up["verdict"] == "beats" and f"{better['low']:+.3f}" in up["sentence"]


def test_rouge_l_interval_is_the_mean_of_drawn_row_differences():
    import numpy as np

    from workbench.engine import scoring

    refs = ["刷卡满六次免年费。", "单笔五万元。", "拨打客服电话挂失。", "请携带身份证到网点办理。"] * 10
    ours = ["刷卡满六次免年费", "单笔限额五万元", "请拨打客服电话", "到网点办理"] * 10
    theirs = ["刷卡满六次免年费。", "五万元", "拨打客服电话挂失。", "网点"] * 10
    got = ngram_baseline.rouge_l_difference_interval(refs, ours, theirs, rounds=40, seed=2)
    d = np.array([scoring.rouge_l(a, r) - scoring.rouge_l(b, r) for a, b, r in zip(ours, theirs, refs)])
    draws = np.random.default_rng(2).integers(0, len(d), size=(40, len(d)))
    lo, hi = np.quantile(d[draws].mean(axis=1), [0.025, 0.975])
    assert got["low"] == pytest.approx(lo, abs=1e-6) and got["high"] == pytest.approx(hi, abs=1e-6)
    m = scoring.generation_metrics(ours, refs)["rouge_l"] - scoring.generation_metrics(theirs, refs)["rouge_l"]
    assert got["low"] <= m <= got["high"]  # the difference of the two ROUGE-L figures the report shows
    assert ngram_baseline.difference_interval("instruction", False, refs, ours, theirs, []) == \
        ngram_baseline.rouge_l_difference_interval(refs, ours, theirs)


def _noisy_sets(truth, right, rng, labels):
    """Each label of each row flipped with probability 1 - ``right``."""
    return [[lab for lab in labels if (lab in t) == (rng.random() < right)] for t in truth]


def test_multi_label_interval_is_the_evaluations_macro_f1_on_the_same_draws():
    import numpy as np

    from workbench.engine import scoring

    rng = random.Random(3)
    labels = ["盗窃", "诈骗", "抢劫", "寻衅滋事", "赌博"]  # 赌博 is never in the truth nor given
    truth = [[lab for lab in labels[:4] if rng.random() < (0.4 if lab != "寻衅滋事" else 0.03)] for _ in range(200)]
    ours = _noisy_sets(truth, 0.9, rng, labels[:4])
    theirs = _noisy_sets(truth, 0.75, rng, labels[:4])
    theirs[0] = theirs[0] + ["未知罪名"]  # a label outside the set is not counted, as in the report
    got = ngram_baseline.multi_label_macro_f1_difference_interval(truth, ours, theirs, labels, rounds=50, seed=4)
    draws = np.random.default_rng(4).integers(0, len(truth), size=(50, len(truth)))
    f1 = lambda y, p, d: scoring.multi_label_report([y[i] for i in d], [p[i] for i in d], labels)["macro_f1"]  # noqa: E731
    lo, hi = np.quantile([f1(truth, ours, d) - f1(truth, theirs, d) for d in draws], [0.025, 0.975])
    assert got["low"] == pytest.approx(lo, abs=1e-6) and got["high"] == pytest.approx(hi, abs=1e-6)
    assert got["rows"] == 200 and got["rounds"] == 50 and 0 < got["low"] < got["high"]
    # predictions.csv's cells (labels joined by " | ", "" for none) give the same interval as the lists
    cells = [[scoring.LABEL_SET_JOINER.join(s) for s in col] for col in (truth, ours, theirs)]
    assert ngram_baseline.difference_interval("classification", True, *cells, labels) == \
        ngram_baseline.multi_label_macro_f1_difference_interval(truth, ours, theirs, labels)
    assert ngram_baseline.multi_label_macro_f1_difference_interval(truth[:1], ours[:1], theirs[:1], labels) is None


def test_a_multi_label_difference_inside_the_noise_matches_the_baseline():
    """A multi-label card had no interval, so it said "beats" of any difference above 0.0005."""
    from workbench.engine import scoring

    rng = random.Random(7)
    labels = ["盗窃", "诈骗", "抢劫", "寻衅滋事"]
    truth = [[lab for lab in labels if rng.random() < 0.3] for _ in range(400)]
    ours, theirs = _noisy_sets(truth, 0.85, rng, labels), _noisy_sets(truth, 0.85, rng, labels)
    m, bl = (scoring.multi_label_report(truth, p, labels)["macro_f1"] for p in (ours, theirs))
    assert 0.0005 < m - bl < 0.03  # would have been "beats"
    base = {"macro_f1": bl, "description": ngram_baseline.DESCRIPTION["multi_label"]}
    interval = ngram_baseline.difference_interval("classification", True, truth, ours, theirs, labels)
    assert interval["low"] < 0 < interval["high"] and interval["rows"] == 400
    c = ngram_baseline.comparison("classification", {"macro_f1": m}, base, interval)
    assert c["verdict"] == "ties" and not c["beats"] and "matches" in c["sentence"]
    assert "95% bootstrap interval of the difference over the 400 rows" in c["sentence"]
    better = ngram_baseline.difference_interval("classification", True, truth, truth, theirs, labels)
    up = ngram_baseline.comparison("classification", {"macro_f1": 1.0}, base, better)
    assert better["low"] > 0 and up["verdict"] == "beats"
    worse = ngram_baseline.difference_interval("classification", True, truth, theirs, truth, labels)
    down = ngram_baseline.comparison("classification", {"macro_f1": bl}, {**base, "macro_f1": 1.0}, worse)
    assert worse["high"] < 0 and down["verdict"] == "below" and "does not beat" in down["sentence"]

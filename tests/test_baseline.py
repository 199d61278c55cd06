"""The classical baseline beside every evaluation (engine/baseline.py)."""

import random

from workbench.engine import baseline as BL


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
    res = BL.evaluate_baseline("classification", train, test, ["text"], labels)
    assert res["class_weight"] == "balanced"
    assert res["macro_f1"] > 0.6 and res["accuracy"] > 0.9
    assert len(res["predictions"]) == len(test) and set(res["predictions"]) <= set(labels)
    assert res["train_rows"] == 300 and res["fit_seconds"] >= 0


def test_classification_baseline_needs_two_classes():
    rows = [{"text": "一样", "label": "甲"}] * 5
    assert BL.evaluate_baseline("classification", rows, rows, ["text"], ["甲", "乙"]) is None
    assert not BL.is_skewed(["a", "b", "a", "b"]) and BL.is_skewed(["a"] * 4 + ["b"])


def test_retrieval_baseline_answers_with_the_nearest_training_question():
    train = [{"instruction": "信用卡年费怎么免除", "output": "刷卡满六次免年费。"},
             {"instruction": "转账限额是多少", "output": "单笔五万元。"},
             {"instruction": "如何挂失银行卡", "output": "拨打客服电话挂失。"}]
    test = [{"instruction": "请问信用卡的年费如何免除？", "output": "刷卡满六次免年费。"},
            {"instruction": "银行卡丢了怎么挂失", "output": "请拨打客服电话。"}]
    res = BL.evaluate_baseline("instruction", train, test, ["instruction", "input"], [])
    assert res["predictions"] == ["刷卡满六次免年费。", "拨打客服电话挂失。"]
    assert res["exact_match"] == 0.5 and 0.5 < res["rouge_l"] < 1.0 and res["bleu"] > 0


def test_comparison_sentence_says_whether_the_model_beats_it():
    base = {"macro_f1": 0.75, "description": BL.DESCRIPTION["classification"]}
    up = BL.comparison("classification", {"macro_f1": 0.8}, base)
    assert up["beats"] and abs(up["difference"] - 0.05) < 1e-9
    assert up["sentence"].startswith("The fine-tuned model beats a simple word-statistics baseline")
    down = BL.comparison("classification", {"macro_f1": 0.35}, base)
    assert not down["beats"] and "does not beat" in down["sentence"] and "0.400 lower" in down["sentence"]
    assert BL.comparison("classification", {"macro_f1": 0.5}, None) is None
    r = BL.comparison("instruction", {"rouge_l": 0.2}, {"rouge_l": 0.3, "description": "x"})
    assert r["metric"] == "rouge_l" and not r["beats"]


def test_equal_scores_are_a_tie_in_the_report_and_on_the_page(qapp):
    """Seen on the Evaluate page: both at 100.0% read "does not beat ... 0.0% lower"."""
    from workbench.gui.pages.evaluate_page import baseline_sentence

    base = {"macro_f1": 1.0, "description": BL.DESCRIPTION["classification"]}
    tie = BL.comparison("classification", {"macro_f1": 1.0}, base)
    assert tie["verdict"] == "ties" and not tie["beats"]
    assert "matches" in tie["sentence"] and "lower" not in tie["sentence"]
    words = baseline_sentence(tie)
    assert "matches" in words and "lower" not in words
    assert "lower" in baseline_sentence(BL.comparison("classification", {"macro_f1": 0.9}, base))


def test_the_baseline_is_fitted_once_per_split(tmp_path, monkeypatch):
    train, test = _intent_rows(300, 0), _intent_rows(80, 1)
    labels = ["治疗方案", "病因分析", "费用"]
    first = BL.evaluate_baseline("classification", train, test, ["text"], labels, cache_dir=tmp_path)
    assert "cached" not in first and len(list(tmp_path.glob("baseline-*.json"))) == 1
    fits = []
    real = BL._evaluate_baseline
    monkeypatch.setattr(BL, "_evaluate_baseline", lambda *a, **k: fits.append(1) or real(*a, **k))
    again = BL.evaluate_baseline("classification", train, test, ["text"], labels, cache_dir=tmp_path)
    assert again.pop("cached") is True and again == first and not fits
    # another split, other labels or other rows: fitted anew, kept beside the first
    moved = [dict(r) for r in train]
    moved[0]["label"] = "费用" if moved[0]["label"] != "费用" else "治疗方案"
    BL.evaluate_baseline("classification", moved, test, ["text"], labels, cache_dir=tmp_path)
    BL.evaluate_baseline("classification", train, test, ["text"], labels + ["其他"], cache_dir=tmp_path)
    assert len(fits) == 2 and len(list(tmp_path.glob("baseline-*.json"))) == 3
    # a damaged cache file is fitted again, not trusted
    for f in tmp_path.glob("baseline-*.json"):
        f.write_text("{torn", encoding="utf-8")
    refit = BL.evaluate_baseline("classification", train, test, ["text"], labels, cache_dir=tmp_path)
    assert len(fits) == 3 and "cached" not in refit
    assert {k: v for k, v in refit.items() if k != "fit_seconds"} == {k: v for k, v in first.items() if k != "fit_seconds"}

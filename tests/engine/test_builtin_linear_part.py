"""The built-in classifier's linear part (engine/models/char_classifier.py): a logistic regression over the
model's own hashed character n-grams, fitted by scikit-learn and computed by the graph, mixed
with the network by a weight tuned on the validation rows."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")
pytest.importorskip("sklearn")

from workbench.engine.models import char_classifier  # noqa: E402
from workbench.engine import examples  # noqa: E402
from workbench.engine.models import loading
from workbench.engine.models import builtin_lm  # noqa: E402

loading.set_library_log_level("ERROR")

LABELS = ["盗窃", "诈骗", "故意伤害", "交通肇事"]  # the last one never occurs in the training rows
CUES = {"盗窃": ["趁无人之际窃取", "撬锁盗走", "扒窃"], "诈骗": ["冒充客服骗取", "虚构投资项目", "以借款为名骗得"],
        "故意伤害": ["持刀刺伤", "拳打脚踢致轻伤", "用砖块砸伤"]}


def _cases(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        label = rng.choices(list(CUES), weights=[5, 3, 2])[0]
        out.append({"text": f"被告人{rng.choice('张李王赵')}某于{rng.randint(2015, 2023)}年{rng.randint(1, 12)}月"
                            f"{rng.choice(CUES[label])}{rng.choice(['被害人', '他人', '邻居'])}"
                            f"{rng.choice(['财物', '现金', '', '手机'])}，{rng.choice(['案发后自首', '后被抓获', ''])}",
                    "label": label})
    return out


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    train = _cases(240, 0)
    folder = builtin_lm.build_builtin_model("tiny", [r["text"] for r in train], tmp_path_factory.mktemp("lin") / "m",
                                   labels=LABELS)
    model, tok = loading.load_model_and_tokenizer(folder, for_training=True)
    feats = examples.build_classifier_features(tok, train, LABELS, user_format="{text}", max_length=96)
    info = char_classifier.fit_linear_part(model, [f["input_ids"] for f in feats], [f["labels"] for f in feats])
    return model, tok, feats, info


def _reference(model, ids, targets, test_ids):
    """scikit-learn's own sublinear TF-IDF (TfidfTransformer) over the model's hashed n-gram counts,
    the features found in fewer than two training rows dropped, and its logistic regression."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.linear_model import LogisticRegression

    from workbench.engine.models.ngram_baseline import LOGREG_C, MULTINOMIAL_SOLVER

    vocab, buckets = model.config.vocab_size, model.config.ngram_buckets
    counts = char_classifier.linear_counts(ids, vocab, buckets)
    keep = np.flatnonzero(np.bincount(counts.indices, minlength=counts.shape[1]) >= char_classifier.LINEAR_MIN_DF)
    tfidf = TfidfTransformer(sublinear_tf=True).fit(counts[:, keep])
    ref = LogisticRegression(C=LOGREG_C, max_iter=2000, class_weight="balanced", random_state=0,
                             solver=MULTINOMIAL_SOLVER)
    ref.fit(tfidf.transform(counts[:, keep]), targets)
    return ref.predict_proba(tfidf.transform(char_classifier.linear_counts(test_ids, vocab, buckets)[:, keep]))


def test_the_graph_computes_the_fitted_logistic_regression(fitted):
    model, tok, feats, info = fitted
    assert info["rows"] == len(feats) and info["features_seen"] > info["features_used"] > 100
    test = examples.build_classifier_features(tok, _cases(50, 1), LABELS, user_format="{text}", max_length=96)
    # texts that repeat characters and n-grams: the graph counts each feature's occurrences (1 + ln c)
    test += examples.build_classifier_features(tok, [{"text": "撬锁撬锁撬锁盗走盗走现金，撬锁", "label": "盗窃"},
                                              {"text": "骗" * 30, "label": "诈骗"}],
                                        LABELS, user_format="{text}", max_length=96)
    test_ids = [f["input_ids"] for f in test]
    _, lin = char_classifier.part_probabilities(model, test_ids)
    expected = _reference(model, [f["input_ids"] for f in feats], [f["labels"] for f in feats], test_ids)
    assert np.allclose(lin[:, :3], expected, atol=1e-4)  # over the three labels seen in training
    assert lin[:, 3].max() < 1e-6  # a label without training rows is never answered
    assert (lin.argmax(1) == np.array([f["labels"] for f in test])).mean() > 0.9
    # a batch of one row and a batch of all rows agree (the counts ignore the padding)
    one = np.concatenate([char_classifier.part_probabilities(model, [i])[1] for i in test_ids[-4:]])
    assert np.allclose(one, lin[-4:], atol=1e-6)


def test_long_texts_are_scored_in_smaller_batches(fitted, monkeypatch):
    model, tok, feats, _ = fitted
    ids = [f["input_ids"] for f in feats[:30]]
    deep, lin = char_classifier.part_probabilities(model, ids)
    monkeypatch.setattr(char_classifier, "COMPARE_BUDGET", (2 * 40) ** 2 * 3)  # three rows of 40 ids at a time
    lengths = [len(x) for x in ids]
    batches = list(char_classifier.eval_batches(model, lengths, 256))
    assert sorted(i for b in batches for i in b) == list(range(len(ids))) and len(batches) > 1
    assert all(len(b) <= max(1, char_classifier.COMPARE_BUDGET // (2 * max(lengths[i] for i in b)) ** 2) for b in batches)
    assert len(list(char_classifier.eval_batches(model, lengths, 256, linear=False))) == 1  # the network alone: no comparison
    small_deep, small_lin = char_classifier.part_probabilities(model, ids)
    assert np.allclose(small_lin, lin, atol=1e-6) and np.allclose(small_deep, deep, atol=1e-6)


def test_a_model_saved_before_sublinear_tf_keeps_its_answers(fitted, tmp_path):
    """Models saved without ``linear_tf`` / ``linear_mix`` weigh a feature by its count and mix the
    parts' probabilities arithmetically: loading them must not switch them to the new forms."""
    model, tok, feats, _ = fitted
    model.save_pretrained(str(tmp_path), save_checkpoint_format="legacy", safe_serialization=True)
    cfg = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert cfg["linear_tf"] == "sublinear" and cfg["linear_mix"] == "geometric"
    del cfg["linear_tf"], cfg["linear_mix"]
    (tmp_path / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    old = char_classifier.load_classifier(tmp_path, for_training=False)
    assert not old.sublinear and not old.geometric
    ids = [f["input_ids"] for f in feats[:40]]
    _, lin = char_classifier.part_probabilities(old, ids)
    counts = char_classifier.linear_counts(ids, old.config.vocab_size, old.config.ngram_buckets)
    table = np.concatenate([old.lin_unigram.weight.numpy(), old.lin_ngram.weight.numpy()])
    idf = np.sqrt(np.concatenate([old.idf2_unigram.weight.numpy(), old.idf2_ngram.weight.numpy()]).ravel())
    # the count form: sum of idf x coef over occurrences over sqrt(sum of idf^2 over occurrences)
    norm = np.sqrt(np.asarray(counts @ (idf ** 2)).ravel())
    logits = np.asarray(counts @ table) / norm[:, None] + old.lin_bias.numpy()
    expected = np.exp(logits - logits.max(1, keepdims=True))
    assert np.allclose(lin, expected / expected.sum(1, keepdims=True), atol=1e-4)
    # linear_design's count form is the same computation: its rows times the coefficients
    coef = np.divide(table, idf[:, None], out=np.zeros_like(table), where=idf[:, None] > 0)
    x = char_classifier.linear_design(counts, idf, sublinear=False)
    assert np.allclose(np.asarray(x @ coef) + old.lin_bias.numpy(), logits, atol=1e-4)


def test_eval_mode_answers_the_mixture_and_training_the_network_alone(fitted):
    model, tok, feats, _ = fitted
    batch = examples.DataCollator(tok.pad_token_id)(feats[:16])
    model.eval()
    deep, lin = model.part_logits(batch["input_ids"], batch["attention_mask"])
    p_lin, p_deep = (paddle.nn.functional.softmax(x, -1).numpy().astype(np.float64) for x in (lin, deep))
    for weight in (0.0, 0.3, 1.0):
        model.linear_weight = weight
        probs = char_classifier.probabilities_from_logits(model, model(input_ids=batch["input_ids"],
                                                         attention_mask=batch["attention_mask"]).logits).numpy()
        # the weighted geometric mean of both parts' probabilities, renormalised
        mix = p_lin ** weight * p_deep ** (1 - weight)
        assert np.allclose(probs, mix / mix.sum(1, keepdims=True), atol=1e-5)
        assert np.allclose(char_classifier.mix_probabilities(model, p_deep, p_lin), probs, atol=1e-5)
        assert model.geometric
        model.geometric = False  # the arithmetic mean of the models saved before
        probs = char_classifier.probabilities_from_logits(model, model(input_ids=batch["input_ids"],
                                                         attention_mask=batch["attention_mask"]).logits).numpy()
        assert np.allclose(probs, weight * p_lin + (1 - weight) * p_deep, atol=1e-5)
        assert np.allclose(char_classifier.mix_probabilities(model, p_deep, p_lin), probs, atol=1e-5)
        model.geometric = True
    # the loss is the network's in eval mode too (the validation curve of the part that trains)
    eval_loss = float(model(**batch).loss)
    net_loss = float(paddle.nn.functional.cross_entropy(deep, batch["labels"].reshape([-1]),
                                                        weight=model.class_weight))
    assert eval_loss == pytest.approx(net_loss, rel=1e-5)
    model.train()
    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
    assert logits.shape == deep.shape
    out = model(**batch)
    out.loss.backward()
    assert model.lin_ngram.weight.grad is None and model.lin_bias.grad is None  # fitted, never trained
    assert model.score.weight.grad is not None
    model.clear_gradients()
    model.linear_weight = char_classifier.LINEAR_WEIGHT


def test_part_scores(fitted):
    model, tok, _, _ = fitted
    val = examples.build_classifier_features(tok, _cases(80, 2), LABELS, user_format="{text}", max_length=96)
    res = char_classifier.part_scores(model, [f["input_ids"] for f in val], [f["labels"] for f in val], LABELS)
    # the network is untrained here (near-uniform answers): the mixture answers as the linear part does
    assert res["linear_alone"] > res["network_alone"] + 0.3
    assert res["macro_f1"] == pytest.approx(res["linear_alone"]) and res["linear_weight"] == char_classifier.LINEAR_WEIGHT


def test_multi_label_linear_part(tmp_path):
    rows = []
    for i, r in enumerate(_cases(200, 3)):
        both = i % 5 == 0 and r["label"] == "故意伤害"
        rows.append({"text": r["text"] + ("，并强行抢走被害人财物" if both else ""),
                     "labels": [r["label"], "盗窃"] if both else [r["label"]]})
    labels = ["盗窃", "诈骗", "故意伤害", "寻衅滋事"]  # 寻衅滋事 on no row: a constant no
    folder = builtin_lm.build_builtin_model("tiny", [r["text"] for r in rows], tmp_path / "ml", labels=labels,
                                   multi_label=True)
    model, tok = loading.load_model_and_tokenizer(folder, for_training=True)
    feats = examples.build_classifier_features(tok, rows, labels, user_format="{text}", max_length=96)
    char_classifier.fit_linear_part(model, [f["input_ids"] for f in feats], [f["labels"] for f in feats])
    _, lin = char_classifier.part_probabilities(model, [f["input_ids"] for f in feats])
    truth = np.array([f["labels"] for f in feats])
    assert lin[:, 3].max() < 1e-6
    assert ((lin > 0.5) == truth.astype(bool)).mean() > 0.95
    model.eval()
    batch = examples.DataCollator(tok.pad_token_id, multi_hot=True)(feats[:8])
    probs = char_classifier.classifier_probabilities(model, batch["input_ids"], batch["attention_mask"]).numpy()
    deep, linl = model.part_logits(batch["input_ids"], batch["attention_mask"])
    sig = paddle.nn.functional.sigmoid
    w = char_classifier.LINEAR_WEIGHT
    # each label's log-odds: the weighted mean of both parts' log-odds
    assert np.allclose(probs, sig(w * linl + (1 - w) * deep).numpy(), atol=1e-5)
    assert np.allclose(char_classifier.mix_probabilities(model, sig(deep).numpy(), sig(linl).numpy()), probs, atol=1e-4)

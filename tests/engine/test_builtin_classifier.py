"""The built-in classifier (engine/models/char_classifier.py): an ordinary model folder, a character
vocabulary, n-grams hashed inside the model, one batched pass, early stopping on the
validation macro-F1 with the best weights kept."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from trained_factory import train_run  # noqa: E402
from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.runs import read_events  # noqa: E402
from workbench.core.labels import LabelChoice  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.core.trained import resolve_trained_run  # noqa: E402
from workbench.engine.models import char_classifier  # noqa: E402
from workbench.engine import examples  # noqa: E402
from workbench.engine.models import builtin_lm
from workbench.engine.models import loading
from workbench.engine import families
from workbench.engine.models import adapters  # noqa: E402

loading.set_library_log_level("ERROR")

LABELS = ["治疗方案", "病因分析", "费用", "其他"]


def _queries(n: int, seed: int) -> list[dict]:
    """Short medical search queries whose intent shows in a few characters, skewed 6:3:1."""
    rng = random.Random(seed)
    cues = {"治疗方案": ["怎么治", "如何治疗", "吃什么药好"], "病因分析": ["为什么会", "是什么原因", "怎么引起的"],
            "费用": ["多少钱", "贵不贵", "医保能报吗"]}
    topics = ["胃炎", "高血压", "湿疹", "失眠", "颈椎病", "糖尿病", "鼻炎", "ＨＰＶ"]
    out = []
    for _ in range(n):
        label = rng.choices(list(cues), weights=[6, 3, 1])[0]
        out.append({"text": f"{rng.choice(['请问', '', '医生，'])}{rng.choice(topics)}{rng.choice(cues[label])}"
                            f"{rng.choice(['？', '', '啊'])}", "label": label})
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    texts = [r["text"] for r in _queries(200, 0)]
    weights = char_classifier.class_weights([r["label"] for r in _queries(200, 0)], LABELS)
    return builtin_lm.build_builtin_model("tiny", texts, tmp_path_factory.mktemp("clf") / "tiny", labels=LABELS,
                                 class_weights=weights)


def test_folder_is_ordinary_and_deterministic(folder, tmp_path):
    cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert cfg["model_type"] == char_classifier.MODEL_TYPE and cfg["workbench_builtin"] == "tiny"
    assert [cfg["id2label"][str(i)] for i in range(len(cfg["id2label"]))] == LABELS
    assert cfg["class_weights"][2] > cfg["class_weights"][0]  # the rare label weighs more; 其他 never occurs
    assert {"tokenizer.json", "tokenizer_config.json", "model.safetensors"} <= {p.name for p in folder.iterdir()}
    assert builtin_lm.builtin_size(folder) == "tiny" and families.model_family(cfg) == families.CLASSIFIER_FAMILY
    texts = [r["text"] for r in _queries(200, 0)]
    again = builtin_lm.build_builtin_model("tiny", texts, tmp_path / "again", labels=LABELS,
                                  class_weights=cfg["class_weights"])
    assert (again / "model.safetensors").read_bytes() == (folder / "model.safetensors").read_bytes()
    assert (again / "tokenizer.json").read_bytes() == (folder / "tokenizer.json").read_bytes()
    with pytest.raises(ValueError, match="LoRA"):
        adapters.apply_lora(loading.load_model(folder), families.CLASSIFIER_FAMILY)


def test_character_tokenizer_and_prompt(folder):
    model, tok = loading.load_model_and_tokenizer(folder, for_training=False)
    ids = tok.encode("胃炎ＨＰＶ？", add_special_tokens=False)
    assert len(ids) == 6 and tok.unk_token_id not in ids[:2]
    assert tok.encode("從未見過", add_special_tokens=False) == [tok.unk_token_id] * 4
    system, user_format = examples.prompt_spec(model, "系统提示", "请判断：\n{text}", ["text"])
    assert system is None and user_format == "{text}"
    assert examples.build_prompt(tok, system, "胃炎怎么治") == "胃炎怎么治"  # the text alone, no role markers


def test_batched_pass_matches_one_by_one_and_training_learns(folder):
    model, tok = loading.load_model_and_tokenizer(folder, for_training=True)
    train, test = _queries(300, 1), _queries(60, 2)
    feats = examples.build_classifier_features(tok, train, LABELS, user_format="{text}", max_length=64)
    assert all(isinstance(f["labels"], int) for f in feats)
    collate = examples.DataCollator(tok.pad_token_id)
    opt = paddle.optimizer.Adam(learning_rate=0.02, parameters=model.parameters())
    losses = []
    for epoch in range(6):
        for start in range(0, len(feats), 32):
            batch = collate(feats[start:start + 32])
            loss = model(**batch).loss
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5])
    prompts = [r["text"] for r in test]
    probs = examples.head_probabilities(model, tok, prompts, max_length=64, batch_size=16)
    one = [examples.head_probabilities(model, tok, [p], max_length=64)[0] for p in prompts[:8]]
    assert np.allclose(np.array(probs[:8]), np.array(one), atol=1e-5)  # padding changes nothing
    assert np.allclose(np.array(probs).sum(1), 1.0, atol=1e-5)
    preds = examples.classify(model, tok, prompts, LABELS, max_length=64)
    assert set(preds) <= set(LABELS)
    assert np.mean([p == r["label"] for p, r in zip(preds, test)]) > 0.8


def test_early_stopping_keeps_the_best_weights(tmp_path):
    """A learning rate of ~0 never improves the validation macro-F1: training stops after
    three evaluations without gain, final/ holds the first evaluated weights, 'last' the last."""
    from workbench.engine.training.run_loop import EARLY_STOPPING_PATIENCE

    template = TemplateCatalog().get("medical_triage")
    src = tmp_path / "queries.csv"
    import pandas as pd

    pd.DataFrame(_queries(240, 3)).rename(columns={"text": "主诉", "label": "科室"}).to_csv(src, index=False)
    project, _ = prepare(template, src, tmp_path / "p", labels=LabelChoice(source="data"),
                         split=SplitSettings(train=0.7, val=0.15, test=0.15, seed=0))
    run_dir = train_run(project, "run-es", steps=40, eval_steps=2, batch_size=16, max_length=64,
                        learning_rate=1e-9, warmup_ratio=0.0, seed=1)
    evals = [e for e in read_events(run_dir) if e["event"] == "eval"]
    assert len(evals) == EARLY_STOPPING_PATIENCE + 1 and all("macro_f1" in e["metrics"] for e in evals)
    info = json.loads((run_dir / "final" / "workbench_run.json").read_text(encoding="utf-8"))
    assert all("network_macro_f1" in e["metrics"] for e in evals)
    logs = {e.get("code"): e for e in read_events(run_dir) if e["event"] == "log"}
    assert logs["early_stopping"]["step"] == 8 and logs["early_stopping"]["best_step"] == 2
    assert logs["linear_fit"]["rows"] > 0 and {"preparing_base", "part_scores", "saved_final"} <= set(logs)
    assert info["weights"] == "best" and info["metric"] == "network_macro_f1"  # the part that trains
    assert info["best_step"] == 2 and info["early_stopped_at"] == info["last_step"] == 8
    assert resolve_trained_run(project, "run-es").source == "final"
    assert resolve_trained_run(project, "run-es", "last").source == "checkpoint-8"

"""Training over the project's own vocabulary (engine/training/vocab_cut.py): on real tiny models the
cut model's logits are the full model's at the kept tokens, its loss is the cross entropy over
them, restoring gives back the model as loaded, and a worker run on a large vocabulary cuts,
trains and leaves an adapter of the full vocabulary that generation and export load."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from model_factory import make_model, make_model_folder

pytest.importorskip("paddle")

BIG_VOCAB = 40000  # above vocab_cut.MIN_VOCAB: rows no text of the tiny tokenizer uses


def _features(rng, n=6, length=20, high=300):
    feats = []
    for _ in range(n):
        ids = rng.integers(3, high, size=length).tolist()
        labels = [-100] * 8 + ids[9:] + [2]
        feats.append({"input_ids": ids, "labels": labels[:length]})
    return feats


@pytest.mark.parametrize("family", ["gemma3", "llama"])
def test_a_cut_model_scores_the_kept_tokens_as_the_full_one_and_restores(family):
    import paddle

    from workbench.engine.training import lm_training
    from workbench.engine.models import adapters
    from workbench.engine.training import vocab_cut

    model = adapters.apply_lora(make_model(family, seed=1, vocab_size=BIG_VOCAB), family, r=4, dropout=0.0)
    model.eval()
    assert vocab_cut.can_cut(model, "lora") and not vocab_cut.can_cut(model, "full")
    feats = _features(np.random.default_rng(0))
    ids = paddle.to_tensor([f["input_ids"] for f in feats], dtype="int64")
    with paddle.no_grad():
        full = model(input_ids=ids, return_dict=True).logits.numpy()
    before = model.model.get_input_embeddings().weight.numpy().copy()

    cut = vocab_cut.cut_vocabulary(model, [feats], vocab_cut.special_ids(make_model_tok(family)), reserve=16)
    assert 16 < cut.size < 400 and cut.full_vocab == BIG_VOCAB
    kept = np.asarray(cut.kept)
    cut.apply_to(feats)
    new_ids = paddle.to_tensor([f["input_ids"] for f in feats], dtype="int64")
    labels = paddle.to_tensor([f["labels"] for f in feats], dtype="int64")
    with paddle.no_grad():
        small = model(input_ids=new_ids, return_dict=True).logits.numpy()
    assert small.shape[-1] == cut.size
    np.testing.assert_allclose(small, full[..., kept], rtol=1e-5, atol=1e-5)

    # the loss the trainer sees (answer-only head) is the cross entropy over the kept tokens,
    # with the alignment of labels to logits the criterion itself uses on the full model
    model.train()
    with lm_training.answer_only_loss(model, chunk=8):
        loss = float(model(input_ids=new_ids, labels=labels, return_dict=True).loss)
    cut_labels = np.asarray([f["labels"] for f in feats])
    assert loss == pytest.approx(_cross_entropy(small, cut_labels, shifted=_shifts(family)), rel=1e-5)

    model.eval()
    with cut.full_vocabulary(), paddle.no_grad():  # how evaluations run: the full vocabulary
        np.testing.assert_array_equal(model(input_ids=ids, return_dict=True).logits.numpy(), full)
    with paddle.no_grad():
        assert model(input_ids=new_ids, return_dict=True).logits.shape[-1] == cut.size
    cut.restore()
    with paddle.no_grad():
        again = model(input_ids=ids, return_dict=True).logits.numpy()
    np.testing.assert_array_equal(again, full)
    np.testing.assert_array_equal(model.model.get_input_embeddings().weight.numpy(), before)
    assert model.model.lm_head.weight is model.model.get_input_embeddings().weight


def _cross_entropy(logits, labels, *, shifted: bool) -> float:
    if shifted:  # logits at i predict labels at i + 1
        logits, labels = logits[:, :-1], labels[:, 1:]
    logp = logits - np.log(np.exp(logits.astype(np.float64)).sum(-1, keepdims=True))
    m = labels != -100
    return float(-logp[m, labels[m]].mean())


def _shifts(family) -> bool:
    """Whether the family's criterion shifts labels itself, read off the full model's loss."""
    import paddle

    model = make_model(family, seed=1)
    model.eval()
    feats = _features(np.random.default_rng(5), high=200)
    ids = paddle.to_tensor([f["input_ids"] for f in feats], dtype="int64")
    labels = np.asarray([f["labels"] for f in feats])
    with paddle.no_grad():
        out = model(input_ids=ids, labels=paddle.to_tensor(labels, dtype="int64"), return_dict=True)
    logits = out.logits.numpy()
    return abs(float(out.loss) - _cross_entropy(logits, labels, shifted=True)) < 1e-4


def make_model_tok(family):
    from model_factory import make_tokenizer

    return make_tokenizer(family)


def _wb(*args, timeout=400):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def _qa_project(tmp_path):
    """A Q&A project (the legal template's sample) and a tiny Gemma 3 with a large vocabulary."""
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    t = TemplateCatalog().get("legal_consult_qa")
    project = tmp_path / "qa"
    prepare(t, t.sample_path, project)
    folder = make_model_folder("gemma3", tmp_path / "gemma", layout="hf", vocab_size=BIG_VOCAB)
    return project, folder


@pytest.mark.slow
def test_a_lora_run_on_a_large_vocabulary_cuts_it_and_keeps_the_full_one(tmp_path):
    """Through the worker: the run says how many tokens it trained over, its loss is finite, and
    what it saves is an adapter of the full vocabulary, which the playground generates with."""
    project, folder = _qa_project(tmp_path)
    res = _wb("train", "--project", project, "--base-model", folder, "--max-steps", "2", "--eval-steps", "2",
              "--save-steps", "2", "--logging-steps", "1", "--max-length", "96", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    events = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    cut = [e for e in events if e.get("code") == "vocabulary_cut"]
    assert len(cut) == 1 and cut[0]["full"] == BIG_VOCAB and cut[0]["kept"] < BIG_VOCAB / 2
    losses = [e["loss"] for e in events if e["event"] == "step" and e.get("loss") is not None]
    assert losses and all(np.isfinite(losses))
    assert events[-1]["event"] == "end" and events[-1]["status"] == "completed"
    run = events[-1].get("run_id") or json.loads(_wb("runs", "--project", project, "--json").stdout)["runs"][0]["id"]
    out = _wb("playground", "--project", project, "--run", run, "劳动合同到期不续签有补偿吗？", "--max-new-tokens", "6")
    assert out.returncode == 0, out.stderr[-2000:]

    # the same run with --vocabulary full keeps every row in the loss
    res = _wb("train", "--project", project, "--base-model", folder, "--max-steps", "1", "--eval-steps", "1",
              "--save-steps", "1", "--logging-steps", "1", "--max-length", "96", "--vocabulary", "full", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    assert '"vocabulary_cut"' not in res.stdout


@pytest.mark.slow
def test_a_preference_run_on_a_large_vocabulary_cuts_it_and_judges_with_the_full_one(tmp_path):
    """DPO over the pairs' own tokens: the run says it cut, completes, and its held-out figures
    (judged with the full vocabulary) are the ones `workbench eval` finds for the saved adapter."""
    from workbench.core import feedback

    project, folder = _qa_project(tmp_path)
    res = _wb("train", "--project", project, "--base-model", folder, "--max-steps", "1", "--eval-steps", "1",
              "--save-steps", "1", "--logging-steps", "1", "--max-length", "96", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    first = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")][0]["run"]
    feedback.append(project, [feedback.Judgement(kind="choice", prompt=f"第{i}个问题：劳动合同到期不续签有补偿吗？",
                                                 answers=[f"有，按工作年限{i}个月工资补偿。", "不知道。"], choice="a",
                                                 run=first) for i in range(8)])
    res = _wb("train", "--project", project, "--method", "dpo", "--from-run", first, "--max-steps", "2",
              "--eval-steps", "2", "--save-steps", "2", "--learning-rate", "5e-3", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    events = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    cut = [e for e in events if e.get("code") == "vocabulary_cut"]
    assert len(cut) == 1 and cut[0]["full"] == BIG_VOCAB and cut[0]["kept"] < BIG_VOCAB / 2
    assert events[-1]["event"] == "end" and events[-1]["status"] == "completed"
    after = [e for e in events if e.get("code") == "preference_after"][0]
    run = events[0]["run"]
    res = _wb("eval", "--project", project, "--run", run, "--rows", "2", "--max-new-tokens", "4", "--no-compare-base",
              "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    metrics = json.loads((project / "runs" / run / "eval" / "metrics.json").read_text(encoding="utf-8"))
    tuned = metrics["preference"]["tuned"]
    assert (tuned["preference_accuracy"], tuned["likelihood_accuracy"]) == (
        after["preference_accuracy"], after["likelihood_accuracy"])
    assert abs(tuned["reward_margin"] - after["reward_margin"]) < 1e-3

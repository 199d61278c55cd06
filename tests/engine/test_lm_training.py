"""The answer-only loss and the length-grouped batches of engine/training/lm_training.py, on real tiny
models of every family: the same loss and gradients as the plain forward, and a plain model
outside the block."""

from __future__ import annotations

import numpy as np
import pytest

from model_factory import FAMILIES, make_model

pytest.importorskip("paddle")


def _batch(vocab: int, seed: int = 0):
    import paddle

    rng = np.random.default_rng(seed)
    ids = rng.integers(3, vocab, size=(3, 24))
    labels = np.full_like(ids, -100)
    labels[0, 10:20] = ids[0, 11:21]
    labels[1, 5:23] = ids[1, 6:24]
    labels[2, 20:22] = ids[2, 21:23]
    mask = np.ones_like(ids)
    mask[2, 23:] = 0
    return (paddle.to_tensor(ids, dtype="int64"), paddle.to_tensor(labels, dtype="int64"),
            paddle.to_tensor(mask, dtype="int64"))


def _loss_and_grads(model, ids, labels, mask):
    model.clear_gradients()
    out = model(input_ids=ids, labels=labels, attention_mask=mask, return_dict=True)
    out.loss.backward()
    grads = {n: p.grad.numpy().copy() for n, p in model.named_parameters() if p.grad is not None}
    return float(out.loss), grads


@pytest.mark.parametrize("family", FAMILIES)
def test_answer_only_loss_matches_the_plain_loss(family):
    from workbench.engine.training import lm_training
    from workbench.engine import families
    from workbench.engine.models import adapters

    model = make_model(family, seed=3)
    model.train()
    ids, labels, mask = _batch(model.config.vocab_size)
    plain, plain_grads = _loss_and_grads(model, ids, labels, mask)
    assert lm_training.supports_answer_only_loss(model)
    with lm_training.answer_only_loss(model, chunk=4):  # chunks smaller than the labelled rows
        fast, fast_grads = _loss_and_grads(model, ids, labels, mask)
    assert fast == pytest.approx(plain, rel=1e-5)
    assert set(fast_grads) == set(plain_grads)
    for name, g in plain_grads.items():
        np.testing.assert_allclose(fast_grads[name], g, rtol=2e-4, atol=2e-6, err_msg=name)
    # outside the block the model is an ordinary one again: logits as a tensor
    out = model(input_ids=ids, return_dict=True)
    assert list(out.logits.shape) == [3, 24, model.config.vocab_size]

    lora = adapters.apply_lora(make_model(family, seed=3), family if family in families.FAMILIES else "llama", r=4)
    lora.train()
    base_loss, _ = _loss_and_grads(lora, ids, labels, mask)
    with lm_training.answer_only_loss(lora, chunk=4):
        lora_loss, lora_grads = _loss_and_grads(lora, ids, labels, mask)
    assert lora_loss == pytest.approx(base_loss, rel=1e-5)
    assert lora_grads and all("lora" in n for n in lora_grads)


@pytest.mark.parametrize("family", ["gemma3", "llama"])
def test_recomputed_layers_give_the_same_loss_and_lora_gradients(family):
    """Each decoder layer recomputed in the backward pass: the same loss and LoRA gradients as
    keeping the activations, with the answer-only loss on; evaluation runs the plain forward."""
    from workbench.engine.training import lm_training
    from workbench.engine.models import adapters

    def lora():
        m = adapters.apply_lora(make_model(family, seed=5), family, r=4, dropout=0.0)
        m.train()
        return m

    ids, labels, mask = _batch(make_model(family, seed=5).config.vocab_size, seed=2)
    with lm_training.answer_only_loss(kept := lora()):
        loss, grads = _loss_and_grads(kept, ids, labels, mask)
    again = lora()
    assert lm_training.recompute_layers(again) == again.config.num_hidden_layers
    with lm_training.answer_only_loss(again):
        loss_r, grads_r = _loss_and_grads(again, ids, labels, mask)
    assert loss_r == pytest.approx(loss, rel=1e-6)
    assert grads and set(grads_r) == set(grads)
    for name, g in grads.items():
        np.testing.assert_allclose(grads_r[name], g, rtol=1e-4, atol=1e-7, err_msg=name)
    again.eval()
    kept.eval()
    np.testing.assert_allclose(again(input_ids=ids, return_dict=True).logits.numpy(),
                               kept(input_ids=ids, return_dict=True).logits.numpy(), rtol=1e-5, atol=1e-5)


def test_length_grouped_batches_cover_every_row_once_with_less_padding():
    from workbench.engine.training.lm_training import length_grouped_batches

    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 300, size=1000).tolist()
    batches = length_grouped_batches(lengths, 8, seed=1)
    flat = sorted(i for b in batches for i in b)
    assert flat == list(range(1000))
    assert all(1 <= len(b) <= 8 for b in batches)

    def padding(bs):
        return sum(max(lengths[i] for i in b) * len(b) - sum(lengths[i] for i in b) for b in bs)

    order = rng.permutation(1000).tolist()
    random_batches = [order[i:i + 8] for i in range(0, 1000, 8)]
    assert padding(batches) < 0.2 * padding(random_batches)
    assert length_grouped_batches(lengths, 8, seed=1) == batches
    assert length_grouped_batches(lengths, 8, seed=2) != batches


@pytest.mark.parametrize("family", ["gemma3", "qwen2"])
def test_evaluations_answer_loss_is_the_full_logits_one(family, monkeypatch):
    """The evaluation's answer loss with the head at answer tokens only is the loss over every
    position's logits (what it computed before), on real tiny models."""
    from model_factory import make_tokenizer

    from workbench.engine.evaluation import evaluate as evaluation
    from workbench.engine.training import lm_training

    model = make_model(family, seed=2)
    model.eval()
    tok = make_tokenizer(family)
    records = [{"instruction": f"问题{i}：合同到期怎么办？" * (i % 3 + 1), "output": f"回答{i}：依法处理。" * (i % 2 + 1)}
               for i in range(11)]
    kw = dict(task="instruction", system="", user_format="{instruction}", max_length=64, batch_size=4)
    fused = evaluation.answer_loss(model, tok, records, **kw)
    monkeypatch.setattr(lm_training, "supports_answer_only_loss", lambda m: False)
    plain = evaluation.answer_loss(model, tok, records, **kw)
    assert fused == pytest.approx(plain, rel=1e-5)

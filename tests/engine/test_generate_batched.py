"""Batched generation gives each prompt the answer it gets alone, in every family."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import paddle
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from model_factory import FAMILIES, make_model, make_model_folder  # noqa: E402

from workbench.engine.inference import answers  # noqa: E402
from workbench.engine.models import loading  # noqa: E402
from workbench.engine.models.family_fixes import apply_family_fixes  # noqa: E402
from workbench.engine.inference.generate import (
    GenerationSettings,
    _step,
    generate_batch,
    generate_text,
    stream_ids,
)

# lengths apart by more than Gemma 3's sliding window (4 in the tiny model), one of a single token
LENGTHS = (3, 12, 7, 21, 1, 9)


def _prompts(seed: int = 0) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return [[int(x) for x in rng.integers(3, 400, n)] for n in LENGTHS]


@pytest.fixture(scope="module", params=FAMILIES)
def model(request):
    m = apply_family_fixes(make_model(request.param), request.param)
    m.eval()
    return m


# the default settings in the fast set, for every family; plain greedy and sampling in the slow set
@pytest.mark.parametrize("settings", [GenerationSettings(max_new_tokens=14),
                                      pytest.param(GenerationSettings.plain_greedy(14), marks=pytest.mark.slow),
                                      pytest.param(GenerationSettings(mode="sample", seed=5, max_new_tokens=14),
                                                   marks=pytest.mark.slow)],
                         ids=["guarded", "plain", "sample"])
def test_batch_gives_each_prompt_its_own_answer(model, settings):
    prompts = _prompts()
    plain = [list(stream_ids(model, p, GenerationSettings.plain_greedy(14))) for p in prompts]
    stop = plain[1][4]  # a token one row meets early: that row leaves the batch while others go on
    alone = [list(stream_ids(model, p, settings, stop_ids=[stop])) for p in prompts]
    done = []
    batched = generate_batch(model, prompts, settings, stop_ids=[stop], on_done=lambda i, ids: done.append(i))
    assert batched == alone
    assert sorted(done) == list(range(len(prompts)))
    if settings.mode == "greedy" and settings.repetition_penalty == 1.0:
        lengths = {len(a) for a in alone}
        assert min(lengths) <= 4 < max(lengths) == 14, lengths  # rows finished at different steps


def test_left_padded_rows_see_what_they_see_alone(model):
    """The first step's logits of a left-padded batch match each row alone (Gemma 3: the
    sliding-window mask counts from each row's own tokens, not from the padding)."""
    prompts = _prompts(1)
    width = max(map(len, prompts))
    ids = np.zeros([len(prompts), width], dtype="int64")
    mask = np.zeros_like(ids)
    for b, p in enumerate(prompts):
        ids[b, width - len(p):], mask[b, width - len(p):] = p, 1
    with paddle.no_grad():
        batched, _ = _step(model, ids, mask, np.maximum(np.cumsum(mask, 1) - 1, 0), None)
        for b, p in enumerate(prompts):
            alone, _ = _step(model, [p], np.ones([1, len(p)], dtype="int64"), [list(range(len(p)))], None)
            np.testing.assert_allclose(batched[b], alone[0], atol=1e-4, rtol=1e-4)


def test_step_takes_the_last_position_only_and_leaves_the_model_whole(model):
    ids = _prompts(2)[3]
    with paddle.no_grad():
        full = model(paddle.to_tensor([ids]), use_cache=False, return_dict=True).logits
        last, _ = _step(model, [ids], np.ones([1, len(ids)], dtype="int64"), [list(range(len(ids)))], None)
        again = model(paddle.to_tensor([ids]), use_cache=False, return_dict=True).logits
    assert list(full.shape[:2]) == [1, len(ids)] and list(again.shape[:2]) == [1, len(ids)]  # the hook is gone
    np.testing.assert_allclose(last[0], full[0, -1].numpy(), atol=1e-4, rtol=1e-4)


def test_batch_respects_each_rows_position_limit():
    m = apply_family_fixes(make_model("llama"), "llama")
    m.eval()
    limit = int(m.config.max_position_embeddings)
    prompts = [[5] * (limit - 3), [6, 7, 8], [9] * limit]
    got = generate_batch(m, prompts, GenerationSettings.plain_greedy(10))
    assert [len(g) for g in got] == [3, 10, 0]
    assert got[0] == list(stream_ids(m, prompts[0], GenerationSettings.plain_greedy(10)))


def test_generation_batches_group_similar_lengths_within_the_caps():
    lengths = [50, 3, 40, 4, 300, 5, 41, 2]
    batches = answers.generation_batches(lengths, 20, batch_size=3, max_tokens=200)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert [[lengths[i] for i in b] for b in batches] == [[2, 3, 4], [5, 40, 41], [50], [300]]  # 2 x 320 > 200
    assert answers.generation_batches([], 10) == []


def test_generate_answers_keeps_the_order_and_reports_each_row(tmp_path):
    folder = make_model_folder("gemma3", tmp_path / "gemma3")
    model, tok = loading.load_model_and_tokenizer(folder, for_training=False)
    questions = ["红色", "把下面的颜色翻译成英文：红色 绿色 蓝色", "市场", "问题：什么是贷款利率？回答：",
                 "The quick brown fox", "正面 负面"]
    from workbench.engine import examples

    prompts = [examples.build_prompt(tok, None, q) for q in questions]
    seen = []
    got = answers.generate_answers(model, tok, prompts, max_new_tokens=10, max_length=256, batch_size=4,
                             progress=lambda d, t: seen.append((d, t)))
    settings = GenerationSettings(mode="greedy", max_new_tokens=10)
    want = [generate_text(model, tok, examples.encode_prompt(tok, p), settings) for p in prompts]
    assert got == want and len(set(want)) > 1
    assert seen == [(i, len(prompts)) for i in range(1, len(prompts) + 1)]


@pytest.mark.slow
def test_bench_smoke_runs():
    sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))
    import generate_bench

    assert generate_bench.main(["--smoke"]) == 0


def test_a_row_whose_text_ends_leaves_the_batch_there(model):
    """``stop_when`` (a turn marker written as text) ends a row at the token it names; the
    other rows go on to their budget, each as alone."""
    prompts = _prompts(1)
    settings = GenerationSettings.plain_greedy(10)
    alone = [list(stream_ids(model, p, settings)) for p in prompts]
    marker = alone[2][3]  # stands for the last token of "<user>" in this row's answer

    def written(ids):
        return ids[-1] == marker

    got = generate_batch(model, prompts, settings, stop_when=written)
    for row, full in zip(got, alone):
        cut = full.index(marker) + 1 if marker in full else len(full)
        assert row == full[:cut]
    assert len(got[2]) <= 4 < len(alone[2]) == 10

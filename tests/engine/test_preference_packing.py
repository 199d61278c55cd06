"""A preference pair packed into one row scores each answer as a forward pass over the question and
that answer alone does, for every family (loaded as runs load them), padding included."""

from __future__ import annotations

import pytest

from model_factory import FAMILIES, make_model_folder
from workbench.core.preference import PreferencePair


def _separate(model, tokenizer, system, pair):
    import paddle

    from workbench.engine import examples

    prompt = examples.encode_prompt(tokenizer, examples.build_prompt(tokenizer, system, pair.prompt))
    out = []
    for answer in (pair.chosen, pair.rejected):
        ids = prompt + examples.encode_response(tokenizer, answer)
        with paddle.no_grad():
            logits = model(paddle.to_tensor([ids]), return_dict=True).logits.astype("float32")
        lp = paddle.nn.functional.log_softmax(logits, -1).numpy()[0]
        out.append(sum(float(lp[t - 1, ids[t]]) for t in range(len(prompt), len(ids))))
    return out


@pytest.mark.parametrize("family", FAMILIES)
def test_packed_pairs_score_as_separate_passes(family, tmp_path, monkeypatch):
    """Gemma 3's sliding-window layers mask by distance in the row: within the window (512 in the
    real model; the run caps a row there) a packed row is exact, so the tiny model's window of 4
    is widened here."""
    import model_factory

    monkeypatch.setitem(model_factory.GEMMA3_TINY, "sliding_window", 512)
    from paddleformers.cli.train.dpo.dpo_argument import DPOConfig
    from workbench.engine.models import loading
    from workbench.engine.training.preference import make_criterion, pack_pair, pair_logps

    model, tokenizer = loading.load_model_and_tokenizer(make_model_folder(family, tmp_path / family))
    model.eval()
    model.config.dpo_config = DPOConfig(lora=True)
    criterion = make_criterion(model.config)
    system = "你是银行客服。"
    pairs = [PreferencePair("转账限额是多少？", "单笔限额五万元。", "不知道", "choice"),
             PreferencePair("什么是贷款利率？回答要简短。", "借款的价格", "市场持续下跌，投资者信心不足。", "choice")]
    rows = [pack_pair(tokenizer, system, p, 256) for p in pairs]  # two lengths: the first row is padded
    chosen, rejected = pair_logps(model, rows, criterion, adapter=False)
    for i, pair in enumerate(pairs):
        want = _separate(model, tokenizer, system, pair)
        assert chosen[i] == pytest.approx(want[0], abs=2e-3) and rejected[i] == pytest.approx(want[1], abs=2e-3)


def test_a_row_stays_within_a_sliding_window(tmp_path):
    from workbench.core.jobs import JobSpec
    from workbench.engine.models import loading
    from workbench.engine.training.preference import _max_length

    model = loading.load_model(make_model_folder("gemma3", tmp_path / "g"))
    job = JobSpec(project="p", template="t", task="instruction", method="dpo", from_run="r", max_length=256)
    assert _max_length(model, job) == 4  # the tiny model's window


def test_a_long_pair_is_cut_to_the_length():
    from model_factory import make_tokenizer

    from workbench.engine.training.preference import pack_pair

    tok = make_tokenizer("qwen2")
    pair = PreferencePair("问" * 80, "好" * 60, "坏" * 30, "choice")
    row = pack_pair(tok, None, pair, 64)
    assert len(row["input_ids"]) <= 64
    first, start, end = row["spans"]
    assert end == len(row["input_ids"]) and start - first >= 1 and end - start >= 1
    assert all(c == 0 for c in row["chosen_labels"][start:]) and all(r == 0 for r in row["rejected_labels"][:start])

"""The model layer, tested for real: tiny random models of every family are saved,
loaded, wrapped with LoRA and trained a few steps with PaddleFormers' Trainer."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from model_factory import FAMILIES, make_model, make_model_folder  # noqa: E402

from workbench.engine import examples  # noqa: E402
from workbench.engine.models import loading
from workbench.engine.models import adapters
from workbench.engine.models import sources
from workbench.engine.models import builtin_lm
from workbench.engine import families
from workbench.engine.models import devices  # noqa: E402

loading.set_library_log_level("ERROR")

SYSTEM = "你是一个助手。"
USER_FORMAT = "{instruction}\n{input}"
COLORS = [("红", "red"), ("绿", "green"), ("蓝", "blue"), ("黑", "black"), ("白", "white"), ("黄", "yellow")]
INSTRUCTIONS = [
    {"instruction": "把颜色翻译成英文", "input": f"{zh}色", "output": f"The color is {en}."} for zh, en in COLORS
] * 4
CLS_LABELS = ["正面", "负面"]
CLS_RECORDS = [
    {"text": f"公司利润增长，股价上涨{i}", "label": "正面"} for i in range(6)
] + [
    {"text": f"市场下跌，投资者亏损{i}", "label": "负面"} for i in range(6)
]
PROBE = [[3, 17, 42, 99, 5, 8]]


# ----- helpers -------------------------------------------------------------------------------


def _train(model, tokenizer, tmp_path, *, records=INSTRUCTIONS, task="instruction", user_format=USER_FORMAT,
           steps=15, lr=1e-2, batch_size=4):
    from paddleformers.trainer import Trainer, TrainerCallback, TrainingArguments

    features = examples.build_features(tokenizer, records, task=task, system=SYSTEM, user_format=user_format,
                                max_length=96)
    losses: list[float] = []

    class Record(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs:
                losses.append(float(logs["loss"]))

    args = TrainingArguments(
        output_dir=str(tmp_path / "trainer"), device="cpu", max_steps=steps, per_device_train_batch_size=batch_size,
        learning_rate=lr, warmup_steps=0, logging_steps=1, save_strategy="no", report_to=[], disable_tqdm=True,
        seed=0, weight_decay=0.0,
    )
    trainer = Trainer(model=model, args=args, train_dataset=features,
                      data_collator=examples.DataCollator(tokenizer.pad_token_id), callbacks=[Record()])
    trainer.train()
    return losses


def _assert_falls(losses):
    assert len(losses) >= 6, losses
    first, last = np.mean(losses[:3]), np.mean(losses[-3:])
    assert last < first, f"loss did not fall: {losses}"


def _logits(model, ids=PROBE):
    model.eval()
    with paddle.no_grad():
        return model(paddle.to_tensor(ids), use_cache=False, return_dict=True).logits.numpy()


@pytest.fixture(scope="module")
def builtin_tiny(tmp_path_factory):
    texts = [json.dumps(r, ensure_ascii=False) for r in INSTRUCTIONS + CLS_RECORDS] * 3
    return builtin_lm.build_builtin_model("tiny", texts, tmp_path_factory.mktemp("builtin") / "tiny")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """family/layout -> model folder, built once per module."""
    base = tmp_path_factory.mktemp("models")
    cache: dict[str, object] = {}

    def get(family, layout="paddleformers", bf16=False):
        key = f"{family}-{layout}-{bf16}"
        if key not in cache:
            cache[key] = make_model_folder(family, base / key, layout=layout, bf16=bf16)
        return cache[key]

    return get


# ----- training per family --------------------------------------------------------------------


@pytest.mark.parametrize(
    "family,layout",
    [(f, "paddleformers") for f in FAMILIES] + [(f, "hf") for f in FAMILIES] + [("builtin", None)],
)
def test_lora_training_loss_falls(family, layout, folders, builtin_tiny, tmp_path):
    folder = builtin_tiny if family == "builtin" else folders(family, layout)
    model, tokenizer = loading.load_model_and_tokenizer(folder)
    if layout == "hf":
        expected = {"ernie4_5": "LlamaTokenizer", "llama": "LlamaTokenizerFast",
                    "gemma3": "GemmaTokenizerFast"}.get(family, "Qwen2TokenizerFast")
        assert type(tokenizer).__name__ == expected
    fam = families.model_family(model.config)
    assert fam == ("llama" if family == "builtin" else family)
    assert model.config.fuse_rms_norm is False
    lora = adapters.apply_lora(model, fam, r=8, alpha=16, dropout=0.0)
    trainable, total = loading.count_parameters(lora)
    assert 0 < trainable < total
    names = [n for n, p in lora.named_parameters() if not p.stop_gradient]
    assert names and all("lora" in n for n in names)
    assert any("q_proj" in n for n in names) and any("o_proj" in n for n in names)
    _assert_falls(_train(lora, tokenizer, tmp_path))


def test_full_finetune_loss_falls(folders, tmp_path):
    model, tokenizer = loading.load_model_and_tokenizer(folders("qwen2"))
    trainable, total = loading.count_parameters(model)
    assert trainable == total
    _assert_falls(_train(model, tokenizer, tmp_path, lr=3e-3))


# ----- loading: layouts, families, errors --------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_hf_layout_converted_on_load(family, folders):
    from workbench.engine.models.family_fixes import apply_family_fixes

    expected = _logits(apply_family_fixes(make_model(family), family))  # load_model applies the fixes
    for layout in ("hf", "paddle", "paddleformers"):
        model = loading.load_model(folders(family, layout), for_training=False)
        np.testing.assert_allclose(_logits(model), expected, atol=1e-5, err_msg=layout)


def test_hf_bfloat16_weights_load_as_float32(folders):
    model = loading.load_model(folders("qwen2", "hf", bf16=True), dtype="float32", for_training=False)
    assert model.lm_head.weight.dtype == paddle.float32
    expected = _logits(make_model("qwen2"))
    assert np.abs(_logits(model) - expected).max() < 0.1


def test_loading_does_not_write_into_the_model_folder(folders):
    folder = folders("llama", "hf")
    before = sorted(p.name for p in folder.iterdir())
    loading.load_model(folder)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_model_family_and_targets():
    assert families.model_family({"model_type": "ernie4_5"}) == "ernie4_5"
    assert families.model_family({"architectures": ["Qwen3ForCausalLM"]}) == "qwen3"
    with pytest.raises(families.ModelLoadError, match="not supported"):
        families.model_family({"model_type": "bert"})
    for fam in FAMILIES:
        assert any("q_proj" in t for t in adapters.lora_target_modules(fam))


def test_pickle_weights_refused(tmp_path):
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x04not really")
    with pytest.raises(families.ModelLoadError, match="pickle"):
        loading.load_model(folder)
    assert loading.check_model_folder(folder, allow_pickle=True)["model_type"] == "llama"


def test_missing_weights_detected(tmp_path, folders):
    from safetensors.numpy import load_file, save_file

    folder = tmp_path / "partial"
    src = folders("qwen2", "hf")
    folder.mkdir()
    for f in src.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    state = load_file(str(folder / "model.safetensors"))
    state.pop("model.layers.1.mlp.down_proj.weight")
    save_file(state, str(folder / "model.safetensors"), metadata={"format": "pt"})
    with pytest.raises(families.ModelLoadError, match="down_proj"):
        loading.load_model(folder)


def test_clear_errors_for_bad_folders(tmp_path):
    with pytest.raises(families.ModelLoadError, match="does not exist"):
        loading.load_model(tmp_path / "nope")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(families.ModelLoadError, match="config.json"):
        loading.load_model(empty)
    (empty / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    with pytest.raises(families.ModelLoadError, match="no weights"):
        loading.load_model(empty)
    with pytest.raises(families.ModelLoadError, match="tokenizer"):
        loading.load_tokenizer(empty)


def test_model_id_offline_fails_fast(monkeypatch):
    monkeypatch.setattr(sources, "hub_reachable", lambda hub="huggingface", timeout=3.0: False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(families.ModelLoadError, match="offline.*workbench models add.*workbench models get gemma-3-270m"):
        loading.load_model("someorg/some-model-that-is-not-here")
    assert time.monotonic() - start < 30


def test_hub_probe_gives_up_quickly(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    assert sources.hub_reachable("huggingface", timeout=1.0) is False


# ----- built-in model ------------------------------------------------------------------------------


def test_builtin_folder_is_ordinary_and_deterministic(builtin_tiny, tmp_path):
    cfg = json.loads((builtin_tiny / "config.json").read_text())
    assert cfg["workbench_builtin"] == "tiny" and cfg["model_type"] == "llama"
    assert "fuse_rms_norm" not in cfg
    assert {"tokenizer.json", "tokenizer_config.json", "model.safetensors"} <= {p.name for p in builtin_tiny.iterdir()}
    assert builtin_lm.builtin_size(builtin_tiny) == "tiny"
    texts = [json.dumps(r, ensure_ascii=False) for r in INSTRUCTIONS + CLS_RECORDS] * 3
    again = builtin_lm.build_builtin_model("tiny", texts, tmp_path / "again")
    assert (again / "tokenizer.json").read_bytes() == (builtin_tiny / "tokenizer.json").read_bytes()
    assert (again / "model.safetensors").read_bytes() == (builtin_tiny / "model.safetensors").read_bytes()
    tok = loading.load_tokenizer(builtin_tiny)
    assert tok.decode(tok.encode("利润增长 ok", add_special_tokens=False)) == "利润增长 ok"


# ----- features, collator, classification ------------------------------------------------------------


@pytest.mark.parametrize("family", ["qwen2", "ernie4_5", "llama"])
def test_prompt_tokens_are_masked(family, folders):
    tok = loading.load_tokenizer(folders(family))
    prompt = examples.build_prompt(tok, SYSTEM, "把颜色翻译成英文\n红色")
    if family == "llama":  # no chat template: the plain fallback
        assert prompt.endswith("<assistant>\n") and prompt.startswith("<system>\n")
    feat = examples.encode_example(tok, prompt, "The color is red.", max_length=256)
    p_ids = examples.encode_prompt(tok, prompt)
    r_ids = examples.encode_response(tok, "The color is red.")
    assert feat["input_ids"] == p_ids + r_ids
    assert r_ids[-1] == tok.eos_token_id
    n = len(p_ids)
    assert all(x == examples.IGNORE_INDEX for x in feat["labels"][: n - 1])
    assert feat["labels"][n - 1: -1] == r_ids and feat["labels"][-1] == examples.IGNORE_INDEX
    if tok.bos_token_id is not None:
        assert feat["input_ids"].count(tok.bos_token_id) == 1 and feat["input_ids"][0] == tok.bos_token_id


def test_truncation_cuts_prompt_first_and_keeps_response(folders):
    tok = loading.load_tokenizer(folders("qwen2"))
    prompt = examples.build_prompt(tok, SYSTEM, "很长的新闻。" * 200)
    feat = examples.encode_example(tok, prompt, "正面", max_length=64)
    assert len(feat["input_ids"]) == len(feat["labels"]) == 64
    r_ids = examples.encode_response(tok, "正面")
    assert feat["input_ids"][-len(r_ids):] == r_ids
    assert feat["input_ids"][-len(r_ids) - 3: -len(r_ids)] == examples.encode_prompt(tok, prompt)[-3:]
    long = examples.encode_example(tok, examples.build_prompt(tok, None, "短"), "长回答" * 200, max_length=64)
    assert len(long["input_ids"]) == 64 and sum(x != examples.IGNORE_INDEX for x in long["labels"]) > 16


def test_collator_pads_dynamically():
    coll = examples.DataCollator(pad_token_id=0)
    batch = coll([{"input_ids": [5, 6, 7], "labels": [6, 7, -100]}, {"input_ids": [9], "labels": [-100]}])
    assert batch["input_ids"].shape == [2, 3]
    assert batch["input_ids"].numpy().tolist() == [[5, 6, 7], [9, 0, 0]]
    assert batch["labels"].numpy().tolist() == [[6, 7, -100], [-100, -100, -100]]
    assert batch["attention_mask"].numpy().tolist() == [[1, 1, 1], [1, 0, 0]]


def test_classify_learns_labels_and_stays_in_label_set(builtin_tiny, tmp_path):
    model, tok = loading.load_model_and_tokenizer(builtin_tiny)
    user_format = "请判断以下财经新闻的情感倾向：\n{text}"
    prompts = examples.build_prompts(tok, CLS_RECORDS, system=SYSTEM, user_format=user_format)
    before = examples.classify(model, tok, prompts, CLS_LABELS, batch_size=8)
    assert set(before) <= set(CLS_LABELS)
    losses = _train(model, tok, tmp_path, records=CLS_RECORDS * 2, task="classification",
                    user_format=user_format, steps=30, lr=3e-3)
    _assert_falls(losses)
    preds = examples.classify(model, tok, prompts, CLS_LABELS, batch_size=5)
    # padding in a batch must not change a sequence's score
    one = examples.label_log_likelihoods(model, tok, prompts[:3], CLS_LABELS + ["中性偏正面"], batch_size=1)
    many = examples.label_log_likelihoods(model, tok, prompts[:3], CLS_LABELS + ["中性偏正面"], batch_size=7)
    np.testing.assert_allclose(one, many, atol=1e-4)
    assert set(preds) <= set(CLS_LABELS)
    metrics = examples.classification_metrics([r["label"] for r in CLS_RECORDS], preds, CLS_LABELS)
    assert metrics["accuracy"] >= 0.9, (preds, losses)
    assert 0.0 <= metrics["macro_f1"] <= 1.0 and len(metrics["confusion"]) == 2


def test_classification_metrics():
    m = examples.classification_metrics(["a", "a", "b", "b"], ["a", "b", "b", "b"], ["a", "b"])
    assert m["accuracy"] == 0.75
    assert abs(m["macro_f1"] - (2 / 3 + 0.8) / 2) < 1e-9
    assert m["confusion"] == [[1, 1], [0, 2]]


# ----- LoRA merge and save ---------------------------------------------------------------------------


def test_merge_lora_and_save_roundtrip(folders, tmp_path):
    model, tok = loading.load_model_and_tokenizer(folders("ernie4_5"))
    lora = adapters.apply_lora(model, "ernie4_5", r=4, alpha=8, dropout=0.0)
    _train(lora, tok, tmp_path, steps=5)
    lora_logits = _logits(lora)
    adapter = adapters.save_lora_adapter(lora, tmp_path / "adapter")
    assert (adapter / "lora_config.json").is_file()
    merged = adapters.merge_lora(lora)
    assert not adapters.is_lora(merged)
    np.testing.assert_allclose(_logits(merged), lora_logits, atol=1e-4)
    out = loading.save_model(merged, tok, tmp_path / "merged")
    assert (out / "model.safetensors").is_file()
    reloaded = loading.load_model(out, for_training=False)
    np.testing.assert_allclose(_logits(reloaded), lora_logits, atol=1e-4)
    base = loading.load_model(folders("ernie4_5"), for_training=False)
    with_adapter = adapters.load_lora_adapter(base, adapter)
    np.testing.assert_allclose(_logits(with_adapter), lora_logits, atol=1e-4)


# ----- devices and quantisation -----------------------------------------------------------------------


def test_devices():
    info = devices.describe_device()
    assert "cpu" in info["available"] and isinstance(info["custom_types"], list)
    assert devices.select_device("cpu") == "cpu"
    with pytest.raises(Exception, match="not available"):
        devices.select_device("gpu:7" if "gpu:7" not in info["available"] else "xpu:99")


def test_quantization_is_refused_honestly_on_cpu(folders):
    ok, reason = devices.quantization_support("cpu")
    assert ok is False and "CPU" in reason
    with pytest.raises(families.ModelLoadError, match="CPU"):
        loading.load_model(folders("qwen2"), dtype="bfloat16", quantization="weight_only_int8", device="cpu")

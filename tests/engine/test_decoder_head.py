"""A classification head on a pretrained decoder (engine/models/decoder_head.py), for real: tiny
Gemma 3 and Llama models trained a few steps through the worker's training function on a
user's own intents file, loaded back, evaluated, exported and refused where it has no form."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.cli import main as cli_main
from workbench.core.operations import runs as run_operations
from workbench.core.errors import WorkbenchError
from workbench.core.operations.export import gguf_refusal
from workbench.core.project import Project

sys.path.insert(0, str(Path(__file__).parents[1]))
from model_factory import make_model_folder  # noqa: E402
from trained_factory import train_run  # noqa: E402

# a hospital's own service intents (not a template's labels), phrased many ways, with the
# messiness of a real export: stray spaces, full-width punctuation, a repeated row
INTENTS = {
    "预约挂号": ["我想挂{d}的号", "明天{d}还有号吗", "怎么预约{d}专家", "帮我约一下{d}", "{d}挂号在哪里"],
    "报告查询": ["{d}的检查报告出来了吗", "怎么查{d}化验结果", "报告单在哪里打印", "{d}报告什么时候能拿"],
    "费用退还": ["{d}的挂号费能退吗", "多交的钱怎么退", "退费要带什么材料", "{d}检查没做能退款吗"],
}
DEPTS = ["心内科", "消化科", "儿科", "皮肤科", "眼科", "骨科"]


def intents_csv(path: Path, n: int = 150, seed: int = 0, multi: bool = False) -> Path:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        label = rng.choice(sorted(INTENTS))
        text = rng.choice(INTENTS[label]).format(d=rng.choice(DEPTS))
        if multi and rng.random() < 0.3:  # a second request in the same message
            other = rng.choice([x for x in sorted(INTENTS) if x != label])
            text += "，另外" + rng.choice(INTENTS[other]).format(d=rng.choice(DEPTS))
            label = f"{label};{other}"
        text = (" " if i % 7 == 0 else "") + text + ("？" if i % 3 else "?") + f"（{i}号窗口）"
        rows.append((text, label))
    rows.append(rows[0])
    with open(path, "w", encoding="utf-8-sig", newline="") as fh:
        fh.write("咨询内容,意图\n")
        fh.writelines(f"{t},{lab}\n" for t, lab in rows)
    return path


def make_project(tmp: Path, multi: bool = False) -> Project:
    args = ["data", "prepare", "--template", "medical_triage", "--input", str(intents_csv(tmp / "in.csv", multi=multi)),
            "--project", str(tmp / "project"), "--mapping", "text=咨询内容", "label=意图", "--labels", "from-data"]
    if multi:
        args += ["--multi-label", "--label-sep", ";"]
    assert cli_main(args) == 0
    return Project.open(tmp / "project")


@pytest.fixture(scope="module")
def gemma_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("head")
    project = make_project(tmp)
    base = make_model_folder("gemma3", tmp / "gemma", layout="hf")
    run = train_run(project, "run-head", steps=6, base_model=str(base), method="lora", head=True,
                    learning_rate=2e-3, save_steps=3, eval_steps=3)
    return project, base, run


def test_a_pretrained_classifier_trains_a_head_by_default(tmp_path):
    project = make_project(tmp_path)
    base = make_model_folder("llama", tmp_path / "llama", layout="hf")
    job = run_operations.build_job(project, str(base))
    # started from the frozen model (docs/models.md: the first stage has not lost to LoRA alone)
    assert job.head is True and job.method == "lora" and job.head_features and job.head_linear
    assert job.head_pooling == "mean" and job.head_depth == 0.5
    assert run_operations.build_job(project, "builtin:tiny").head is False  # the built-in classifier is a head already
    assert run_operations.build_job(project, str(base), head=False).head is False  # the label-writing route, asked for
    # the command line asks for the same through the real parser
    args = ["train", "--project", str(project.root), "--base-model", str(base), "--classify-by", "label-text"]
    from workbench.cli import build_parser

    parsed = build_parser().parse_args(args)
    assert parsed.classify_by == "label-text"
    # the head reads the text alone: no system prompt and no label names in its estimate, so its
    # steps are shorter (its evaluations and start are counted as measured on the head's runs)
    _, head_rec = run_operations.recommended_settings(project, str(base), "lora")
    _, text_rec = run_operations.recommended_settings(project, str(base), "lora", head=False)
    assert head_rec.max_length <= text_rec.max_length and head_rec.epoch_seconds < text_rec.epoch_seconds


def test_the_head_run_loads_back_as_the_model_that_trained(gemma_run):
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.models import char_classifier
    from workbench.engine import examples
    from workbench.engine.models import decoder_head
    from workbench.engine.inference.trained import load_trained

    project, _, run = gemma_run
    events = [json.loads(x) for x in (run / "events.jsonl").read_text("utf-8").splitlines()]
    evals = [e for e in events if e["event"] == "eval"]
    assert evals and {"accuracy", "macro_f1"} <= set(evals[-1]["metrics"])
    assert "perplexity" not in evals[-1]["metrics"]  # a loss over labels, not tokens
    start = next(e for e in events if e["event"] == "start")
    # LoRA trains the adapters and the head, nothing else
    assert start["classifier"] and 0 < start["trainable_params"] < start["total_params"] / 5
    labels = project.task.labels
    records = examples.read_jsonl(project.split_path("test"))[:12]
    for checkpoint in ("best", "last"):
        trained = resolve_trained_run(project, run.name, checkpoint)
        model, tokenizer = load_trained(trained)  # refuses weights that do not give the run's probe again
        assert decoder_head.is_head(model) and char_classifier.is_classifier(model) and model.config.num_labels == len(labels)
        prompts = examples.build_prompts(tokenizer, records, system=None, user_format="{text}")
        assert prompts[0] == records[0]["text"]  # the text alone, no chat turn
        batched = np.array(examples.head_probabilities(model, tokenizer, prompts, max_length=128))
        alone = np.array([examples.head_probabilities(model, tokenizer, [p], max_length=128)[0] for p in prompts])
        assert np.allclose(batched.sum(axis=1), 1.0, atol=1e-5)
        assert np.abs(batched - alone).max() < 1e-5  # padding changes nothing
    # the checkpoint written mid-run holds the adapters and the head only
    ckpt = run / "checkpoints" / "checkpoint-3"
    assert sum(f.stat().st_size for f in ckpt.rglob("*") if f.is_file()) < 2_000_000


def test_evaluation_answers_the_project_labels(gemma_run, capsys):
    project, _, run = gemma_run
    # the untuned decoder has no head: no comparison by default, and asking for one says why
    assert cli_main(["eval", "--project", str(project.root), "--run", run.name, "--compare-base", "--json"]) == 2
    assert "classification head is trained from scratch" in capsys.readouterr().err
    assert cli_main(["eval", "--project", str(project.root), "--run", run.name, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["base"] is None
    m = result["metrics"]
    assert m["labels"] == project.task.labels and 0.0 <= m["macro_f1"] <= 1.0
    with open(run / "eval" / "predictions.csv", encoding="utf-8-sig") as fh:
        header = fh.readline()
    assert all(lab in header for lab in project.task.labels)  # a probability per label


def test_gguf_is_refused_before_anything_is_loaded(gemma_run):
    from workbench.engine.export.bundle import export_run

    project, _, run = gemma_run
    assert gguf_refusal("/models/x", "classification", head=True) == "head"
    assert gguf_refusal("/models/x", "classification", head=False) is None
    assert gguf_refusal("/models/x", "instruction", head=False) is None
    with pytest.raises(WorkbenchError, match="classification head has no GGUF form"):
        export_run(project.root, run.name, project.root / "exports" / "g", formats=["gguf"], evaluate=False)
    assert not (project.root / "exports" / "g").exists()


def test_full_fine_tuning_saves_a_head_model_folder(tmp_path):
    from workbench.engine.models import decoder_head
    from workbench.engine import families
    from workbench.engine.models import loading

    project = make_project(tmp_path)
    base = make_model_folder("llama", tmp_path / "llama")
    run = train_run(project, "run-full", steps=4, base_model=str(base), method="full", head=True,
                    head_pooling="mean", learning_rate=1e-3)
    cfg = json.loads((run / "final" / "config.json").read_text("utf-8"))
    assert cfg["model_type"] == decoder_head.MODEL_TYPE and cfg["pooling"] == "mean" and cfg["decoder_family"] == "llama"
    model = loading.load_model(run / "final", for_training=False)
    assert decoder_head.is_head(model) and families.model_family(model.config) == "llama"


def test_a_multi_label_project_trains_a_pretrained_head(tmp_path, capsys):
    project = make_project(tmp_path, multi=True)
    assert project.task.multi_label
    base = make_model_folder("llama", tmp_path / "llama", layout="hf")
    job = run_operations.build_job(project, str(base))
    assert job.head
    with pytest.raises(run_operations.MultiLabelNeedsBuiltin):  # writing a label set as text is not offered
        run_operations.build_job(project, str(base), head=False)
    run = train_run(project, "run-ml", steps=4, base_model=str(base), method="lora", head=True, learning_rate=2e-3)
    assert cli_main(["eval", "--project", str(project.root), "--run", run.name, "--no-compare-base", "--json"]) == 0
    m = json.loads(capsys.readouterr().out.splitlines()[-1])["metrics"]
    assert m["multi_label"] and set(m["per_class"]) == set(project.task.labels)


@pytest.mark.slow  # an exported bundle run by predict.py and served over HTTP
def test_the_exported_head_predicts_and_serves_as_the_evaluation(gemma_run, tmp_path):
    from test_serve import Service, predict_py

    from workbench.engine import examples
    from workbench.engine.export.bundle import export_run

    project, _, run = gemma_run
    out = tmp_path / "bundle"
    export_run(project.root, run.name, out, formats=["static", "onnx", "merged"], evaluate=False, parity_rows=8)
    bundle = json.loads((out / "bundle.json").read_text("utf-8"))
    assert bundle["labels"] == project.task.labels and bundle["checks"]["static"]["status"] == "ok"
    assert bundle["checks"]["onnx"]["status"] == "ok" and bundle["checks"]["merged"]["status"] == "ok"
    assert not (out / "gguf").exists()
    merged = json.loads((out / "merged" / "config.json").read_text("utf-8"))
    assert merged["model_type"] == "workbench_decoder_classifier"  # the head beside the weights
    assert "classification head on a pretrained language model" in (out / "README.md").read_text("utf-8")

    texts = [r["text"] for r in examples.read_jsonl(project.split_path("test"))[:6]]
    rows = predict_py(out, [{"咨询内容": t} for t in texts], tmp_path)
    assert all(r["prediction"] in project.task.labels for r in rows)
    for r in rows:
        assert sum(float(r[f"p_{lab}"]) for lab in project.task.labels) == pytest.approx(1.0, abs=1e-4)
    with Service(out) as svc:
        status, got = svc.json("POST", "/predict", {"inputs": texts})
        assert status == 200
        assert [p["label"] for p in got["predictions"]] == [r["prediction"] for r in rows]
        for p, r in zip(got["predictions"], rows):
            for label, prob in p["probabilities"].items():
                assert prob == pytest.approx(float(r[f"p_{label}"]), abs=1e-5)


GEMMA_270M_SHAPE = {"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "hidden_size": 640,
                    "num_hidden_layers": 18, "vocab_size": 262144, "intermediate_size": 2048,
                    "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256}


def test_the_recommendation_says_what_the_head_measured_before_a_run_on_this_processor(tmp_path):
    """Measured on four public sets on 2 cores, the head beat builtin:small on question pairs and
    matched it on the others at 10-30 times its time: every head run on the processor says so
    before it starts, and one that cannot read the training rows once says how much it reads; a
    GPU's run says neither."""
    from workbench.core.recommend import HEAD_NOTE_START, head_note, recommend
    from workbench.core.templates import TemplateCatalog

    folder = tmp_path / "gemma-shape"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(GEMMA_270M_SHAPE), encoding="utf-8")
    template = TemplateCatalog().get("medical_triage")

    def stats(rows):
        return {"splits": {"train": rows, "val": rows // 10}, "rows_clean": rows, "text_chars": {"p95": 30, "mean": 15}}

    def said(rec):  # whether the head pays, and at what time against builtin:small's run
        notes = [n for n in rec.notes if n.startswith(HEAD_NOTE_START)]
        if rec.builtin_seconds is None:
            return bool(notes)
        assert notes == [head_note("lora", rec.est_seconds, rec.builtin_seconds)]
        assert rec.builtin_seconds < rec.est_seconds
        return True

    def part_read(rec):
        return any(n.startswith("One pass over the training rows") for n in rec.notes)

    big = recommend(template, stats(60000), "cpu", str(folder), "lora", time_budget_min=10, head=True)
    assert big.epochs < 1 and said(big) and part_read(big)
    small = recommend(template, stats(300), "cpu", str(folder), "lora", time_budget_min=30, head=True)
    assert small.epochs >= 1 and said(small) and not part_read(small)
    gpu = recommend(template, stats(60000), "gpu", str(folder), "lora", time_budget_min=10, head=True)
    assert not said(gpu)  # a server's GPU: not what was measured
    builtin = recommend(template, stats(60000), "cpu", "builtin:small", time_budget_min=10)
    assert not said(builtin)
    # the head's rows are the text alone: shorter than the label-writing route's prompt and label
    text = recommend(template, stats(60000), "cpu", str(folder), "lora", time_budget_min=10, head=False)
    assert big.max_length < text.max_length and not said(text)


def test_early_stopping_waits_for_one_pass_when_evaluations_read_a_sample(tmp_path):
    """Each evaluation of a pretrained model on a CPU reads a sample of the validation rows (64):
    seen on CPED's dialogue acts, macro-F1 over 19 labels on them stopped a Gemma 3 head at 0.39
    of an epoch. A learning rate of ~0 never improves the metric: with a sample, training goes
    on to one pass over the training rows first; reading every validation row, it stops as before."""
    from workbench.core.runs import read_events
    from workbench.engine.training.run_loop import EARLY_STOPPING_PATIENCE

    project = make_project(tmp_path)
    base = make_model_folder("llama", tmp_path / "llama", layout="hf")
    kw = dict(steps=40, base_model=str(base), method="lora", head=True, learning_rate=1e-9, warmup_ratio=0.0,
              eval_steps=1, save_steps=1000, batch_size=16)
    sampled = train_run(project, "run-sampled", eval_rows=4, **kw)
    stop = [e for e in read_events(sampled) if e.get("code") == "early_stopping"]
    steps = [e for e in read_events(sampled) if e["event"] == "step"]
    assert stop and stop[0]["step"] > EARLY_STOPPING_PATIENCE + 1
    assert next(e["epoch"] for e in steps if e["step"] == stop[0]["step"]) >= 1.0
    whole = train_run(project, "run-whole", **kw)  # every validation row: stopping needs no pass first
    stop = [e for e in read_events(whole) if e.get("code") == "early_stopping"]
    assert stop and stop[0]["step"] == EARLY_STOPPING_PATIENCE + 1


def test_a_heads_validation_sample_holds_every_label():
    """Seen on CPED's dialogue acts: the first 64 of 1,035 validation rows held 10 of the 19 acts,
    and macro-F1 over them (which picks the best checkpoint) could not see the rest."""
    from workbench.engine.examples import spread_over_labels

    labels = ["statement"] * 90 + ["question"] * 6 + ["thanking", "greeting", "thanking", "apology"]
    import random

    random.Random(0).shuffle(labels)
    picked = spread_over_labels(labels, 12)
    assert len(picked) == 12 and picked == sorted(set(picked))
    assert {labels[i] for i in picked} == set(labels)
    assert sum(labels[i] == "thanking" for i in picked) == 2  # each label in turn, while it has rows
    assert spread_over_labels(labels[:5], 64) == list(range(5))  # fewer rows than asked: all of them

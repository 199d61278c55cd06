"""Evaluation and export, for real: short training runs of the built-in tiny model,
LoRA runs on tiny models of every family, bundles checked against the trained model,
and the bundle's predict.py run in a process that cannot import the workbench."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # real training runs, exports loaded back and run: `make test-slow`


paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from model_factory import FAMILIES, make_model_folder  # noqa: E402

from workbench.cli import main as cli_main  # noqa: E402
from workbench.core.errors import WorkbenchError  # noqa: E402
from trained_factory import train_run  # noqa: E402
from workbench.core.jobs import JobSpec, write_job  # noqa: E402
from workbench.core.project import Project, SplitSettings, prepare  # noqa: E402
from workbench.core.runs import EventWriter, write_pid  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.core.trained import resolve_trained_run  # noqa: E402
from workbench.engine import examples  # noqa: E402
from workbench.engine.models import loading
from workbench.engine import families
from workbench.engine.models import adapters  # noqa: E402

loading.set_library_log_level("ERROR")

CLS, INST = "finance_sentiment", "finance_service_qa"


# ----- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    """A prepared classification and instruction project (the templates' sample data)."""
    catalog = TemplateCatalog()
    base = tmp_path_factory.mktemp("projects")
    out = {}
    for tid in (CLS, INST):
        template = catalog.get(tid)
        project, _ = prepare(template, template.sample_path, base / tid,
                             split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
        # a shorter test split keeps generation quick
        test = examples.read_jsonl(project.split_path("test"))[:24]
        # shortened in the current copy and in the data version the runs record (they read that)
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in test)
        for path in (project.split_path("test"), project.at_version(project.config.data_version).split_path("test")):
            path.write_text(text, encoding="utf-8")
        out[tid] = project
    return out


def _train(project: Project, *, base_model: str, method: str, steps: int = 4, save_steps: int = 2) -> Path:
    return train_run(project, f"run-{method}-{Path(base_model).name.replace(':', '-')}", steps=steps,
                     save_steps=save_steps, base_model=base_model, method=method)


@pytest.fixture(scope="module")
def runs(projects):
    """Real short runs: built-in tiny (full) for both tasks, and a LoRA run on a tiny Qwen2."""
    return {
        "cls": _train(projects[CLS], base_model="builtin:tiny", method="full"),
        "inst": _train(projects[INST], base_model="builtin:tiny", method="full"),
    }


@pytest.fixture(scope="module")
def family_folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("families")
    return {f: make_model_folder(f, base / f) for f in FAMILIES}


def _fake_lora_run(project: Project, folder: Path, name: str, seed: int = 0) -> Path:
    """A completed LoRA run made without the trainer: the adapter's B matrices are set to
    random values so that merging changes the weights."""
    template = TemplateCatalog().get(project.config.template)
    job = JobSpec(project=str(project.root), template=template.id, task=template.task.value,
                  base_model=str(folder), method="lora", max_steps=1, max_length=96, device="cpu")
    run_dir = project.runs_dir / name
    write_job(run_dir, job)
    model, tokenizer = loading.load_model_and_tokenizer(folder, for_training=False)
    family = families.model_family(model.config)
    lora = adapters.apply_lora(model, family, r=4, alpha=8, dropout=0.0)
    rng = np.random.default_rng(seed)
    for pname, p in lora.named_parameters():
        if "lora_B" in pname:
            p.set_value(rng.normal(0, 0.05, p.shape).astype("float32"))
    final = run_dir / "final"
    adapters.save_lora_adapter(lora, final)
    tokenizer.save_pretrained(str(final))
    (final / "workbench_run.json").write_text(json.dumps({
        "base_model_path": str(folder), "base_model": str(folder), "method": "lora", "family": family,
        "template": template.id, "task": template.task.value}), encoding="utf-8")
    events = EventWriter(run_dir)
    events.emit("start", total_steps=1)
    events.emit("end", status="completed", error=None)
    events.close()
    return run_dir


def _isolated_env() -> dict[str, str]:
    """An environment whose Python finds paddle, tokenizers and numpy but not the workbench:
    ``python -S`` skips site processing (so no editable-install hook), and PYTHONPATH
    lists the plain site-packages folders."""
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _run_isolated(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", *args], cwd=cwd, env=_isolated_env(), capture_output=True,
                          text=True, timeout=300)


# ----- resolving runs -----------------------------------------------------------------------------


def test_bad_runs_are_refused_with_clear_messages(projects, tmp_path):
    project = projects[CLS]
    with pytest.raises(WorkbenchError, match="does not exist"):
        resolve_trained_run(project, "no-such-run")
    template = TemplateCatalog().get(CLS)
    job = JobSpec(project=str(project.root), template=CLS, task="classification", base_model="builtin:tiny")
    running = project.runs_dir / "run-running"
    write_job(running, job)
    EventWriter(running).emit("start", total_steps=10)
    write_pid(running, os.getpid())  # this test process plays the live worker
    with pytest.raises(WorkbenchError, match="still training"):
        resolve_trained_run(project, "run-running")
    crashed = project.runs_dir / "run-crashed"
    write_job(crashed, job)
    EventWriter(crashed).emit("start", total_steps=10)
    with pytest.raises(WorkbenchError, match="before saving a checkpoint"):
        resolve_trained_run(project, "run-crashed")
    assert template.task.value == "classification"

    # the same through the command line: one paragraph on stderr, exit 2
    for argv, pattern in (
        (["eval", "--project", str(project.root), "--run", "nope"], "does not exist"),
        (["eval", "--project", str(project.root), "--run", "run-running"], "still training"),
        (["export", "--project", str(project.root), "--run", "run-crashed", "--out", str(tmp_path / "x")],
         "before saving a checkpoint"),
    ):
        assert cli_main(argv) == 2
    shutil.rmtree(running)
    shutil.rmtree(crashed)


# ----- evaluation -----------------------------------------------------------------------------------


def test_evaluate_classification_run(projects, runs, capsys):
    project = projects[CLS]
    run = runs["cls"].name
    # the built-in model starts untrained: its base answers at random, so it is not compared
    assert cli_main(["eval", "--project", str(project.root), "--run", run, "--compare-base", "--json"]) == 2
    assert "starts untrained" in capsys.readouterr().err
    assert cli_main(["eval", "--project", str(project.root), "--run", run, "--json"]) == 0
    *lines, last = capsys.readouterr().out.splitlines()
    out = json.loads(last)
    progress = [json.loads(line) for line in lines]  # every line before the result reports progress
    # loading the model and writing the report are named stages of unknown length (total 1)
    assert list(dict.fromkeys(p["stage"] for p in progress)) == ["load", "fine-tuned", "baseline", "report"]
    assert all(any(p["stage"] == s and p["done"] == p["total"] for p in progress) for s in ("fine-tuned", "baseline"))
    bad = [p for p in progress if not (p["event"] == "progress" and p["total"] == (
        24 if p["stage"] in ("fine-tuned", "baseline") else 1))]
    assert not bad, bad
    assert out["task"] == "classification" and out["source"] == "final" and out["rows"] == 24
    m = out["metrics"]
    assert 0 <= m["accuracy"] <= 1 and 0 <= m["macro_f1"] <= 1
    assert set(m["per_class"]) == {"正面", "中性", "负面"}
    assert sum(map(sum, m["confusion"])) == 24
    assert m["eval_loss"] > 0 and "perplexity" not in m  # the built-in classifier: a loss over labels, not tokens
    assert out["base"] is None
    bl = out["baseline"]  # fitted on the same train split, scored on the same rows
    assert bl["kind"] == "char_tfidf_logreg" and 0 <= bl["macro_f1"] <= 1 and bl["fit_seconds"] >= 0
    assert bl["comparison"]["metric"] == "macro_f1"
    c = bl["comparison"]  # "beats" only outside the noise of the 24 rows
    assert c["interval"]["rows"] == 24 and c["interval"]["low"] <= c["interval"]["high"]
    assert c["beats"] == (c["difference"] >= 0.0005 and c["interval"]["low"] > 0)

    eval_dir = runs["cls"] / "eval"
    stored = json.loads((eval_dir / "metrics.json").read_text(encoding="utf-8"))
    assert stored["best"] and stored["worst"]
    raw = (eval_dir / "predictions.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # BOM: Excel reads it as UTF-8
    with open(eval_dir / "predictions.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 24
    assert {"input", "reference", "prediction", "correct", "confidence", "p_正面", "baseline_prediction"} <= set(rows[0])
    acc = sum(r["correct"] == "True" for r in rows) / len(rows)
    assert acc == pytest.approx(m["accuracy"])
    report = (eval_dir / "report.html").read_text(encoding="utf-8")
    assert report.count("data:image/png;base64,") >= 4  # loss, confusion, per class, confidence
    assert "confusion matrix" in report and "Worst samples" in report
    assert bl["comparison"]["sentence"] in report


def test_evaluate_instruction_run(projects, runs):
    from workbench.engine.evaluation.evaluate import evaluate_run

    result = evaluate_run(projects[INST].root, runs["inst"].name, max_new_tokens=16)
    m = result["metrics"]
    for key in ("rouge_l", "bleu", "exact_match", "eval_loss", "perplexity"):
        assert m[key] is not None, key
    assert 0 <= m["rouge_l"] <= 1 and 0 <= m["bleu"] <= 100
    # how the answers were written, for a judgement of one in the window
    assert result["generation"]["mode"] == "greedy" and result["generation"]["max_new_tokens"] == 16
    assert result["baseline"]["kind"] == "char_tfidf_retrieval" and 0 <= result["baseline"]["rouge_l"] <= 1
    assert result["baseline"]["comparison"]["metric"] == "rouge_l"
    assert result["baseline"]["comparison"]["interval"]["rows"] == result["rows"]  # "beats" only outside the noise
    scores = [r["score"] for r in result["best"]]
    assert scores == sorted(scores, reverse=True)
    with open(runs["inst"] / "eval" / "predictions.csv", encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {"input", "reference", "prediction", "score", "exact", "baseline_prediction"} <= set(rows[0])
    assert "ROUGE-L distribution" in (runs["inst"] / "eval" / "report.html").read_text(encoding="utf-8")


def test_stopped_lora_run_is_evaluated_from_its_last_checkpoint(projects, family_folders, capsys):
    """A real LoRA run; a copy without final/ that ended 'stopped' evaluates from
    checkpoint-4, whose adapter is the final one, so the figures are the same."""
    from workbench.engine.evaluation.evaluate import evaluate_run

    project = projects[CLS]
    run_dir = _train(project, base_model=str(family_folders["qwen2"]), method="lora", steps=4, save_steps=4)
    stopped = project.runs_dir / "run-stopped-copy"
    shutil.copytree(run_dir, stopped)
    shutil.rmtree(stopped / "final")
    shutil.rmtree(stopped / "eval", ignore_errors=True)
    lines = (stopped / "events.jsonl").read_text(encoding="utf-8").splitlines()
    lines[-1] = json.dumps({"v": 1, "event": "end", "t": 0, "status": "stopped", "error": None})
    (stopped / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    trained = resolve_trained_run(project, stopped.name)
    assert trained.source == "checkpoint-4" and "checkpoint-4" in trained.note

    # a model that was trained before it is compared with where it started
    a = evaluate_run(project.root, run_dir.name, limit=8, write_report=False, compare_base=True)
    assert a["base"]["accuracy"] is not None and a["base"]["eval_loss"] != a["metrics"]["eval_loss"]
    # ... which the command line does unless told not to, and the run kept its split's size
    capsys.readouterr()
    assert cli_main(["eval", "--project", str(project.root), "--run", run_dir.name, "--limit", "8", "--json"]) == 0
    by_default = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert by_default["base"]["eval_loss"] == pytest.approx(a["base"]["eval_loss"], abs=1e-5)
    assert by_default["rows"] == 8 and by_default["split_rows"] > 8
    assert cli_main(["eval", "--project", str(project.root), "--run", run_dir.name, "--limit", "8", "--json",
                     "--no-compare-base"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["base"] is None
    b = evaluate_run(project.root, stopped.name, limit=8, write_report=False)
    assert b["source"] == "checkpoint-4"
    assert b["metrics"]["accuracy"] == a["metrics"]["accuracy"]
    assert b["metrics"]["eval_loss"] == pytest.approx(a["metrics"]["eval_loss"], abs=1e-5)


# ----- generation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("family", FAMILIES)
def test_cached_generation_matches_full_recompute(family, family_folders):
    from workbench.engine.inference.generate import GenerationSettings, stream_ids, stream_text

    model, tok = loading.load_model_and_tokenizer(family_folders[family], for_training=False)
    ids = examples.encode_prompt(tok, examples.build_prompt(tok, "系统", "问题：什么是贷款利率？"))
    settings = GenerationSettings.plain_greedy(12)  # the model's own argmax, as recomputed below
    cached = list(stream_ids(model, ids, settings))
    x = list(ids)
    with paddle.no_grad():
        for _ in range(len(cached)):
            logits = model(paddle.to_tensor([x]), use_cache=False, return_dict=True).logits
            x.append(int(logits[0, -1].argmax()))
    assert cached == x[len(ids):]
    pieces = list(stream_text(model, tok, ids, settings))
    assert "".join(pieces) == tok.decode(cached, skip_special_tokens=True)
    sampled = list(stream_ids(model, ids, GenerationSettings(mode="sample", temperature=0.9, top_p=0.8,
                                                             max_new_tokens=6, seed=5)))
    again = list(stream_ids(model, ids, GenerationSettings(mode="sample", temperature=0.9, top_p=0.8,
                                                           max_new_tokens=6, seed=5)))
    assert sampled == again  # seeded sampling is reproducible


def test_playground_worker_speaks_json_lines(projects, runs):
    requests = "\n".join([
        json.dumps({"id": 1, "prompt": "开户需要多久？", "max_new_tokens": 6}),
        json.dumps({"id": 2, "prompt": "x", "mode": "sample", "temperature": 0}),
        json.dumps({"id": 3, "fields": {"instruction": "挂失", "input": "卡丢了"}, "mode": "sample", "seed": 1,
                    "max_new_tokens": 5}),
    ]) + "\n"
    res = subprocess.run([sys.executable, "-m", "workbench.engine.inference.playground", "--project", str(projects[INST].root),
                          "--run", runs["inst"].name], input=requests, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines()]  # every stdout line is an event
    assert events[0]["event"] == "ready" and events[0]["task"] == "instruction"
    done = {e["id"]: e for e in events if e["event"] == "done"}
    assert set(done) == {1, 3}
    for rid in (1, 3):
        text = "".join(e["text"] for e in events if e["event"] == "token" and e["id"] == rid)
        assert text == done[rid]["text"]
        assert done[rid]["tokens"] <= (6 if rid == 1 else 5)
        # what wrote the answer, for a judgement of it: the user turn, the run, its weights, the settings
        assert done[rid]["run"] == runs["inst"].name and done[rid]["checkpoint"] == "final"
    assert done[1]["user"].startswith("开户需要多久？") and "卡丢了" in done[3]["user"]
    assert done[1]["generation"]["mode"] == "greedy" and done[1]["generation"]["max_new_tokens"] <= 6
    assert done[3]["generation"]["mode"] == "sample" and done[3]["generation"]["seed"] == 1
    assert any(e["event"] == "error" and e["id"] == 2 and "temperature" in e["message"] for e in events)


# ----- export ---------------------------------------------------------------------------------------------


def _assert_bundle_files(out: Path, onnx: bool):
    for name in ("bundle.json", "predict.py", "requirements.txt", "README.md", "tokenizer/tokenizer.json",
                 "static/model.json", "static/model.pdiparams"):
        assert (out / name).is_file(), name
    assert (out / "onnx" / "model.onnx").is_file() == onnx
    req = (out / "requirements.txt").read_text().splitlines()
    assert sorted(line.split("==")[0] for line in req if line and not line.startswith("#")) == \
        ["aiohttp", "numpy", "paddlepaddle", "tokenizers"]  # aiohttp: serve.py only


def test_export_classification_bundle_and_predict_script(projects, runs, tmp_path, capsys):
    from workbench.engine.evaluation.evaluate import evaluate_run

    project = projects[CLS]
    out = tmp_path / "cls-bundle"
    # int8 of the built-in classifier was a byte-identical copy of the fp32 weights: refused, nothing written
    assert cli_main(["export", "--project", str(project.root), "--run", runs["cls"].name, "--out", str(out),
                     "--int8", "--json"]) == 2
    assert "nothing for int8 to quantise" in capsys.readouterr().err and not out.exists()
    # an evaluation stored before the comparison had its interval: the card finds it from predictions.csv
    metrics_path = runs["cls"] / "eval" / "metrics.json"
    if not metrics_path.is_file():
        evaluate_run(project.root, runs["cls"].name)
    stored = json.loads(metrics_path.read_text(encoding="utf-8"))
    interval = stored["baseline"]["comparison"].pop("interval")
    metrics_path.write_text(json.dumps(stored, ensure_ascii=False), encoding="utf-8")
    assert cli_main(["export", "--project", str(project.root), "--run", runs["cls"].name, "--out", str(out),
                     "--formats", "static,merged,onnx", "--json"]) == 0
    *lines, last = capsys.readouterr().out.splitlines()
    res = json.loads(last)
    stages = [json.loads(line)["stage"] for line in lines]
    assert {"load", "static", "merged", "onnx"} <= set(stages) and "int8" not in stages, stages
    assert res["formats"]["static"]["max_abs_diff"] <= 1e-4
    assert res["formats"]["merged"]["max_abs_diff"] <= 1e-4
    onnx = res["formats"]["onnx"]
    assert onnx["status"] == "ok" and onnx["max_abs_diff"] <= 1e-4, onnx  # converted and checked, not excused
    _assert_bundle_files(out, True)
    static = res["checks"]["static"]  # oneDNN where it is right and faster, as timed on the check inputs
    assert static["onednn_used"] == (static["onednn_ok"] and static["onednn_ms"] < static["plain_ms"])
    assert json.loads((out / "bundle.json").read_text(encoding="utf-8"))["onednn"] == static["onednn_used"]
    assert res["int8"] is None and not (out / "int8").exists()
    assert res["predict_script"]["same_as_engine"] == res["predict_script"]["rows"]
    card = (out / "README.md").read_text(encoding="utf-8")
    for text in ("finance_sentiment", "builtin:tiny", "rows after cleaning", "learning_rate", "accuracy",
                 "Paddle Inference", "ms per sample",
                 "the template's shipped sample data, which is synthetic"):  # prepared from the sample
        assert text in card, text
    # the card says what this model is and reads, as bundle.json records it
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["system"] is None and "A character n-gram classifier" in card
    assert "language model fine-tuned" not in card and "int8" not in card
    assert "| prompt | none: the model reads the text alone |" in card
    assert project.task.system_text("zh") not in card and "请判断" not in card  # the template's prompt, never seen
    assert "| perplexity |" not in card and "| loss (cross-entropy over the labels) |" in card
    assert "`io_sniff.py`, `io_header.py`" in card and (out / "io_sniff.py").is_file()
    assert "linear part carries 90%" in card and "| linear part's share of the answer | 0.90 |" in card
    assert ("on the CPU otherwise, with oneDNN" in card) == bundle["onednn"]
    assert ("on the CPU otherwise, without oneDNN" in card) == (not bundle["onednn"])
    comp = stored["baseline"]["comparison"]
    assert f"{interval['low']:+.3f} to {interval['high']:+.3f}" in card  # the same rows, the same draws
    assert ("matches" in card) == (interval["low"] <= 0 <= interval["high"] or abs(comp["difference"]) < 0.0005)
    merged = loading.load_model(out / "merged", for_training=False)  # an ordinary model folder
    assert families.model_family(merged.config) == "char_classifier"
    assert bundle["family"] == "char_classifier" and bundle["label_length"] == 0
    assert bundle["user_format"] == "{text}" and bundle["prompt_prefix"] == bundle["prompt_suffix"] == ""
    assert onnx["status"] == "ok"  # the classifier's graph converts, and onnxruntime agrees

    # an output folder that is not empty is refused
    assert cli_main(["export", "--project", str(project.root), "--run", runs["cls"].name, "--out", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err

    # predict.py where the workbench cannot be imported
    probe = _run_isolated(["-c", "import workbench"], cwd=out)
    assert probe.returncode != 0 and "No module named 'workbench'" in probe.stderr
    records = examples.read_jsonl(project.split_path("test"))[:6]
    single = _run_isolated(["predict.py", "--json", records[0]["text"]], cwd=out)
    assert single.returncode == 0, single.stderr
    one = json.loads(single.stdout)
    assert one["label"] in ("正面", "中性", "负面") and sum(one["probabilities"].values()) == pytest.approx(1, abs=1e-5)
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    with open(src, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["新闻内容"])  # the original column name works too
        for r in records:
            w.writerow([r["text"]])
    batch = _run_isolated(["predict.py", "--input", str(src), "--output", str(dst)], cwd=out)
    assert batch.returncode == 0, batch.stderr
    with open(dst, encoding="utf-8-sig", newline="") as fh:
        got = [r["prediction"] for r in csv.DictReader(fh)]

    from workbench.engine.inference.trained import load_trained, system_prompt

    trained = resolve_trained_run(project, runs["cls"].name)
    model, tok = load_trained(trained)
    spec = project.task
    system, user_format = examples.prompt_spec(model, system_prompt(spec), spec.user_format, spec.input_roles)
    prompts = examples.build_prompts(tok, records, system=system, user_format=user_format)
    assert got == examples.classify(model, tok, prompts, spec.labels, max_length=trained.job.max_length)
    assert got[0] == one["label"]


def test_export_instruction_bundle_and_predict_script(projects, runs, tmp_path):
    from workbench.engine.export.bundle import export_run

    out = tmp_path / "inst-bundle"
    res = export_run(projects[INST].root, runs["inst"].name, out, formats=["static", "onnx"], evaluate=False,
                     int8=True)
    q = res["int8"]  # a language model's linear layers, really quantised and measured against fp32
    assert q["status"] == "ok" and q["linear_layers"] > 0 and q["size_mb_int8"] < 0.6 * q["size_mb_fp32"]
    assert 0 < q["next_token_agreement"] <= 1 and (out / "int8" / "model.pdiparams").is_file()
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "weight-only int8" in card and "A language model fine-tuned" in card
    # the template cleans with two sensitive_terms and two length_filter steps: each row says which
    steps = [line.split(" | ")[0].lstrip("| ") for line in card.splitlines()
             if line.startswith(("| sensitive_terms", "| length_filter"))]
    assert len(steps) == 4 and len(set(steps)) == 4, steps
    assert "| length_filter (column output, min_chars 2" in card
    assert res["formats"]["static"]["max_abs_diff"] <= 1e-4
    assert res["formats"]["onnx"]["status"] == "ok" and res["formats"]["onnx"]["max_abs_diff"] <= 1e-4
    assert not (out / "merged").exists()
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["task"] == "instruction" and bundle["output"] == "logits" and bundle["inputs"] == ["input_ids"]
    ps = res["predict_script"]  # a 4-step tiny model may answer nothing: then the check fails, never passes
    assert ps["same_as_engine"] + ps["both_empty"] == ps["rows"] and ps["status"] == ("failed" if ps["both_empty"]
                                                                                       else "ok")
    r = _run_isolated(["predict.py", "--json", "--max-new-tokens", "8", "信用卡怎么挂失？"], cwd=out)
    assert r.returncode == 0, r.stderr
    assert isinstance(json.loads(r.stdout)["answer"], str)


def _assert_cached_greedy_matches_eager_generate(project, run_id, bundle_dir, n_new=12):
    """The bundle's generation loop over the cached static model gives exactly the tokens of
    eager PaddleFormers ``generate(use_cache=True)``, greedy, on test prompts (end token ignored
    on both sides, so every step is compared)."""
    import importlib.util

    from workbench.engine.inference.trained import load_trained, system_prompt

    spec_ = importlib.util.spec_from_file_location("bundle_runtime_cached", bundle_dir / "bundle_runtime.py")
    rt = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(rt)
    pred = rt.Predictor(str(bundle_dir), device="cpu")
    assert pred.cache  # the cached generation model is the one in use
    pred.bundle["eos_ids"] = []
    trained = resolve_trained_run(project, run_id)
    model, tok = load_trained(trained)
    task = project.task
    records = examples.read_jsonl(project.split_path("test"))[:3]
    for record in records:
        ids = pred.prompt_ids(record, max(8, int(pred.bundle["max_length"]) - n_new))  # as generate_full cuts it
        x = paddle.to_tensor([ids], dtype="int64")
        with paddle.no_grad():
            want = model.generate(input_ids=x, attention_mask=paddle.ones_like(x), max_new_tokens=n_new,
                                  decode_strategy="greedy_search", use_cache=True, eos_token_id=-1)[0].numpy()[0]
        got = pred.generate_full(record, max_new_tokens=n_new, repetition_penalty=1.0, no_repeat_ngram=0)  # unguarded
        assert got["completion_tokens"] == n_new
        assert got["answer"] == pred.decode([int(t) for t in want]).strip()
    _ = (system_prompt, task)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("task", [CLS, INST])
def test_export_parity_for_each_family_and_task(family, task, projects, family_folders, tmp_path):
    from workbench.engine.export.bundle import export_run

    run_dir = _fake_lora_run(projects[task], family_folders[family], f"run-fake-{family}")
    try:
        formats = ["static", "merged", "onnx"]
        res = export_run(projects[task].root, run_dir.name, tmp_path / "b", formats=formats, evaluate=False,
                         check_script=False, parity_rows=4)
        assert res["family"] == family
        assert res["formats"]["static"]["max_abs_diff"] <= 1e-4
        assert res["formats"]["merged"]["max_abs_diff"] <= 1e-4
        if "onnx" in formats:
            o = res["formats"]["onnx"]
            assert o["status"] == "ok" and o["max_abs_diff"] <= 1e-4, (family, o)  # every family converts
        if task == CLS:
            assert res["checks"]["static"]["engine_label_agreement"] == 1.0
        else:
            gen = res["checks"]["generate"]
            assert gen["greedy_identical"] == gen["prompts"] and gen["max_abs_diff"] <= 1e-4
            _assert_cached_greedy_matches_eager_generate(projects[task], run_dir.name, tmp_path / "b")
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def test_failed_parity_fails_loudly_and_leaves_nothing(projects, runs, tmp_path, monkeypatch):
    from workbench.engine.export import bundle as export_bundle

    from workbench.engine.export import checks

    real = checks.run_predictor
    monkeypatch.setattr(checks, "run_predictor", lambda p, arrays: real(p, arrays) + 1e-2)
    out = tmp_path / "broken"
    with pytest.raises(export_bundle.ExportError, match="differs from the trained model"):
        export_bundle.export_run(projects[CLS].root, runs["cls"].name, out, formats=["static"], evaluate=False,
                     check_script=False, parity_rows=4)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".broken")]

"""The first stage of a pretrained head (engine/training/feature_head.py), for real on a tiny
Gemma 3: a decoder cut to its first layers, the head fitted on its frozen states, LoRA started
from that head, and the run loading back as the model that trained."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.cli import build_parser
from workbench.core.operations import runs as run_operations

sys.path.insert(0, str(Path(__file__).parents[1]))
from model_factory import make_model_folder  # noqa: E402
from test_decoder_head import make_project  # noqa: E402
from trained_factory import train_run  # noqa: E402


def _events(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "events.jsonl").read_text("utf-8").splitlines()]


def test_the_fitted_head_computes_what_the_regression_fitted(tmp_path):
    """The score layer holds the regression's weights, so the model's logits are the regression's
    decision values on the pooled states, and a cut decoder keeps only its first layers."""
    from workbench.core.runs import EventWriter
    from workbench.engine import examples
    from workbench.engine.models import decoder_head, loading
    from workbench.engine.training.feature_head import fit_feature_head, pooled_states

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    model, tokenizer = loading.load_model_and_tokenizer(base, device="cpu")
    labels = project.task.labels
    head = decoder_head.attach(model, labels, family="gemma3", pooling="mean", depth=0.5, seed=0)
    assert len(head.model.layers) == 2 and head.config.decoder["num_hidden_layers"] == 2
    assert head.config.decoder["layer_types"] == ["sliding_attention", "sliding_attention"]
    decoder_head.use_text_alone(tokenizer)
    feats = {s: examples.build_classifier_features(tokenizer, examples.read_jsonl(project.split_path(s)), labels,
                                                   user_format="{text}", max_length=64) for s in ("train", "val")}
    (tmp_path / "run").mkdir()
    events = EventWriter(tmp_path / "run")
    report = fit_feature_head(head, feats["train"], feats["val"], labels, pad_id=tokenizer.pad_token_id,
                              multi_label=False, events=events, seed=0)
    events.close()
    assert report["rows"] == len(feats["train"]) + len(feats["val"]) and report["on"] == "validation"
    # the intents are told apart by their words: states of two layers separate them well
    assert report["macro_f1"] > 0.8
    ids = [f["input_ids"] for f in feats["val"][:10]]
    x = pooled_states(head, ids, tokenizer.pad_token_id)
    w, b = head.score.weight.numpy(), head.score.bias.numpy()
    import paddle

    batch = examples.DataCollator(tokenizer.pad_token_id)([{"input_ids": i} for i in ids])
    with paddle.no_grad():
        logits = head(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.numpy()
    assert np.abs(logits - (x @ w + b)).max() < 1e-3
    logged = [e for e in _events(tmp_path / "run") if e.get("code") in ("feature_pass", "feature_head")]
    assert logged[-1]["code"] == "feature_head" and logged[-2]["done"] == report["rows"]


@pytest.fixture(scope="module")
def feature_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("features")
    project = make_project(tmp)
    base = make_model_folder("gemma3", tmp / "gemma", layout="hf")
    run = train_run(project, "run-features", steps=4, base_model=str(base), method="lora", head=True,
                    head_pooling="mean", head_depth=0.5, head_features=True, learning_rate=1e-3,
                    save_steps=2, eval_steps=2)
    return project, run


def test_lora_starts_from_the_fitted_head_and_the_run_loads_back(feature_run):
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.inference.trained import load_trained

    project, run = feature_run
    events = _events(run)
    fitted = next(e for e in events if e.get("code") == "feature_head")
    first_eval = next(e for e in events if e["event"] == "eval")
    # step 0 of LoRA is the fitted head: two steps on from it, validation has not fallen to chance
    assert fitted["macro_f1"] > 0.8 and first_eval["metrics"]["macro_f1"] > 0.6
    trained = resolve_trained_run(project, run.name)
    model, _ = load_trained(trained)  # refuses weights that do not give the run's probe again
    assert len(model.model.layers) == 2


def test_the_command_line_and_the_job_carry_the_stage(tmp_path):
    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    args = build_parser().parse_args(["train", "--project", str(project.root), "--base-model", str(base),
                                      "--head-depth", "0.5", "--head-features"])
    assert args.head_depth == 0.5 and args.head_features is True
    job = run_operations.build_job(project, str(base), head_depth=args.head_depth, head_features=args.head_features)
    assert job.head and job.head_depth == 0.5 and job.head_features
    assert build_parser().parse_args(["train", "--project", "p", "--no-head-features"]).head_features is False


@pytest.fixture(scope="module")
def stacked_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stacked")
    project = make_project(tmp)
    base = make_model_folder("gemma3", tmp / "gemma", layout="hf")
    job = run_operations.build_job(project, str(base), head_linear=True)
    assert job.head_features  # the linear part's share is chosen against the fitted head
    run = train_run(project, "run-stacked", steps=4, base_model=str(base), method="lora", head=True,
                    head_pooling="mean", head_depth=0.5, head_features=True, head_linear=True,
                    learning_rate=1e-3, save_steps=2, eval_steps=2)
    return project, run


def test_the_mixture_with_the_linear_part_is_chosen_on_validation_and_loads_back(stacked_run):
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.models import char_classifier, decoder_head

    project, run = stacked_run
    events = _events(run)
    parts = next(e for e in events if e.get("code") == "part_scores")
    # the grid holds each part alone: the mixture is never below either on the rows it was chosen on
    assert parts["macro_f1"] >= max(parts["network"], parts["linear"]) and 0 <= parts["share"] <= 1
    assert (run / decoder_head.LINEAR_FILE).is_file()
    for checkpoint in ("best", "last"):
        model, _ = load_trained(resolve_trained_run(project, run.name, checkpoint))  # the probe holds
        assert char_classifier.has_linear_part(model) and model.linear_weight == parts["share"]


@pytest.mark.slow  # static and ONNX graphs exported and run
def test_the_exported_graphs_answer_the_mixture(stacked_run, tmp_path):
    from workbench.engine.export.bundle import export_run

    project, run = stacked_run
    out = tmp_path / "bundle"
    export_run(project.root, run.name, out, formats=["static", "onnx", "merged"], evaluate=False, parity_rows=8)
    bundle = json.loads((out / "bundle.json").read_text("utf-8"))
    assert bundle["checks"]["static"]["status"] == "ok" and bundle["checks"]["onnx"]["status"] == "ok"
    merged = json.loads((out / "merged" / "config.json").read_text("utf-8"))
    assert merged["linear_part"] and merged["decoder"]["num_hidden_layers"] == 2
    # the model card says what the answer mixes, at the share the run chose
    share = next(e for e in _events(run) if e.get("code") == "part_scores")["share"]
    card = (out / "README.md").read_text("utf-8")
    assert bundle["linear_share"] == pytest.approx(share)
    assert ("word statistics" in card) == (share > 0) and (f"carry {share:.0%}" in card) == (0 < share < 1)


def test_the_evaluation_shows_each_parts_score_beside_the_mixture(stacked_run, capsys):
    from workbench.cli import main as cli_main

    project, run = stacked_run
    assert cli_main(["eval", "--project", str(project.root), "--run", run.name, "--json"]) == 0
    m = json.loads(capsys.readouterr().out.splitlines()[-1])["metrics"]
    parts = m["parts"]
    assert 0 <= parts["linear_share"] <= 1 and 0 <= parts["linear_macro_f1"] <= 1
    if parts["linear_share"] == 0:  # the network alone answers: its score is the mixture's
        assert parts["network_macro_f1"] == pytest.approx(m["macro_f1"])


def test_a_head_whose_answer_is_the_linear_part_alone_runs_no_decoder(stacked_run, tmp_path):
    """Where validation gives the linear part the whole answer (share 1), the decoder would change
    nothing, and on long texts it is nearly all the evaluation's time: neither the evaluation nor
    the exported graph runs it, and both answer what the linear part alone answers."""
    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples
    from workbench.engine.export import static_graph
    from workbench.engine.export.graphs import _head_probs_layer
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.models import char_classifier

    project, run = stacked_run
    model, tokenizer = load_trained(resolve_trained_run(project, run.name))
    model.linear_weight = 1.0  # what choose_linear_weight sets where the linear part alone scores best
    passes = []
    model.model.register_forward_pre_hook(lambda layer, inputs: passes.append(1))
    prompts = [r["text"] for r in examples.read_jsonl(project.split_path("test"))]
    probs = np.asarray(examples.head_probabilities(model, tokenizer, prompts, max_length=128))
    assert not passes  # the decoder never ran
    ids = examples.head_input_ids(tokenizer, prompts, 128)
    lin = char_classifier.linear_logits(model, ids, tokenizer.pad_token_id)
    expected = np.exp(lin - lin.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    assert np.abs(probs - expected).max() < 1e-5

    prefix = static_graph.save_static(_head_probs_layer(model), tmp_path / "static" / "model",
                                      ["input_ids", "attention_mask"])
    width = max(len(x) for x in ids)
    arrays = [np.array([x + [0] * (width - len(x)) for x in ids], dtype=np.int64),
              np.array([[1] * len(x) + [0] * (width - len(x)) for x in ids], dtype=np.int64)]
    got = static_graph.run_predictor(static_graph.create_predictor(prefix, onednn=False), arrays)
    assert np.abs(got - expected).max() < 1e-5
    def size(params):
        return sum(int(np.prod(p.shape)) * 4 for p in params)

    # the graph holds the linear part's tables, not the decoder
    assert prefix.with_suffix(".pdiparams").stat().st_size < size(model.linear_parameters()) + size(
        model.model.parameters()) / 2


def test_the_networks_answer_is_recovered_from_the_mixture(tmp_path):
    """The evaluation does not run the network twice: its probabilities follow from the mixture's
    and the linear part's, exactly, for the built-in classifier's mixture as for the head's."""
    from workbench.engine.models import char_classifier

    rng = np.random.default_rng(0)
    texts = ["".join(rng.choice(list("账户转账余额利率贷款还款"), size=12)) for _ in range(60)]
    labels = ["a", "b", "c"]
    folder = char_classifier.build_classifier("tiny", texts, labels, tmp_path / "m")
    model = char_classifier.load_classifier(folder, for_training=False)
    assert char_classifier.has_linear_part(model) and 0 < model.linear_weight < 1
    ids = [list(rng.integers(1, 40, size=n)) for n in (3, 7, 12, 5)]
    targets = [0, 1, 2, 1]
    char_classifier.fit_linear_part(model, ids * 5, targets * 5)
    deep, lin = char_classifier.part_probabilities(model, ids)
    mixed = char_classifier.mix_probabilities(model, deep, lin)
    assert np.abs(char_classifier.network_from_mixture(model, mixed, lin) - deep).max() < 1e-4


def test_lora_that_answers_worse_leaves_the_frozen_start_as_the_runs_model(tmp_path):
    """LoRA's result is kept only where it beats the frozen start on validation: steps at an
    absurd learning rate lose, and the run's model is then the fitted head, loaded back as such."""
    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.training.feature_head import _targets, answer_macro_f1

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    run = train_run(project, "run-worse", steps=4, base_model=str(base), method="lora", head=True,
                    head_pooling="mean", head_depth=0.5, head_features=True, head_linear=True,
                    learning_rate=3.0, save_steps=2, eval_steps=2)
    compared = next(e for e in _events(run) if e.get("code") == "frozen_start_compared")
    assert compared["kept"] == "frozen_start" and compared["lora_macro_f1"] <= compared["frozen_macro_f1"]
    model, tokenizer = load_trained(resolve_trained_run(project, run.name))  # final/, its probe holds
    labels = project.task.labels
    val = examples.build_classifier_features(tokenizer, examples.read_jsonl(project.split_path("val")), labels,
                                             user_format="{text}", max_length=128)
    got = answer_macro_f1(model, [f["input_ids"] for f in val], _targets([f["labels"] for f in val], labels, False),
                          labels, False, tokenizer.pad_token_id)
    assert got == pytest.approx(compared["frozen_macro_f1"], abs=1e-4)


def test_a_budget_the_first_stage_fills_keeps_the_frozen_start_without_lora(tmp_path):
    """Seen on long legal texts with 10 minutes: the first stage left 108 s, LoRA took one step
    and its comparison read every validation row again, 7 minutes past the budget. Where the
    time left cannot hold LoRA's steps and that comparison, the run takes one step (for its
    checkpoint) and its model is the frozen start, loaded back as such."""
    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.training.feature_head import _targets, answer_macro_f1

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    run = train_run(project, "run-squeezed", max_steps=-1, epochs=0.001, base_model=str(base), method="lora", head=True,
                    head_pooling="mean", head_depth=0.5, head_features=True, head_linear=True,
                    learning_rate=3.0, save_steps=2, eval_steps=2, time_budget_s=60.0)
    events = _events(run)
    [only] = [e for e in events if e.get("code") == "frozen_start_only"]
    assert only["left_s"] < 60.0 and only["need_s"] > only["left_s"]
    assert not any(e.get("code") == "frozen_start_compared" for e in events)  # no second read of the rows
    assert [e["step"] for e in events if e["event"] == "step"] == [1]
    assert next(e for e in events if e["event"] == "start")["total_steps"] == 1  # was 0: "step 1 of ?", 0 %
    assert not any(e["event"] == "eval" for e in events)  # the first stage scored it on every validation row
    model, tokenizer = load_trained(resolve_trained_run(project, run.name))
    labels = project.task.labels
    val = examples.build_classifier_features(tokenizer, examples.read_jsonl(project.split_path("val")), labels,
                                             user_format="{text}", max_length=128)
    got = answer_macro_f1(model, [f["input_ids"] for f in val], _targets([f["labels"] for f in val], labels, False),
                          labels, False, tokenizer.pad_token_id)
    assert got == pytest.approx(only["frozen_macro_f1"], abs=1e-4)  # not the absurd step's


def test_a_second_pass_over_the_same_rows_reads_the_cache(tmp_path):
    """The pooled states are kept in the project's cache by what they depend on: the same model
    over the same rows reads them back (and fits the same head); another model reads its own."""
    from workbench.core.runs import EventWriter
    from workbench.engine import examples
    from workbench.engine.models import decoder_head, loading
    from workbench.engine.training.feature_head import fit_feature_head

    project = make_project(tmp_path)
    labels = project.task.labels
    cache = tmp_path / "cache"

    def fit(seed: int, name: str):
        base = make_model_folder("gemma3", tmp_path / f"gemma{seed}", layout="hf", seed=seed)
        model, tokenizer = loading.load_model_and_tokenizer(base, device="cpu")
        head = decoder_head.attach(model, labels, family="gemma3", pooling="mean", depth=0.5, seed=0)
        decoder_head.use_text_alone(tokenizer)
        feats = {s: examples.build_classifier_features(tokenizer, examples.read_jsonl(project.split_path(s)), labels,
                                                       user_format="{text}", max_length=64) for s in ("train", "val")}
        (tmp_path / name).mkdir()
        events = EventWriter(tmp_path / name)
        fit_feature_head(head, feats["train"], feats["val"], labels, pad_id=tokenizer.pad_token_id,
                         multi_label=False, events=events, seed=0, cache_dir=cache)
        events.close()
        codes = [e.get("code") for e in _events(tmp_path / name)]
        return head.score.weight.numpy(), codes

    first, codes = fit(0, "a")
    assert "feature_pass" in codes and "feature_cache" not in codes and len(list(cache.glob("*.npz"))) == 1
    again, codes = fit(0, "b")
    assert "feature_cache" in codes and "feature_pass" not in codes and np.array_equal(first, again)
    _, codes = fit(1, "c")  # other weights: read anew
    assert "feature_pass" in codes and len(list(cache.glob("*.npz"))) == 2


def _frozen_head(tmp_path):
    """A tiny Gemma 3 with a mean-pooled head over a project's labels, and the project's training
    and validation features: what the first stage reads."""
    from workbench.engine import examples
    from workbench.engine.models import decoder_head, loading

    project = make_project(tmp_path)
    labels = project.task.labels
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    model, tokenizer = loading.load_model_and_tokenizer(base, device="cpu")
    head = decoder_head.attach(model, labels, family="gemma3", pooling="mean", depth=0.5, seed=0)
    decoder_head.use_text_alone(tokenizer)
    feats = {s: examples.build_classifier_features(tokenizer, examples.read_jsonl(project.split_path(s)), labels,
                                                   user_format="{text}", max_length=64) for s in ("train", "val")}
    return labels, head, tokenizer, feats


def test_a_time_budget_bounds_the_pass_and_a_later_run_reads_on(tmp_path):
    """A deadline already past reads one chunk of the training rows (after every validation row):
    the head is fitted on those, the cache keeps them, and a later pass without a deadline reads
    only the others, to the same states."""
    import time

    from workbench.core.runs import EventWriter
    from workbench.engine.training.feature_head import CHUNK_ROWS, fit_feature_head, pooled_states

    labels, head, tokenizer, feats = _frozen_head(tmp_path)
    cache = tmp_path / "cache"
    n_train, n_val = len(feats["train"]), len(feats["val"])
    assert n_train > CHUNK_ROWS

    def fit(name: str, deadline):
        (tmp_path / name).mkdir()
        events = EventWriter(tmp_path / name)
        report = fit_feature_head(head, feats["train"], feats["val"], labels, pad_id=tokenizer.pad_token_id,
                                  multi_label=False, events=events, seed=0, cache_dir=cache, deadline=deadline)
        events.close()
        return report, {e.get("code"): e for e in _events(tmp_path / name)}

    report, logged = fit("a", time.time() - 1)
    assert report["train_rows_read"] == CHUNK_ROWS and report["train_rows"] == n_train
    assert report["rows"] == CHUNK_ROWS + n_val
    assert logged["feature_pass_partial"]["read"] == CHUNK_ROWS and logged["feature_pass"]["done"] == CHUNK_ROWS + n_val
    with np.load(next(cache.glob("*.npz"))) as kept:
        read, states = kept["read"], kept["train"]
    assert read.sum() == CHUNK_ROWS
    # the rows read are a sample of all of them, not the first ones
    assert 0 < np.flatnonzero(read).max() - (CHUNK_ROWS - 1)

    report, logged = fit("b", None)
    assert report["train_rows_read"] == n_train and "feature_pass_partial" not in logged
    assert logged["feature_cache"]["rows"] == CHUNK_ROWS + n_val
    # only the rows left were read: the progress counts from the cached ones
    assert logged["feature_pass"]["done"] == n_train + n_val
    with np.load(next(cache.glob("*.npz"))) as kept:
        assert kept["read"].all() and np.array_equal(kept["train"][read], states[read])
        fresh = pooled_states(head, [feats["train"][i]["input_ids"] for i in np.flatnonzero(~read)],
                              tokenizer.pad_token_id)
        assert np.allclose(kept["train"][~read], fresh, atol=1e-5)

    _, logged = fit("c", time.time() - 1)  # everything cached: nothing read, whatever the deadline
    assert "feature_pass" not in logged and "feature_pass_partial" not in logged


def test_a_first_stage_that_leaves_lora_no_room_reads_on(tmp_path):
    """Where the run will take no LoRA steps after the first stage, the pass reads on past its share
    of the budget, to the deadline ``read_on`` gives it from the pace it measured."""
    import time

    from workbench.core.runs import EventWriter
    from workbench.engine.training.feature_head import CHUNK_ROWS, fit_feature_head

    labels, head, tokenizer, feats = _frozen_head(tmp_path)
    asked = []

    def fit(name: str, later):
        (tmp_path / name).mkdir()
        events = EventWriter(tmp_path / name)
        report = fit_feature_head(head, feats["train"], feats["val"], labels, pad_id=tokenizer.pad_token_id,
                                  multi_label=False, events=events, seed=0, deadline=time.time() - 1,
                                  read_on=lambda row_s, read: asked.append((row_s, read)) or later)
        events.close()
        return report

    assert fit("a", None)["train_rows_read"] == CHUNK_ROWS  # LoRA follows: the share's deadline holds
    assert fit("b", time.time() + 600)["train_rows_read"] == len(feats["train"])
    # seconds a row, as read, and the training rows read by the share's deadline
    assert len(asked) == 2 and all(0 < s < 5 and read == CHUNK_ROWS for s, read in asked)


def test_the_comparison_after_lora_is_timed_at_the_first_stages_pace():
    """The run keeps this much of its budget for the comparison with the frozen start (a 10-minute
    run over 11,312 TNEWS rows had ended 52 s past its budget without it)."""
    from types import SimpleNamespace

    from workbench.core.recommend import COMPARE_FACTOR
    from workbench.engine.training.feature_head import FrozenStart

    weights = SimpleNamespace(numpy=lambda: np.zeros(2, dtype=np.float32))
    head = SimpleNamespace(score=SimpleNamespace(weight=weights, bias=weights))
    val = [{"input_ids": [1, 2], "labels": 0}] * 50
    frozen = FrozenStart(head, {"rows": 1000, "read_seconds": 40.0, "macro_f1": 0.5}, val, ["a", "b"], False)
    assert frozen.compare_seconds() == pytest.approx(COMPARE_FACTOR * 40.0 / 1000 * 50)
    cached = FrozenStart(head, {"rows": 1000, "read_seconds": 0.0, "macro_f1": 0.5}, val, ["a", "b"], False)
    assert cached.compare_seconds() == 0.0

import json

import pandas as pd
import pytest
from trained_factory import finished_run
from PySide6.QtCore import Qt

from workbench.core.trained import no_base_comparison
from workbench.core.jobs import JobSpec, write_job
from workbench.gui.commands import explain_failure, parse_json_output
from workbench.gui.pages.evaluate.page import EvaluatePage, wrong_positions
from workbench.gui.pages.export.page import ExportPage, describe_int8, describe_latency


def _finished_run(root, run_id="run-x"):
    return finished_run(root, run_id)


def test_evaluate_page_shows_metrics_confusion_and_wrong_only(qtbot, session, background, sample_project):
    run_dir = _finished_run(sample_project)
    (run_dir / "eval").mkdir()
    labels = ["正面", "中性", "负面"]
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-x", "task": "classification", "split": "test", "rows": 4, "base_model": "builtin:tiny",
        "method": "full", "metrics": {"accuracy": 0.5, "macro_f1": 0.4, "eval_loss": 1.2, "perplexity": 3.3,
                                      "labels": labels, "confusion": [[1, 1, 0], [0, 1, 0], [0, 1, 0]],
                                      "per_class": {l: {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 1} for l in labels}},
        "base": {"accuracy": 0.25},
        "baseline": {"kind": "char_tfidf_logreg", "accuracy": 0.75, "macro_f1": 0.7, "fit_seconds": 0.2,
                     "comparison": {"metric": "macro_f1", "model": 0.4, "baseline": 0.7, "difference": -0.3,
                                    "beats": False, "sentence": "x"}}}), encoding="utf-8")
    pd.DataFrame({"input": ["a", "b", "c", "d"], "reference": ["正面", "正面", "中性", "负面"],
                  "prediction": ["正面", "中性", "中性", "中性"], "correct": [True, False, True, False],
                  "base_prediction": ["负面"] * 4}).to_csv(run_dir / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.results_shown, timeout=5000):
        session.open(sample_project)
    assert page.cards["accuracy"].value_label.text() == "50.0%"
    assert "25.0%" in page.cards["accuracy"].note_label.text()
    # the baseline's figures on the cards and the verdict in words, read from the eval result
    assert "75.0%" in page.cards["accuracy"].note_label.text() and "70.0%" in page.cards["macro_f1"].note_label.text()
    assert "does not beat a simple word-statistics baseline" in page.summary_text.text()
    assert "30.0%" in page.summary_text.text()
    assert page.heatmap.matrix.shape == (3, 3)
    # the per-class figures are a compact table, one row per label, numbers right-aligned
    assert page.class_table.rowCount() == 3 and page.class_table.item(1, 0).text() == "中性"
    assert page.class_table.item(0, 3).text() == "0.50"
    assert page.class_table.item(0, 3).textAlignment() & int(Qt.AlignmentFlag.AlignRight)
    assert page.samples_model.rowCount() == 4
    page.wrong_only.setChecked(True)
    assert page.samples_model.rowCount() == 2
    assert "base_prediction" in list(page.predictions.columns)


def test_wrong_positions_without_correct_column():
    df = pd.DataFrame({"reference": ["a", "b"], "prediction": ["a", "c"]})
    assert list(wrong_positions(df)) == [1]


def test_export_page_reads_an_earlier_bundle(qtbot, session, background, sample_project):
    _finished_run(sample_project)
    out = sample_project / "exports" / "run-x"
    out.mkdir(parents=True)
    (out / "bundle.json").write_text(json.dumps({"checks": {
        "static": {"max_abs_diff": 3.2e-6, "files": ["static/model.json"]},
        "latency": {"static_ms": 4.2, "eager_ms": 9.1}}}), encoding="utf-8")
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.table.rowCount() == 1
    assert page.table.item(0, 2).text() == "largest difference 0.0000032"
    assert "4.2 ms" in page.latency_label.text()
    assert page.open_button.isEnabled()
    assert page.contents.item(0, 0).text() == "bundle.json"


def test_latency_and_int8_read_as_sentences():
    text = describe_latency({"device": "cpu+onednn", "threads": 2, "samples": 8, "static_ms": 12.808, "eager_ms": 6.729,
                             "ratio": 1.9034, "cpu": "x86_64", "throughput_samples_per_s": 80.28, "throughput_batch": 8})
    # what is compared, and that slower is worse (it read "(0.53× the speed)")
    assert text == ("Per request, the exported static model takes 12.8 ms and the trained model run directly 6.7 ms: "
                    "the static model is slower, 1.90× as long · 80 samples/s at batch 8 · CPU with oneDNN, 2 threads")
    faster = describe_latency({"static_ms": 2.6, "eager_ms": 6.4})
    assert faster.endswith("2.6 ms and the trained model run directly 6.4 ms: the static model is 2.46× as fast")
    assert "_ms" not in text and "threads: " not in text
    text = describe_int8({"status": "ok", "accuracy_fp32": 0.75, "accuracy_int8": 0.74, "label_agreement": 0.97,
                          "size_mb_fp32": 3.4, "size_mb_int8": 0.9})
    assert "75.0% → 74.0% (-1.0 points)" in text and "0.9 MB instead of 3.4 MB" in text


def test_command_output_parsing_and_missing_command_message():
    assert parse_json_output('progress\n{\n  "a": 1\n}\n') == {"a": 1}
    assert parse_json_output('{"x": [1, 2]}') == {"x": [1, 2]}
    err = "usage: workbench ...\nworkbench: error: argument command: invalid choice: 'eval' (choose from 'templates')"
    assert "no 'eval' command" in explain_failure("eval", 2, err)
    assert explain_failure("export", 2, "error: Run 'x' does not exist.") == "Run 'x' does not exist."


def test_every_command_line_the_pages_build_is_accepted_by_the_cli_parser(qtbot, session, background, sample_project):
    from workbench.cli import build_parser
    from workbench.core.runs import cli_command

    _finished_run(sample_project)
    lm = _finished_run(sample_project, "run-lm")
    write_job(lm, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                          base_model="Qwen/Qwen2-0.5B", method="lora"))
    session.open(sample_project)
    ev, ex = EvaluatePage(session, background), ExportPage(session, background)
    qtbot.addWidget(ev)
    qtbot.addWidget(ex)
    parser = build_parser()
    for base in (True, False):
        ev.base_check.setChecked(base)
        ns = parser.parse_args(ev.eval_args("run-x"))
        assert (ns.command, ns.run, ns.compare_base, ns.json, ns.split) == ("eval", "run-x", base, True, "test")
    for prompt in ("信用卡怎么挂失？", "-5% 是跌幅吗", "--help"):
        ns = parser.parse_args(ev.playground_args("run-x", prompt))
        assert (ns.command, ns.run, ns.prompt) == ("playground", "run-x", prompt)
    ex.run_combo.setCurrentIndex(ex.run_combo.findData("run-lm"))  # a language model: int8 is offered
    assert ex.int8_check.isEnabled()
    ex.int8_check.setChecked(True)
    ns = parser.parse_args(ex.export_args("run-lm"))
    assert (ns.command, ns.run, ns.int8, ns.json) == ("export", "run-lm", True, True)
    # the built-in classifier has nothing for int8 to quantise: not offered, not asked for
    ex.run_combo.setCurrentIndex(ex.run_combo.findData("run-x"))
    assert not ex.int8_check.isEnabled() and not ex.int8_check.isChecked()
    assert "nothing for int8 to quantise" in ex.int8_check.toolTip()
    assert "nothing to quantise" in ex.int8_check.text()
    ex.int8_check.setChecked(True)
    assert "--int8" not in ex.export_args("run-x")
    assert set(ns.formats.split(",")) <= {"static", "merged", "onnx"}
    assert cli_command("runs")[1:] == ["-m", "workbench", "runs"]


def test_a_child_command_reports_progress_and_its_result_and_cancel_ends_it(qtbot, background, tmp_path):
    """The one way the window runs a child process: progress lines, the last line's result, cancel."""
    import sys

    script = tmp_path / "child.py"
    script.write_text(
        "import json, sys, time\n"
        "for i in range(3):\n"
        "    print(json.dumps({'event': 'progress', 'stage': 'fine-tuned', 'done': i + 1, 'total': 3}), flush=True)\n"
        "print('a notice', file=sys.stderr, flush=True)\n"
        "if sys.argv[1] == 'slow':\n"
        "    time.sleep(60)\n"
        "print(json.dumps({'ok': True}))\n", encoding="utf-8")
    op = background.process([sys.executable, str(script), "fast"], "Child", name="child")
    seen, logs = [], []
    op.progressed.connect(lambda f, m: seen.append((round(f, 2), m)))
    op.log_line.connect(logs.append)
    with qtbot.waitSignal(op.succeeded, timeout=30000) as done:
        op.run()
    assert done.args[0] == {"ok": True}
    assert seen == [(0.33, "the trained model answers"), (0.67, "the trained model answers"),
                    (1.0, "the trained model answers")]
    assert logs == ["a notice"]

    slow = background.process([sys.executable, str(script), "slow"], "Child", name="child")
    with qtbot.waitSignal(slow.progressed, timeout=30000):
        slow.run()
    proc = slow.proc
    with qtbot.waitSignal(slow.cancelled, timeout=10000):
        slow.cancel()
    assert proc.state() == proc.ProcessState.NotRunning  # the child process is gone


def test_a_failing_child_command_is_explained_in_one_place(qtbot, background):
    import sys

    errors = []
    background.error_shown.connect(lambda t, m: errors.append((t, m)))
    op = background.process([sys.executable, "-c", "import sys; print('error: Run x does not exist.', file=sys.stderr); "
                        "sys.exit(2)"], "Evaluating x", name="eval")
    with qtbot.waitSignal(op.failed, timeout=30000):
        op.run()
    assert errors == [("Evaluating x", "Run x does not exist.")]


def test_evaluate_page_shows_a_multi_label_result_without_a_confusion_matrix(qtbot, session, background, sample_project):
    from workbench.engine.scoring import LABEL_SET_JOINER, confused_label_pairs, multi_label_report

    run_dir = _finished_run(sample_project, "run-ml")
    (run_dir / "eval").mkdir()
    labels = ["盗窃", "故意伤害", "寻衅滋事"]
    truth = [["盗窃"], ["故意伤害", "寻衅滋事"], ["寻衅滋事"], ["盗窃", "故意伤害"]]
    preds = [["盗窃"], ["故意伤害", "盗窃"], ["寻衅滋事"], ["盗窃", "故意伤害"]]
    m = {**multi_label_report(truth, preds, labels), "threshold": 0.35, "eval_loss": 0.2,
         "confused_pairs": confused_label_pairs(truth, preds)}
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-ml", "task": "classification", "split": "test", "rows": 4, "base_model": "builtin:tiny",
        "method": "full", "metrics": m, "baseline": None}), encoding="utf-8")
    pd.DataFrame({"input": list("abcd"), "reference": [LABEL_SET_JOINER.join(s) for s in truth],
                  "prediction": [LABEL_SET_JOINER.join(s) for s in preds],
                  "correct": [a == b for a, b in zip(truth, preds)]}).to_csv(
        run_dir / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.results_shown, timeout=5000):
        session.open(sample_project)
    assert page.cards["subset_accuracy"].value_label.text() == "75.0%"
    assert page.cards["micro_f1"].value_label.text() == f"{m['micro_f1']:.1%}"
    assert page.cards["hamming_loss"].value_label.text() == f"{2 / 12:.3f}"
    assert "accuracy" not in page.cards
    assert page.heatmap.isHidden() and page.heat_title.isHidden()
    # bars per label with each label's rows, the numbers as eval wrote them, in place of the table
    assert page.class_table.isHidden() and not page.label_bars.isHidden()
    assert page.label_bars.labels == labels
    for key in ("precision", "recall", "f1"):
        assert page.label_bars.values[key] == [m["per_class"][lab][key] for lab in labels]
        assert list(page.label_bars.bars[key].opts["width"]) == page.label_bars.values[key]
    ticks = dict(page.label_bars.plot.getAxis("left")._tickLevels[0])
    assert sorted(ticks.values()) == sorted(f"{lab} ({m['per_class'][lab]['support']})" for lab in labels)
    # the most confused pairs: 寻衅滋事 missed and 盗窃 given instead; 盗窃 also given along with 故意伤害
    table = page.pairs_table
    shown = [tuple(table.item(r, c).text() for c in range(4)) for r in range(table.rowCount())]
    assert shown == [("寻衅滋事", "盗窃", "given instead", "1"), ("故意伤害", "盗窃", "given along with it", "1")]
    assert page.pairs_empty.isHidden()
    assert "0.35" in page.summary_text.text()
    page.wrong_only.setChecked(True)
    assert page.samples_model.rowCount() == 1


def test_the_confused_pairs_use_the_room_the_page_has(qtbot, session, background, sample_project):
    """Seen at 1366x768: the pairs table showed four rows and a scroll bar above empty space."""
    labels = [f"罪名{i}" for i in range(9)]
    per = {lab: {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 10} for lab in labels}
    pairs = [{"true": labels[i], "predicted": labels[i + 1], "kind": "instead", "rows": 9 - i} for i in range(8)]
    run_dir = _finished_run(sample_project, "run-pairs")
    (run_dir / "eval").mkdir()
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-pairs", "task": "classification", "split": "test", "rows": 84, "base_model": "builtin:tiny",
        "method": "full", "metrics": {"multi_label": True, "micro_f1": 0.5, "macro_f1": 0.5, "labels": labels,
                                      "per_class": per, "confused_pairs": pairs, "threshold": 0.3}}),
        encoding="utf-8")
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    page.resize(1176, 680)  # the page's share of a 1366x768 window
    page.show()
    qtbot.waitExposed(page)
    with qtbot.waitSignal(page.results_shown, timeout=5000):
        session.open(sample_project)
    table = page.pairs_table
    qtbot.waitUntil(lambda: table.rowCount() == 8)
    # the table takes the side's remaining height: nothing empty is left below it
    side = table.parentWidget()
    assert side.height() - table.geometry().bottom() < 30, (side.height(), table.geometry().bottom())
    assert not table.verticalScrollBar().isVisible()


def test_many_labels_keep_their_bars_readable(qtbot):
    """Seen with 29 real charges: every label's three bars and name squeezed into 12 pixels."""
    from workbench.gui.widgets.charts import LabelBars

    bars = LabelBars()
    qtbot.addWidget(bars)
    bars.resize(650, 400)
    bars.show()
    qtbot.waitExposed(bars)
    per = {f"罪名{i}": {"precision": 0.5, "recall": 0.4, "f1": 0.45, "support": i} for i in range(29)}
    bars.set_data(per)
    qtbot.waitUntil(lambda: bars.plot.height() >= 24 * 29)
    assert bars.scroll.verticalScrollBar().maximum() > 0  # the page scrolls, the bars keep their size
    bars.set_data(dict(list(per.items())[:3]))  # a few labels fill the room they have
    qtbot.waitUntil(lambda: bars.scroll.verticalScrollBar().maximum() == 0)
    assert bars.plot.height() > 24 * 3 * 2


def test_the_base_model_is_offered_for_comparison_only_where_it_learnt_something(
        qtbot, session, background, sample_project, tmp_path):
    # seen on the Evaluate page: "compare with the base model" was ticked for the built-in
    # model, which starts untrained, so every evaluation also scored a model answering at random
    _finished_run(sample_project, "run-builtin")
    pretrained = _finished_run(sample_project, "run-pretrained")
    write_job(pretrained, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                                  base_model=str(tmp_path / "some-pretrained-model"), method="lora"))
    session.open(sample_project)
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    combo = page.run_combo
    combo.setCurrentIndex(combo.findData("run-builtin"))
    assert not page.base_check.isEnabled() and not page.base_check.isChecked()
    assert "untrained" in page.base_check.toolTip() and "--compare-base" not in page.eval_args("run-builtin")
    combo.setCurrentIndex(combo.findData("run-pretrained"))
    assert page.base_check.isEnabled() and page.base_check.isChecked()
    assert "--compare-base" in page.eval_args("run-pretrained")


def test_a_classification_heads_run_is_not_compared_with_the_model_it_started_from(qtbot, session, background,
                                                                                  sample_project, tmp_path):
    """Measured on 16 dialogue acts: the default evaluation of a head run scored the untuned decoder by
    writing every label, 16 passes a row, about 100 minutes for 638 rows where the head took under one.
    The untuned decoder has no head, so the comparison says little: the baseline is the comparison."""
    head = _finished_run(sample_project, "run-head")
    write_job(head, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                            base_model=str(tmp_path / "some-pretrained-model"), method="lora", head=True))
    session.open(sample_project)
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    page.run_combo.setCurrentIndex(page.run_combo.findData("run-head"))
    assert not page.base_check.isEnabled() and not page.base_check.isChecked()
    assert "head" in page.base_check.toolTip() and "--compare-base" not in page.eval_args("run-head")
    assert no_base_comparison(head) == "head"  # the command line's default, the same decision


def test_the_macro_f1_card_says_which_labels_it_averages(qtbot, session, background, sample_project):
    from workbench.engine.scoring import classification_report

    run_dir = _finished_run(sample_project)
    (run_dir / "eval").mkdir()
    labels = ["正面", "中性", "负面"]
    truth, preds = ["正面", "正面", "中性"], ["正面", "中性", "中性"]  # 负面: no test row, never given
    m = classification_report(truth, preds, labels)
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-x", "task": "classification", "split": "test", "rows": 3, "base_model": "builtin:tiny",
        "method": "full", "metrics": m}), encoding="utf-8")
    pd.DataFrame({"input": ["a", "b", "c"], "reference": truth, "prediction": preds,
                  "correct": [a == b for a, b in zip(truth, preds)]}).to_csv(
        run_dir / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.results_shown, timeout=5000):
        session.open(sample_project)
    card = page.cards["macro_f1"]
    assert card.title_label.text() == "Macro F1 (2 of 3 labels)"
    assert card.value_label.text() == f"{(2 / 3 + 2 / 3) / 2:.1%}"
    assert "2 of 3 labels" in card.toolTip() and "not counted as 0" in card.toolTip()


def test_the_export_check_says_identical_or_a_readable_difference(qtbot, session, background, sample_project):
    """Seen: "0.00e+00" in the check column for a static model that answers exactly as the trained one."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    session.open(sample_project)
    result = {"formats": {
        "static": {"status": "ok", "max_abs_diff": 0.0, "files": ["static/model.json"]},
        "onnx": {"status": "ok", "max_abs_diff": 3.1e-06, "relative_diff": 4.2e-07, "files": ["onnx/model.onnx"]},
        "merged": {"status": "ok", "max_abs_diff": 0.00012, "files": ["merged/"]},
    }}
    app = QApplication.instance()
    shown = {}
    try:
        for lang in ("en", "zh_CN"):
            i18n.install(app, lang)
            page = ExportPage(session, background)
            qtbot.addWidget(page)
            page.show_result(result)
            shown[lang] = [page.table.item(r, 2).text() for r in range(page.table.rowCount())]
    finally:
        i18n.install(app, "en")
    assert shown["en"] == ["identical", "largest difference 0.000042% of the largest output",
                           "largest difference 0.00012"], shown
    assert shown["zh_CN"] == ["完全一致", "最大差异为最大输出的 0.000042%", "最大差异 0.00012"], shown


@pytest.mark.parametrize("which", ["evaluate", "export"])
def test_a_page_at_work_says_its_stage_once(qtbot, session, background, sample_project, monkeypatch, which):
    """Seen: "Evaluating run-…: loading the model" beside the bar and "Evaluating: loading the model…"
    under it, the same status twice (and so on the Export page)."""
    import sys

    from PySide6.QtWidgets import QLabel

    _finished_run(sample_project)
    script = ("import json, time\n"
              "print(json.dumps({'event': 'progress', 'stage': 'load', 'done': 0, 'total': 1}), flush=True)\n"
              "time.sleep(30)\n")
    monkeypatch.setattr(background, "command", lambda args, title: background.process(
        [sys.executable, "-c", script], title, name=args[0]))
    page = (EvaluatePage if which == "evaluate" else ExportPage)(session, background)
    qtbot.addWidget(page)
    page.resize(1176, 680)
    page.show()
    session.open(sample_project)
    assert (page.evaluate() if which == "evaluate" else page.export())
    said = lambda: [w.text() for w in page.findChildren(QLabel)  # noqa: E731
                    if w.isVisible() and "loading the model" in w.text()]
    qtbot.waitUntil(lambda: bool(said()), timeout=20000)
    qtbot.wait(100)
    assert len(said()) == 1, said()
    (page.eval_op if which == "evaluate" else page.export_op).cancel()


def test_the_empty_state_sits_in_the_middle_of_the_results(qtbot, session, background, sample_project):
    """Seen: "This run has not been evaluated yet…" in the right half of the page, beside an empty
    space where the confusion matrix goes."""
    _finished_run(sample_project)
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    page.resize(1176, 680)  # the page's share of a 1366x768 window
    page.show()
    qtbot.waitExposed(page)
    session.open(sample_project)
    empty = page.results.empty_text
    qtbot.waitUntil(lambda: empty.isVisible() and "not been evaluated" in empty.text(), timeout=5000)
    tab = page.results
    middle = empty.mapTo(tab, empty.rect().center())
    assert abs(middle.x() - tab.width() / 2) < tab.width() * 0.05, (middle.x(), tab.width())
    assert middle.y() < tab.height() * 0.6  # where one looks, not at the bottom
    assert empty.height() >= empty.heightForWidth(empty.width())  # every line of it, not cut
    assert not page.heatmap.isVisible() and not page.summary_text.isVisible()

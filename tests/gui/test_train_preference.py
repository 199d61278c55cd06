"""Tuning on the person's judgements from the Train page: the action for a finished run that writes
answers, core's pair counts and recommended settings in its dialog, its refusals, the job it starts
(the one `workbench train --method dpo --from-run` builds), a preference run's curves and its line
in the runs list, and, for real, a short DPO run of the built-in small model that finishes, shows
its curves and whose evaluation the Evaluate page shows beside the run it tuned."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt

from trained_factory import INST, USER_COLUMNS, finished_run, user_frame
from workbench.core import feedback
from workbench.core.errors import WorkbenchError
from workbench.core.jobs import JobSpec, write_job
from workbench.core.operations import preference as preference_operations
from workbench.core.project import SplitSettings, prepare
from workbench.core.runs import EventWriter, write_pid
from workbench.core.templates import TemplateCatalog
from workbench.gui.error_texts import exception_text
from workbench.gui.pages.train.page import TrainPage


@pytest.fixture
def inst_project(tmp_path):
    """A prepared instruction project (no model)."""
    src = tmp_path / "qa.csv"
    user_frame(INST).to_csv(src, index=False)
    project, _ = prepare(TemplateCatalog().get(INST), src, tmp_path / "projects" / "qa", mapping=USER_COLUMNS[INST],
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    return project


def _page(qtbot, session, background, root):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(root)
    return page


def _choices(root, n: int, run: str = "run-1"):
    """``n`` choices between two answers, each to a question of its own."""
    feedback.append(root, [feedback.Judgement(kind="choice", prompt=f"第{i}个问题：转账限额是多少？",
                                              answers=[f"单笔限额为{i}万元。", "不清楚。"], choice="a", run=run)
                           for i in range(n)])


def test_the_action_is_offered_for_finished_runs_that_write_answers_only(qtbot, session, background, inst_project,
                                                                         sample_project):
    root = inst_project.root
    finished_run(root, "run-1", task="instruction")
    running = root / "runs" / "run-2"
    write_job(running, JobSpec(project=str(root), template=INST, task="instruction", base_model="builtin:tiny",
                               method="full"))
    write_pid(running, os.getpid())
    ev = EventWriter(running)
    ev.emit("start", total_steps=10)
    ev.close()
    page = _page(qtbot, session, background, root)
    page.select_run("run-2")
    assert session.monitor.status("run-2") == "running"
    assert page.preference_box.isHidden()  # it trains
    page.select_run("run-1")
    assert not page.preference_box.isHidden()
    assert page.preference_box.button.text() == "Tune on your judgements…"
    assert not page.preference_box.button.isEnabled(), "one run at a time: run-2 trains"

    finished_run(sample_project, "run-c")  # a classifier: no answers to judge
    session.open(sample_project)
    page.select_run("run-c")
    assert session.monitor.summary("run-c").status == "completed"
    assert page.preference_box.isHidden()


def test_the_dialog_shows_cores_counts_and_settings_and_says_where_judgements_are_made(
        qtbot, session, background, inst_project):
    root = inst_project.root
    finished_run(root, "run-1", task="instruction")
    page = _page(qtbot, session, background, root)
    page.select_run("run-1")
    assert not page.preference_box.isHidden()

    # nothing judged: refused in the window's words, and where to judge answers
    dialog = page.tune_on_judgements()
    assert dialog is page.preference_dialog and dialog.isVisible()
    with pytest.raises(WorkbenchError) as none:
        preference_operations.build_dpo_job(inst_project, "run-1")
    assert dialog.refusal_label.text() == exception_text(none.value)
    assert "(0 answers" not in dialog.refusal_label.text()
    assert not dialog.start_button.isEnabled()
    # seen in the window: "0 pairs …: 0 from choices …, 0 from …, 0 from …" above a form of dashes
    assert dialog.counts_label.text() == "Your judgements make no pair of a better and a worse answer yet."
    assert dialog.form_box.isHidden()
    where = dialog.where_label.text()
    assert not dialog.where_label.isHidden()
    assert all(w in where for w in ("Evaluate page", "compare two answers", "review queue", "At least 2 pairs"))
    dialog.reject()

    # a good answer alone, then one question only: refused with core's reasons
    feedback.append(root, [feedback.Judgement(kind="rating", prompt="转账限额是多少？", answers=["五万元。"], rating=1)])
    dialog = page.tune_on_judgements()
    assert "1 answers rated good have no answer rated bad" in dialog.refusal_label.text()
    assert "1 answers rated good have no answer rated bad to the same question: they make no pair" \
        in dialog.counts_label.text()
    dialog.reject()
    feedback.append(root, [feedback.Judgement(kind="rating", prompt="转账限额是多少？", answers=["不知道。"], rating=-1)])
    dialog = page.tune_on_judgements()
    with pytest.raises(WorkbenchError) as one:
        preference_operations.build_dpo_job(inst_project, "run-1")
    assert one.value.code == "dpo_too_few_pairs"
    assert dialog.refusal_label.text() == exception_text(one.value) and not dialog.start_button.isEnabled()
    dialog.reject()

    # choices, a rewrite and ratings: core's counts and recommendation
    _choices(root, 6)
    feedback.append(root, [feedback.Judgement(kind="rating", prompt="开户需要什么？", answers=["不清楚。"], rating=-1,
                                              rewrite="带上身份证到柜台办理。")])
    dialog = page.tune_on_judgements()
    job, rec, counts = preference_operations.build_dpo_job(inst_project, "run-1",
                                                           time_budget_min=page.time_budget.value())
    assert dialog.refusal_label.isHidden() and dialog.start_button.isEnabled() and not dialog.form_box.isHidden()
    assert (counts.pairs, counts.from_choices, counts.from_rewrites, counts.from_ratings) == (8, 6, 1, 1)
    assert counts.heldout >= 2
    assert (f"Your judgements make 8 pairs of a better and a worse answer: 6 from choices between two answers, "
            f"1 from rewritten answers, 1 from answers rated good and bad to the same question. {counts.heldout} "
            f"are held out to measure the tuning; {8 - counts.heldout} train.") in dialog.counts_label.text()
    shown = {k: label.text() for k, label in dialog.values.items()}
    assert shown["beta"] == f"{rec.beta:g}" and shown["learning_rate"] == f"{rec.learning_rate:g}"
    assert shown["epochs"] == f"{rec.epochs:g}" and shown["batch_size"] == str(rec.batch_size)
    assert shown["max_length"] == str(rec.max_length) and shown["where"] == "this computer"
    assert shown["estimate"] == "—" and job.estimate_s is None  # no model folder to estimate from
    assert "few_pairs" in rec.note_codes and f"Only {8 - counts.heldout} pairs train" in dialog.notes_label.text()
    assert not dialog.where_label.isHidden(), "few pairs: where to make more"
    # core's recommendation for the pairs first, then the losses core offers
    from workbench.core.preference import DPO_LOSSES, recommended_loss

    assert [dialog.loss_combo.itemData(i) for i in range(dialog.loss_combo.count())] == [None, *DPO_LOSSES]
    assert dialog.loss_combo.currentData() is None and dialog.job.dpo_loss == rec.loss == recommended_loss(counts)
    assert dialog.loss_combo.currentText() == "Recommended for your judgements: DPO (sigmoid loss)"
    dialog.loss_combo.setCurrentIndex(dialog.loss_combo.findData("simpo"))
    assert dialog.job.dpo_loss == "simpo"
    dialog.reject()


def _cli_job(monkeypatch, capsys, args):
    """The job `workbench train` builds for ``args``, caught where it would start."""
    from workbench.cli.main import build_parser, main
    from workbench.core.operations import runs as run_operations

    build_parser().parse_args(args)  # the real parser takes the line
    caught = []

    def start_run(project, job, **_kw):
        caught.append(job)
        raise WorkbenchError("caught before the start", code="test_caught")

    monkeypatch.setattr(run_operations, "start_run", start_run)
    main(args)
    capsys.readouterr()
    monkeypatch.undo()
    return caught[0]


def test_start_begins_the_run_the_command_line_would(qtbot, session, background, inst_project, monkeypatch, capsys):
    from workbench.core.jobs import read_job
    from workbench.core.operations import runs as run_operations
    from workbench.gui.pages.train import page as train_page

    root = inst_project.root
    finished_run(root, "run-1", task="instruction")
    _choices(root, 6)
    page = _page(qtbot, session, background, root)
    page.select_run("run-1")
    page.time_budget.setValue(7.5)
    qtbot.mouseClick(page.preference_box.button, Qt.MouseButton.LeftButton)
    dialog = page.preference_dialog
    assert dialog.time_budget.value() == 7.5  # the page's time budget
    dialog.loss_combo.setCurrentIndex(dialog.loss_combo.findData("ipo"))

    cli = _cli_job(monkeypatch, capsys, ["train", "--project", str(root), "--method", "dpo", "--from-run", "run-1",
                                         "--dpo-loss", "ipo", "--time-budget", "7.5"])
    procs, started = [], []

    def start_run(project, job, **_kw):  # the worker's start, without training
        run_dir = project.root / "runs" / "run-20260101-000000-tune"
        write_job(run_dir, job)
        started.append(job)
        proc = subprocess.Popen([sys.executable, "-c", "pass"])
        procs.append(proc)
        return run_operations.Started(run_dir, proc)

    monkeypatch.setattr(train_page.run_operations, "start_run", start_run)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(started), timeout=10000)
    for proc in procs:
        proc.wait()
    skip = {"cpu_busy", "cpu_cores"}  # the processor's load, read at the start by each
    gui = read_job(root / "runs" / "run-20260101-000000-tune")
    assert gui.method == "dpo" and gui.from_run == "run-1" and gui.dpo_loss == "ipo"
    assert gui.model_dump(exclude=skip) == cli.model_dump(exclude=skip)
    assert page.current_run == "run-20260101-000000-tune"


def test_a_preference_runs_curves_and_its_line_in_the_runs_list(qtbot, session, background, inst_project):
    root = inst_project.root
    finished_run(root, "run-1", task="instruction")
    run_dir = root / "runs" / "run-2"
    write_job(run_dir, JobSpec(project=str(root), template=INST, task="instruction", base_model="builtin:tiny",
                               method="dpo", from_run="run-1", dpo_beta=0.2))
    write_pid(run_dir, os.getpid())
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=6, method="dpo", from_run="run-1", base_model="builtin:tiny", device="cpu",
            trainable_params=1200, total_params=90000)
    page = _page(qtbot, session, background, root)
    page.select_run("run-2")
    curves = page.curves
    assert curves.lr_plot.isHidden() and not curves.reward_plot.isHidden() and not curves.accuracy_plot.isHidden()
    legend = [item[1].text for item in curves.loss_plot.legend.items]
    assert legend == ["tuning loss", "tuning loss on held-out pairs"]
    for step in (1, 2, 3):
        ev.emit("step", step=step, loss=0.69 - step / 100, lr=5e-4, reward_chosen=0.01 * step,
                reward_rejected=-0.01 * step, reward_margin=0.02 * step, preference_accuracy=0.5 + step / 10)
    ev.emit("eval", step=3, eval_loss=0.68, metrics={"reward_chosen": 0.02, "reward_rejected": -0.01,
                                                     "reward_margin": 0.03, "preference_accuracy": 0.75})
    ev.emit("log", level="info", code="preference_after", pairs=4, preference_accuracy=0.75, likelihood_accuracy=0.5,
            message="on 4 held-out pairs ...")
    qtbot.waitUntil(lambda: curves.accuracy_plot.point_count("eval_preference_accuracy") == 1, timeout=5000)
    for key in ("reward_chosen", "reward_rejected", "reward_margin"):
        assert curves.reward_plot.point_count(key) == 3
    assert curves.accuracy_plot.point_count("preference_accuracy") == 3 and page.loss_plot.point_count("loss") == 3
    log = page.log.toPlainText()
    assert "Preference accuracy 0.7500" in log and "Reward margin 0.0300" in log
    # seen in the window: "Training builtin:tiny on cpu" for the tuning of another run's model
    assert "Tuning the model of run run-1 on cpu: 1,200 of 90,000 parameters trainable, 6 steps." in log
    # seen in the window: "validation loss" where the loss is the DPO loss on the held-out pairs
    # the loss is the run's own (KTO, SimPO, sft ...), named as the curves name it
    assert "step 3: tuning loss on the held-out pairs 0.6800" in log
    assert "validation loss" not in log and "DPO loss" not in log
    assert ("After tuning, on 4 held-out pairs: the implicit reward prefers the chosen answer in 75% (0.5 is a coin "
            "toss); the model's likelihood in 50%") in log
    ev.emit("end", status="completed", error=None)
    ev.close()
    qtbot.waitUntil(lambda: session.monitor.status("run-2") == "completed", timeout=5000)
    table = page.runs_table
    row = table.row_of("run-2")
    model = table.item(row, table.columnCount() - 1)
    # seen in the window: "built-in small model · tuned on …" was cut to "built-in small …" in its
    # column; the run it tuned comes first, so that a cut cell still names it
    assert model.text() == "run-1 + your judgements"
    assert "A preference run: the model of run run-1, tuned on your judgements" in model.toolTip()
    assert not table.item(table.row_of("run-1"), table.columnCount() - 1).text().endswith("run-1")
    # another run in view: its plots again
    page.select_run("run-1")
    assert not curves.lr_plot.isHidden() and curves.reward_plot.isHidden()
    assert [item[1].text for item in curves.loss_plot.legend.items] == ["training loss", "validation loss"]


# ----- for real: a short DPO run of the built-in small model ---------------------------------


@pytest.mark.slow
def test_a_real_preference_run_finishes_shows_its_curves_and_the_evaluate_page_shows_its_figures(
        qtbot, session, background, inst_project):
    from trained_factory import train_run
    from workbench.gui.pages.evaluate.page import EvaluatePage

    project = inst_project
    train_run(project, "sft", base_model="builtin:small", method="full", steps=6, max_length=96)
    lines = project.split_path("train").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()][:8]
    # the reference answer chosen over another question's: what a person who knows the answers would pick
    feedback.append(project.root, [feedback.Judgement(
        kind="choice", prompt=r["instruction"], answers=[r["output"], rows[(i + 1) % len(rows)]["output"]],
        choice="a", run="sft") for i, r in enumerate(rows)])
    page = _page(qtbot, session, background, project.root)
    page.select_run("sft")
    dialog = page.tune_on_judgements()
    assert dialog.job is not None, dialog.refusal_label.text()
    # the range the run's start will report (the processor's load as the dialog counts it)
    from workbench.core.operations import runs as run_operations
    from workbench.core.runs import format_duration

    span = run_operations.estimate_range(run_operations.with_processor_load(dialog.job, None, *dialog._load,
                                                                            measure=False))
    assert span is not None and format_duration(span.high) in dialog.values["estimate"].text()
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.current_run not in (None, "sft"), timeout=10000)
    run_id = page.current_run
    qtbot.waitUntil(lambda: session.monitor.status(run_id) in ("completed", "failed", "crashed"), timeout=300000)
    log = (project.runs_dir / run_id / "worker.log")
    assert session.monitor.status(run_id) == "completed", log.read_text()[-3000:] if log.is_file() else ""
    curves = page.curves
    assert not curves.reward_plot.isHidden()
    assert curves.reward_plot.point_count("reward_margin") >= 1 and curves.accuracy_plot.point_count(
        "preference_accuracy") >= 1 and curves.accuracy_plot.point_count("eval_preference_accuracy") >= 1
    assert "After tuning, on" in page.log.toPlainText()

    res = subprocess.run([sys.executable, "-m", "workbench", "eval", "--project", str(project.root), "--run", run_id,
                          "--rows", "2", "--max-new-tokens", "8", "--compare-base", "--json"], capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    metrics = json.loads((project.runs_dir / run_id / "eval" / "metrics.json").read_text(encoding="utf-8"))
    pref = metrics["preference"]
    assert pref["from_run"] == "sft" and pref["heldout_pairs"] >= 2 and pref["base"]["preference_accuracy"] == 0.5
    assert metrics["metrics"]["preference_accuracy"] == pref["tuned"]["preference_accuracy"]
    assert metrics["base"]["preference_accuracy"] == 0.5 and "rouge_l" in metrics["base"]

    ev_page = EvaluatePage(session, background)
    qtbot.addWidget(ev_page)
    ev_page.refresh_runs()
    ev_page.run_combo.setCurrentIndex(ev_page.run_combo.findData(run_id))
    text = ev_page.results.preference_text
    qtbot.waitUntil(lambda: not text.isHidden(), timeout=10000)
    shown = text.text()
    assert f"Preference accuracy on {pref['heldout_pairs']} held-out pairs" in shown
    assert f"{pref['tuned']['preference_accuracy']:.0%}" in shown and "50% (a coin toss)" in shown
    assert "run sft" in shown and "ROUGE-L" in shown and "Loss on the answers" in shown


def test_the_dialogs_settings_get_their_full_height(qtbot, styled_app, session, background, inst_project):
    """Seen in the window: the loss box and the time budget were drawn squeezed, their text cut,
    the dialog shorter than its wrapped sentences and its form need."""
    root = inst_project.root
    finished_run(root, "run-1", task="instruction")
    _choices(root, 6)
    page = _page(qtbot, session, background, root)
    page.select_run("run-1")
    dialog = page.tune_on_judgements()
    qtbot.waitExposed(dialog)
    for field in (dialog.loss_combo, dialog.time_budget):
        assert field.height() >= field.sizeHint().height(), field
    assert dialog.height() >= dialog.layout().totalHeightForWidth(dialog.width())
    dialog.loss_combo.setCurrentIndex(dialog.loss_combo.findData("orpo"))  # the texts change: still whole
    assert dialog.loss_combo.height() >= dialog.loss_combo.sizeHint().height()
    dialog.reject()


def test_the_settings_column_keeps_the_last_ordinary_runs_settings_after_a_preference_run(
        qtbot, session, background, inst_project):
    """Seen in the window: reopened after a preference run, the settings column showed its
    learning rate and batch (the ones recommended for the pairs) and LoRA for the built-in
    model, for the next ordinary run."""
    root = inst_project.root
    first = root / "runs" / "run-1"
    write_job(first, JobSpec(project=str(root), template=INST, task="instruction", base_model="builtin:small",
                             method="full", learning_rate=2e-3, batch_size=8, epochs=2.0, time_budget_s=300))
    ev = EventWriter(first)
    ev.emit("start", total_steps=10)
    ev.emit("end", status="completed", error=None)
    ev.close()
    (first / "final").mkdir()
    tuned = root / "runs" / "run-2"
    write_job(tuned, JobSpec(project=str(root), template=INST, task="instruction", base_model="builtin:small",
                             method="dpo", from_run="run-1", learning_rate=5e-4, batch_size=4, epochs=3.0,
                             time_budget_s=600))
    page = _page(qtbot, session, background, root)
    assert page.method_combo.currentData() == "full"
    assert page.spins["learning_rate"].value() == 2e-3 and page.spins["batch_size"].value() == 8
    assert page.time_budget.value() == 5.0


def test_the_tuning_texts_are_chinese_in_a_chinese_window(qtbot, session, background, inst_project):
    """Seen in the Chinese window: the counts' sentences were joined by an English space ("。 其中")."""
    from PySide6.QtWidgets import QApplication
    from test_chinese_pages import LATIN_WORD, _english

    from workbench.gui import i18n
    from workbench.gui.pages.evaluate.results import ResultsPanel

    root = inst_project.root
    finished_run(root, "run-1", task="instruction")
    _choices(root, 6)
    feedback.append(root, [feedback.Judgement(kind="rating", prompt="开户需要什么？", answers=["身份证。"], rating=1)])
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        page = _page(qtbot, session, background, root)
        page.select_run("run-1")
        dialog = page.tune_on_judgements()
        page.curves.show_kind(True)
        texts = [page.preference_box.button.text(), page.preference_box.button.toolTip(), dialog.windowTitle(),
                 dialog.counts_label.text(), dialog.notes_label.text(), dialog.where_label.text(),
                 dialog.start_button.text(), dialog.values["where"].text(), dialog.loss_combo.toolTip(),
                 *[dialog.loss_combo.itemText(i) for i in range(dialog.loss_combo.count())],
                 *[item[1].text for plot in page.curves.plots() for item in plot.legend.items]]
        assert "。 " not in dialog.counts_label.text() and "其中" in dialog.counts_label.text()
        panel = ResultsPanel()
        qtbot.addWidget(panel)
        judged = {"preference_accuracy": 0.75, "likelihood_accuracy": 0.5, "pairs": 4}
        panel.show_result({"rows": 2, "split": "test", "base_model": "builtin:small", "method": "dpo",
                           "metrics": {"rouge_l": 0.2, "bleu": 3.0, "eval_loss": 2.5},
                           "base": {"rouge_l": 0.25, "bleu": 4.0, "eval_loss": 2.4},
                           "preference": {"from_run": "run-1", "loss": "sigmoid", "beta": 0.2, "train_pairs": 4,
                                          "heldout_pairs": 4, "tuned": judged,
                                          "base": {**judged, "preference_accuracy": 0.5}}})
        texts += [re.sub(r"<[^>]+>|&nbsp;", " ", label.text()) for label in (panel.preference_text, panel.summary_text)]
        assert all(texts), texts
        known = {"DPO", "LoRA", "IPO", "Hinge", "KTO", "SimPO", "ORPO", "sigmoid", "Beta", "beta", "ROUGE", "BLEU",
                 "run"}
        english = _english([("", "", t) for t in texts], known | set(LATIN_WORD.findall(str(root))))
        assert not english, english
        dialog.reject()
    finally:
        i18n.install(app, "en")


def test_an_answer_runs_figures_take_the_results_tabs_width(qtbot):
    """Seen in the window: for a run that writes answers the left half of the Results tab, where a
    classifier's confusion matrix goes, stayed empty and the figures were squeezed into the right."""
    from workbench.gui.pages.evaluate.results import ResultsPanel

    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.resize(1100, 500)
    panel.show()
    qtbot.waitExposed(panel)
    panel.show_result({"rows": 2, "split": "test", "base_model": "builtin:small", "method": "full", "task": "instruction",
                       "metrics": {"rouge_l": 0.2, "bleu": 3.0, "eval_loss": 2.5}})
    left = panel.splitter.widget(0)
    assert left.isHidden()
    qtbot.waitUntil(lambda: panel.summary_text.width() > 900, timeout=5000)
    panel.show_result({"rows": 3, "split": "test", "base_model": "builtin:tiny", "method": "full",
                       "task": "classification", "metrics": {"accuracy": 0.5, "labels": ["a", "b"],
                                                             "confusion": [[1, 0], [1, 1]]}})
    assert not left.isHidden()  # a classifier's matrix is back

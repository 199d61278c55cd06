"""The Train page's "Start from the frozen model" (a pretrained head's first stage), for a
classification project with a pretrained model: what it asks core for, and that core's
recommendation and job carry it."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from workbench.cli import build_parser
from workbench.core.operations import runs as run_operations
from workbench.core.recommend import stage_plan
from workbench.gui.pages.train.settings_notes import stages_text

sys.path.insert(0, str(Path(__file__).parents[1]))
from model_factory import make_model_folder  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))


def test_the_check_box_asks_core_for_the_frozen_start(qtbot, tmp_path, session, background):
    from test_decoder_head import make_project  # noqa: E402 (tests/engine)

    from workbench.gui.pages.train.settings_panel import TrainSettingsPanel

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    panel = TrainSettingsPanel(session, background)
    qtbot.addWidget(panel)
    session.open(project.root)
    panel.show_project()
    panel.model_combo.setCurrentIndex(panel.model_combo.findData("folder"))
    panel.model_edit.setText(str(base))
    panel._on_model_edit_finished()
    panel.show()
    # the frozen start is the default, as core's is; cleared, the head trains by LoRA alone
    assert panel.frozen_check.isVisible() and panel.frozen_check.isChecked()
    job = panel.job_spec()
    assert job.head and all(getattr(job, k) == v for k, v in run_operations.FROZEN_START.items())
    assert job.model_dump() == run_operations.build_job(project, str(base), time_budget_min=10.0).model_dump(
        exclude={"cpu_busy", "cpu_cores"}) | {"cpu_busy": job.cpu_busy, "cpu_cores": job.cpu_cores}
    panel.frozen_check.setChecked(False)
    plain = panel.job_spec()
    assert not plain.head_features and not plain.head_linear and plain.head_depth is None
    assert plain.head_pooling == "last"
    args = build_parser().parse_args(["train", "--project", str(project.root), "--base-model", str(base),
                                      "--no-head-features"])
    cli_plain = run_operations.build_job(project, str(base), head_features=args.head_features)
    assert {k: getattr(cli_plain, k) for k in run_operations.PLAIN_HEAD} == run_operations.PLAIN_HEAD
    panel.frozen_check.setChecked(True)
    job = panel.job_spec()
    # the estimate counts the pass over the rows before LoRA's steps, and the note says which stages fit
    rec = panel.recommendation()
    assert rec.notes[0].startswith("In two stages: the head is first fitted on the model's states")
    shown = panel._notes(rec, job)
    assert shown[0] == stages_text(stage_plan(rec), False) and "min" in shown[0]
    # met in the window: the person's own steps and the processor's load were not the note's
    panel.max_steps.setValue(3)
    panel._update_estimate()
    note = next(line for line in panel.estimate_label.text().splitlines() if line.startswith("In two stages"))
    assert "about 3 steps over" in note
    # the built-in model trains no such head: the box goes
    panel.model_combo.setCurrentIndex(panel.model_combo.findData("builtin:small"))
    assert not panel.frozen_check.isVisible() and not panel.job_spec().head_features
    # the command line's flags give the same job
    args = build_parser().parse_args(["train", "--project", str(project.root), "--base-model", str(base),
                                      "--head-features", "--head-linear", "--head-pooling", "mean",
                                      "--head-depth", "0.5"])
    cli_job = run_operations.build_job(project, str(base), **{k: getattr(args, k) for k in run_operations.FROZEN_START})
    assert {k: getattr(cli_job, k) for k in run_operations.FROZEN_START} == run_operations.FROZEN_START


def test_a_run_of_a_few_steps_still_counts_the_pass_over_the_rows(tmp_path):
    """Met in the window: a frozen start restored with one step was estimated at seconds, though
    its first stage reads every row (the recommendation's note said minutes)."""
    from test_decoder_head import make_project  # noqa: E402 (tests/engine)

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    _, rec = run_operations.recommended_settings(project, str(base), "lora", head_settings=run_operations.FROZEN_START)
    assert rec.fixed_seconds > 0
    job = run_operations.build_job(project, str(base), max_steps=1, **run_operations.FROZEN_START)
    assert job.estimate_s >= rec.fixed_seconds


def test_the_stages_note_says_what_the_budget_leaves_for_lora(tmp_path):
    from test_decoder_head import make_project  # noqa: E402 (tests/engine)

    from workbench.core.recommend import COMPARE_FACTOR, STAGES_NOTE_START, second_stage_fits

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    plans = {}
    for budget in (0.5, 30.0):
        _, rec = run_operations.recommended_settings(project, str(base), "lora", time_budget_min=budget,
                                                     head_settings=run_operations.FROZEN_START)
        plans[budget] = plan = stage_plan(rec)
        assert plan.rows == sum(project.config.stats["splits"][k] for k in ("train", "val"))
        assert plan.first_s == rec.fixed_seconds > 0
        assert abs(plan.first_s + plan.compare_s + plan.left_s - budget * 60) < 1 or plan.left_s == 0
        [note] = [n for n in rec.notes if n.startswith(STAGES_NOTE_START)]
        assert (("the run keeps the head it fits" in note) == plan.squeezed) and ((" min left" in note) != plan.squeezed)
    assert plans[0.5].squeezed and not plans[30.0].squeezed and plans[30.0].compare_s > 0
    # the read of the validation rows that compares LoRA with the frozen start comes out of LoRA's
    # time: where it leaves too little, the plan keeps the first stage, as the worker then does
    slow = dataclasses.replace(rec, first_stage_val_rows=int((plans[30.0].left_s - 60) / (COMPARE_FACTOR * rec.first_stage_row_s)))
    assert stage_plan(slow).squeezed and not second_stage_fits(plans[30.0].left_s + plans[30.0].compare_s,
                                                             stage_plan(slow).compare_s)
    # a run without the frozen start has no stages
    _, plain = run_operations.recommended_settings(project, str(base), "lora", time_budget_min=30.0,
                                                   head_settings={"head_features": False})
    assert stage_plan(plain) is None and not any(n.startswith(STAGES_NOTE_START) for n in plain.notes)


def test_a_budget_bounds_the_first_stage_and_the_note_says_how_many_rows_it_reads(tmp_path):
    """10,000 rows of a pretrained model on a processor take longer to read than a 10-minute
    budget: the first stage reads for FIRST_STAGE_SHARE of it and the note says how many rows
    that reaches, in both front ends' words from one plan."""
    from dataclasses import replace

    from test_decoder_head import make_project  # noqa: E402 (tests/engine)

    from workbench.core.recommend import FIRST_STAGE_SHARE, feature_fit_seconds, stages_note

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    _, rec = run_operations.recommended_settings(project, str(base), "lora", time_budget_min=10.0,
                                                 head_settings=run_operations.FROZEN_START)
    assert stage_plan(rec).read_rows == stage_plan(rec).rows  # a few hundred short rows: all of them
    big = replace(rec, first_stage_rows=10_000, first_stage_row_s=0.2, time_budget_s=600.0)
    plan = stage_plan(big)
    assert plan.read_rows == int(FIRST_STAGE_SHARE * 600 / 0.2) < plan.rows == 10_000
    # the fit on the rows read, for the project's labels
    assert plan.first_s == round(FIRST_STAGE_SHARE * 600 + feature_fit_seconds(plan.read_rows, len(project.task.labels)), 1)
    assert "about 2,250 of the 10,000 training and validation rows" in stages_note(plan, "lora")
    assert "about 2,250 of the 10,000" in stages_text(plan, False)
    # a busier processor reads fewer in the same time
    assert stage_plan(big, load_factor=2.0).read_rows == plan.read_rows // 2
    # seen in the window, the processor 100 % busy (4x): "about 8 min of reading" in a 5-minute
    # budget, the fit's minute counted four times over; no stage outlasts the budget
    busy = stage_plan(replace(big, time_budget_s=300.0), load_factor=4.0)
    assert busy.first_s <= 300.0 and busy.squeezed


def test_the_fit_after_the_pass_is_counted_from_the_rows_and_labels():
    """The fit's allowance follows what was measured: a few seconds for thousands of rows of two
    labels (ATEC's 9,456 took 4 s), up to its minute for many labels (KUAKE-QIC's 7,985 rows of 11
    took 36 to 92 s), never less than its floor."""
    from workbench.core.recommend import FEATURE_FIT_MIN_S, FEATURE_FIT_S, feature_fit_seconds

    assert 4.0 < feature_fit_seconds(9_456, 2) < 30.0
    assert feature_fit_seconds(7_985, 11) == FEATURE_FIT_S
    assert feature_fit_seconds(50, 2) == FEATURE_FIT_MIN_S
    assert feature_fit_seconds(1_000, 1) == feature_fit_seconds(1_000, 2)  # one label is two classes

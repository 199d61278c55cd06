"""Before an export starts, the Export page and the command line say how much memory it will
take (core estimates it from the run's model and the formats), and warn where it exceeds what
is free. Seen: a Gemma 3 270M export peaked at 13 GB with no word beforehand."""

import json

from trained_factory import finished_run

from workbench.gui.pages.export.page import ExportPage


def _gemma_like_folder(root):
    """A model folder whose config.json describes Gemma 3 270M (no weights: the estimate reads the config)."""
    folder = root / "gemma-like"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "model_type": "gemma3_text", "hidden_size": 640, "num_hidden_layers": 18, "vocab_size": 262144,
        "intermediate_size": 2048, "tie_word_embeddings": True}), encoding="utf-8")
    return folder


def test_the_estimate_grows_with_the_model_and_with_what_the_formats_hold_at_once(tmp_path):
    from workbench.core.operations.export import EXPORT_RUNTIME_MB, export_estimate

    big = finished_run(tmp_path, "run-big", str(_gemma_like_folder(tmp_path)), "instruction")
    small = finished_run(tmp_path, "run-small", "builtin:tiny")
    gguf = export_estimate(big, ["gguf"], available_mb=16_000)
    both = export_estimate(big, ["static", "gguf"], available_mb=16_000)
    assert 1000 < gguf.weights_mb < 1100  # 268M fp32 weights
    assert EXPORT_RUNTIME_MB + 2 * gguf.weights_mb < gguf.memory_mb <= both.memory_mb < 4096
    assert export_estimate(big, ["static", "onnx"], available_mb=16_000).memory_mb > both.memory_mb
    assert export_estimate(small, ["static"], available_mb=16_000).memory_mb < EXPORT_RUNTIME_MB + 10
    assert gguf.fits and not export_estimate(big, ["gguf"], available_mb=2000).fits


def test_the_export_page_shows_the_memory_for_the_ticked_formats(qtbot, session, background, sample_project, monkeypatch):
    finished_run(sample_project, "run-lm", str(_gemma_like_folder(sample_project)), "instruction")
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    page.run_combo.setCurrentIndex(page.run_combo.findData("run-lm"))
    first = page.memory_label.text()
    assert "GB of memory" in first and "free" not in first and page.memory_label.objectName() == "hint"
    page.format_checks["onnx"].setChecked(not page.format_checks["onnx"].isChecked())
    assert page.memory_label.text() != first  # the ticked formats decide it
    import psutil

    class Scarce:
        available = 1024 ** 3  # 1 GB free
    monkeypatch.setattr(psutil, "virtual_memory", lambda: Scarce)
    page.format_checks["gguf"].setChecked(True)
    assert "only 1.0 GB is free" in page.memory_label.text() and page.memory_label.objectName() == "warning"
    for c in page.format_checks.values():
        c.setChecked(False)
    assert page.memory_label.text() == ""


def test_what_is_made_unless_asked_is_one_decision_and_fits_in_4_gb(qtbot, session, background, sample_project):
    """Seen: `workbench export` made static, merged and ONNX unless told otherwise, 13.4 GB at its
    peak for Gemma 3 270M, while the Export page ticked static and merged. Both now start from
    core's default: the static model predict.py and serve.py run."""
    from workbench.cli import build_parser
    from workbench.core.operations.export import DEFAULT_FORMATS, export_estimate

    run = finished_run(sample_project, "run-lm", str(_gemma_like_folder(sample_project)), "instruction")
    assert export_estimate(run, DEFAULT_FORMATS, available_mb=16_000).memory_mb < 4096
    assert build_parser().parse_args(["export", "--project", "p", "--run", "r"]).formats is None  # -> the default
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    page.run_combo.setCurrentIndex(page.run_combo.findData("run-lm"))
    ns = build_parser().parse_args(page.export_args("run-lm"))
    assert tuple(ns.formats.split(",")) == DEFAULT_FORMATS == tuple(page.ticked_formats())

"""The Export page offers the GGUF format: unticked at first, passed to the command, shown in the result."""

from workbench.cli import build_parser
from trained_factory import finished_run

from workbench.gui.pages.export.page import ExportPage


def test_the_gguf_format_is_offered_unticked_and_reaches_the_command(qtbot, session, background, sample_project):
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    box = page.format_checks["gguf"]
    assert not box.isChecked() and "llama.cpp" in box.text()
    assert "gguf" not in build_parser().parse_args(page.export_args("run-x")).formats.split(",")
    box.setChecked(True)
    ns = build_parser().parse_args(page.export_args("run-x"))
    assert "gguf" in ns.formats.split(",") and ns.gguf_type == "f16"
    page.show_result({"formats": {"gguf": {"status": "ok", "max_abs_diff": 1.5e-3,
                                           "files": ["gguf/model-f16.gguf", "gguf/Modelfile"]}}})
    assert page.table.rowCount() == 1
    cells = [page.table.item(0, c).text() for c in range(page.table.columnCount())]
    assert cells[0].startswith("GGUF") and "largest difference 0.0015" in cells and "gguf/Modelfile" in cells[-1] + cells[-2]


def test_gguf_is_not_offered_for_the_built_in_classifier(qtbot, session, background, sample_project):
    """Seen: GGUF could be ticked for a built-in classifier run; the export then failed after about
    15 s with "The built-in classifier has no GGUF form…". It is refused up front, as int8 is."""
    finished_run(sample_project, "run-x", "builtin:tiny")
    finished_run(sample_project, "run-lm", "Qwen/Qwen2-0.5B")
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    box = page.format_checks["gguf"]
    page.run_combo.setCurrentIndex(page.run_combo.findData("run-lm"))  # a language model: offered
    assert box.isEnabled() and "llama.cpp" in box.text()
    box.setChecked(True)
    page.run_combo.setCurrentIndex(page.run_combo.findData("run-x"))
    assert not box.isEnabled() and not box.isChecked()
    assert "not a language model" in box.text() and "no GGUF form" in box.toolTip()
    box.setChecked(True)  # even ticked by the program, a refused format is not asked for
    assert "gguf" not in build_parser().parse_args(page.export_args("run-x")).formats.split(",")
    page.run_combo.setCurrentIndex(page.run_combo.findData("run-lm"))
    assert box.isEnabled() and box.text().startswith("GGUF")


def test_the_core_refuses_gguf_for_the_built_in_classifier_only():
    from workbench.core.operations.export import NO_GGUF, gguf_refusal

    assert gguf_refusal("builtin:tiny", "classification") == "builtin_classifier" in NO_GGUF
    assert gguf_refusal("builtin:small", "instruction") is None
    assert gguf_refusal("Qwen/Qwen2-0.5B", "classification") is None

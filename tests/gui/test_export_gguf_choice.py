"""The Export page offers the GGUF format: unticked at first, passed to the command, shown in the result."""

from workbench.cli import build_parser
from workbench.gui.pages.export_page import ExportPage


def test_the_gguf_format_is_offered_unticked_and_reaches_the_command(qtbot, session, tasks, sample_project):
    session.open(sample_project)
    page = ExportPage(session, tasks)
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
    assert cells[0].startswith("GGUF") and "1.50e-03" in cells and "gguf/Modelfile" in cells[-1] + cells[-2]

"""What a child command writes on stderr reaches the window's logs as plain text, without
PaddleFormers' notice about PyTorch that every process loading it used to print."""

from __future__ import annotations

import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.gui.pages.export.page import ExportPage  # noqa: E402

from trained_factory import CLS, RUN, trained_project  # noqa: E402


@pytest.mark.slow
def test_the_export_log_is_plain_text_without_the_torch_notice(qtbot, session, background, tmp_path):
    project = trained_project(CLS, tmp_path)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    session.open(project.root)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)
    for fmt, check in page.format_checks.items():
        check.setChecked(fmt == "static")
    stderr: list[str] = []
    assert page.export()
    page.export_op.log_line.connect(stderr.append)
    with qtbot.waitSignal(page.export_finished, timeout=300000):
        pass
    log = page.log.toPlainText()
    assert page.result is not None, log
    assert stderr, "the export wrote nothing on stderr: the check below would hold trivially"
    assert "\x1b" not in log  # no colour codes (PaddleFormers' logger writes them to a pipe too)
    assert "PyTorch" not in log, log


def test_plain_text_strips_terminal_codes():
    from workbench.gui.commands import plain_text

    assert plain_text("\x1b[33m[2026] [ WARNING]\x1b[0m - x\x1b[0m") == "[2026] [ WARNING] - x"
    assert plain_text("100%|\x1b[2K██") == "100%|██"
    assert plain_text("plain 文本") == "plain 文本"

"""Opening another project leaves nothing of the previous one on the pages: the Split tab's
command line, the predicted file and its "Saved to", the playground's question and answer."""

from __future__ import annotations

import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.gui.pages.data.page import DataPage  # noqa: E402
from workbench.gui.pages.evaluate.page import EvaluatePage  # noqa: E402

from trained_factory import CLS, RUN, USER_COLUMNS, trained_project, user_frame  # noqa: E402


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return trained_project(CLS, tmp_path_factory.mktemp("switch"))


@pytest.mark.slow
def test_nothing_of_the_previous_project_stays_on_the_pages(qtbot, session, background, project, tmp_path):
    data = DataPage(session, background)
    page = EvaluatePage(session, background)
    qtbot.addWidget(data)
    qtbot.addWidget(page)
    with qtbot.waitSignal(data.cleaned, timeout=60000):
        session.open(project.root)
    source = project.config.source.path
    qtbot.waitUntil(lambda: source in data.command_box.args, timeout=10000)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)

    # in the first project: a file predicted and saved, a question asked
    new = user_frame(CLS).head(6).drop(columns=[USER_COLUMNS[CLS]["label"]])
    src = tmp_path / "next-month.csv"
    new.to_csv(src, index=False)
    apply = page.apply
    apply.set_input(src)
    with qtbot.waitSignal(apply.prediction_finished, timeout=180000):
        assert apply.start()
    qtbot.waitUntil(lambda: apply.model.rowCount() == 6, timeout=10000)
    with qtbot.waitSignal(apply.result_saved, timeout=30000):
        apply.save_as(tmp_path / "saved.csv")
    assert str(tmp_path / "saved.csv") in apply.status_label.text()
    page.prompt_edit.setText("央行宣布降准，市场流动性有望改善")
    with qtbot.waitSignal(page.playground_finished, timeout=180000):
        page._on_generate_clicked()
    assert page.answer.toPlainText()

    # another project, of another template, with no data yet
    template = TemplateCatalog().get("medical_triage")
    session.create(tmp_path / "triage", template)
    assert data.command_box.args == [] and source not in data.command_box.line.toPlainText()
    assert not data.command_box.copy_button.isEnabled()
    assert apply.model.rowCount() == 0 and apply.result.empty
    assert apply.input_path is None and not apply.run_button.isEnabled() and not apply.save_button.isEnabled()
    assert "saved.csv" not in apply.status_label.text() and src.name not in apply.file_label.text()
    assert page.prompt_edit.text() == "" and page.answer.toPlainText() == ""

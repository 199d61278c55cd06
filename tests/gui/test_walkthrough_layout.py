"""Layout at the window's default size (1366x768, a common laptop screen): nothing clipped."""

import pytest

from workbench.gui.pages.train_page import TrainPage


@pytest.fixture
def styled_app(qapp):
    """The application's own font and style sheet, which decide how wide the rows are."""
    from workbench.gui.app import setup
    from workbench.gui.settings import Settings

    font, sheet = qapp.font(), qapp.styleSheet()
    setup(qapp, Settings())
    yield qapp
    qapp.setStyleSheet(sheet)
    qapp.setFont(font)


def test_train_settings_column_fits_without_a_horizontal_scroll_bar(qtbot, styled_app, session, tasks, sample_project):
    page = TrainPage(session, tasks)
    qtbot.addWidget(page)
    session.open(sample_project)
    # the page's share of a 1366x768 window once the step list on the left is drawn
    page.resize(1176, 700)
    page.show()
    qtbot.waitExposed(page)
    scroll = page.settings_scroll
    assert scroll.viewport().width() >= scroll.widget().minimumSizeHint().width(), \
        "the settings column is cut off on the right (Time budget, Resume)"

"""The Train page's log lines for the worker's coded events: in the interface language, with the
event's figures."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from workbench.gui import i18n
from workbench.gui.pages.train.run_log import log_text


def test_a_first_stage_the_budget_stopped_is_told_in_both_languages(qtbot):
    ev = {"event": "log", "code": "feature_pass_partial", "read": 4480, "rows": 10055,
          "message": "the time budget's first stage read 4480 of the 10055 training rows: ..."}
    app = QApplication.instance()
    try:
        assert i18n.install(app, "en") == "en"
        assert log_text(ev) == ("The time budget's first stage read 4,480 of the 10,055 training rows: the head is "
                                "fitted on them, the word statistics on all of them")
        i18n.install(app, "zh_CN")
        text = log_text(ev)
        assert "4,480" in text and "10,055" in text and "time budget" not in text
    finally:
        i18n.install(app, "en")

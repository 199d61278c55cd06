"""The Train page's log lines for the worker's coded events: in the interface language, with the
event's figures."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from workbench.gui import i18n
from workbench.gui.pages.train.run_log import log_text

CASES = [
    ({"event": "log", "code": "feature_pass_partial", "read": 4480, "rows": 10055,
      "message": "the time budget's first stage read 4480 of the 10055 training rows: ..."},
     "The time budget's first stage read 4,480 of the 10,055 training rows: the head is fitted on them, the word "
     "statistics on all of them", ("4,480", "10,055")),
    # a frozen start kept for want of time
    ({"event": "log", "code": "frozen_start_only", "left_s": 108.2, "need_s": 575.4, "frozen_macro_f1": 0.89,
      "message": "the first stage left 108 s of the time budget, ..."},
     "The first stage left 108 s of the time budget, under the 575 s that LoRA's steps and the comparison after "
     "them take: the frozen start is the run's model", ("108", "575")),
]


@pytest.mark.parametrize("ev, english, figures", CASES, ids=[c[0]["code"] for c in CASES])
def test_a_first_stage_event_is_told_in_both_languages(qtbot, ev, english, figures):
    app = QApplication.instance()
    try:
        assert i18n.install(app, "en") == "en"
        assert log_text(ev) == english
        i18n.install(app, "zh_CN")
        text = log_text(ev)
        assert all(f in text for f in figures) and "time budget" not in text
    finally:
        i18n.install(app, "en")

"""The Start/Stop/Resume row stays whole in view at 1366x768, however long the settings are and
after a restart restores the window."""

from __future__ import annotations

import pytest


def _whole(button) -> bool:
    return button.isVisible() and button.visibleRegion().boundingRect().size() == button.size()


@pytest.mark.parametrize("restart", [False, True])
def test_start_stop_resume_are_whole_at_1366x768(qtbot, styled_app, sample_project, laptop_window, restart):
    if restart:  # the first window closes at this size; the second restores it
        laptop_window().close()
    w = laptop_window(sample_project, resize=not restart)
    page = w.show_step("train")
    qtbot.waitUntil(lambda: page.isVisible(), timeout=5000)
    assert w.height() <= 768
    for b in (page.start_button, page.stop_button, page.resume_button):
        qtbot.waitUntil(lambda b=b: _whole(b), timeout=5000)


def test_a_running_runs_progress_line_keeps_the_window_within_1366(qtbot, styled_app, sample_project,
                                                                  laptop_window):
    """While a run trains, its progress line (step, tokens/s, time left, the whole run's range)
    once made the window wider than a 1366-pixel screen in English; it wraps instead."""
    w = laptop_window(sample_project)
    page = w.show_step("train")
    page._estimate = {"low": 200, "high": 400, "basis": "recommendation"}
    line = page.tr("step {0} of {1} · {2:.0f} tokens/s · about {3} left").format(10, 60, 736757.0, "00:01")
    page.progress_label.setText(line + page._estimate_text())
    qtbot.wait(50)
    # the line takes the room the curves leave it: it never sets the page's width
    assert page.progress_label.minimumSizeHint().width() < 300
    assert w.minimumSizeHint().width() <= 1366 and w.width() <= 1366

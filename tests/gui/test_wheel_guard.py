"""The mouse wheel scrolls a panel of settings; it changes only the field the user is in.

Seen in a real window at 1366x768: scrolling over the Train page's settings changed LoRA
dropout from 0.050 to 0.020 and weight decay from 0.010 to 0.001 while the panel stood still.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication


def _wheel(widget, down: bool = True) -> None:
    """One notch of the wheel over the middle of ``widget``, delivered as Qt delivers it."""
    pos = QPointF(widget.rect().center())
    glob = QPointF(widget.mapToGlobal(pos.toPoint()))
    delta = -120 if down else 120
    event = QWheelEvent(pos, glob, QPoint(0, 0), QPoint(0, delta), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def _train_page(qtbot, laptop_window, sample_project):
    w = laptop_window(sample_project)
    w.show_step("train")
    page = w.page("train")
    qtbot.waitExposed(page)
    page.settings_scroll.setFocus()
    # a short window, so that the settings column surely has something to scroll
    w.resize(1366, 500)
    qtbot.waitUntil(lambda: page.settings_scroll.verticalScrollBar().maximum() > 0, timeout=5000)
    return page


def test_the_wheel_over_an_unfocused_setting_scrolls_the_panel(qtbot, styled_app, laptop_window, sample_project):
    page = _train_page(qtbot, laptop_window, sample_project)
    bar = page.settings_scroll.verticalScrollBar()
    for name in ("weight_decay", "warmup_ratio", "learning_rate"):
        spin = page.spins[name]
        page.settings_scroll.ensureWidgetVisible(spin)
        assert spin.isEnabled() and not spin.hasFocus()
        before, top = spin.value(), bar.value()
        _wheel(spin, down=top < bar.maximum())
        assert spin.value() == before, f"{name} changed under the wheel"
        assert bar.value() != top, "the settings panel did not scroll"
    combo = page.preset_combo
    page.settings_scroll.ensureWidgetVisible(combo)
    index = combo.currentIndex()
    _wheel(combo)
    _wheel(combo, down=False)
    assert combo.currentIndex() == index
    # the wheel gives no focus; a click or Tab does
    assert page.spins["weight_decay"].focusPolicy() == Qt.FocusPolicy.StrongFocus


def test_the_wheel_changes_the_setting_the_user_is_in(qtbot, styled_app, laptop_window, sample_project):
    page = _train_page(qtbot, laptop_window, sample_project)
    spin = page.spins["weight_decay"]
    page.settings_scroll.ensureWidgetVisible(spin)
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=2000)
    before = spin.value()
    _wheel(spin, down=False)
    assert spin.value() > before

"""The mouse wheel scrolls the page; it changes a setting only in the field the user is in.

Qt lets a spin box, combo box or slider take the wheel whenever the pointer passes over
it, so scrolling down a panel of settings changed the values under the pointer while the
panel stood still. One filter on the application fixes this for every window and dialog:

- such a field takes focus by a click or Tab, no longer by the wheel (Qt.StrongFocus);
- a wheel turn over a field without focus goes to the scroll area around it, which
  scrolls; with focus, the field changes as before.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QScrollBar, QWidget,
)


def _guarded(obj: QObject) -> bool:
    return isinstance(obj, (QAbstractSpinBox, QComboBox, QAbstractSlider)) and not isinstance(obj, QScrollBar)


class WheelGuard(QObject):
    """An application event filter: see the module's docstring."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.Type.Polish and _guarded(obj):
            if obj.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                obj.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        elif kind == QEvent.Type.Wheel and _guarded(obj) and not obj.hasFocus():
            if not _scroll_enclosing(obj, event):
                event.ignore()  # ignored and filtered: Qt offers it to the parent widgets
            return True
        return False


def _scroll_enclosing(widget: QWidget, event: QWheelEvent) -> bool:
    """Hand ``event`` to the nearest scroll area around ``widget``; False if there is none."""
    area = widget.parentWidget()
    while area is not None and not isinstance(area, QAbstractScrollArea):
        area = None if area.isWindow() else area.parentWidget()
    if area is None:
        return False
    viewport = area.viewport()
    glob = event.globalPosition()
    QApplication.sendEvent(viewport, QWheelEvent(
        viewport.mapFromGlobal(glob), glob, event.pixelDelta(), event.angleDelta(), event.buttons(),
        event.modifiers(), event.phase(), event.inverted(), event.source()))
    return True


def install(app: QApplication) -> WheelGuard:
    """Install the guard on ``app`` once; widgets that already exist get the focus policy too."""
    guard = app.findChild(WheelGuard)
    if guard is None:
        guard = WheelGuard(app)
        app.installEventFilter(guard)
        for w in app.allWidgets():
            if _guarded(w) and w.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    return guard


def uninstall(app: QApplication) -> None:
    guard = app.findChild(WheelGuard)
    if guard is not None:
        app.removeEventFilter(guard)
        guard.deleteLater()
        guard.setParent(None)

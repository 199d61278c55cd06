"""Live curves: the repaint of a long curve takes pyqtgraph's fast path."""

from workbench.gui.widgets.curves import CurvePlot


def test_a_live_curve_is_drawn_as_line_segments(qtbot):
    plot = CurvePlot("loss")
    qtbot.addWidget(plot)
    solid = plot.add_series("loss", "training loss", "#2f6fde")
    for step in range(1, 3001):
        plot.append("loss", step, 5.0 / step ** 0.3)
    plot.flush()
    curve = solid.item.curve
    assert len(curve.getData()[0]) == 3000
    # an antialiased 2 px path is stroked, which took most of each repaint on the UI thread
    assert curve.opts["pen"].widthF() == 2 and curve._shouldUseDrawLineSegments(curve.opts["pen"])

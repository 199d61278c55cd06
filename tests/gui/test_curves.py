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


def test_a_one_point_learning_rate_chart_has_no_negative_axis(qtbot):
    """Seen after the first logged step: the learning-rate axis ran from -0.5 to 0.5."""
    plot = CurvePlot("Learning rate")
    qtbot.addWidget(plot)
    plot.add_series("lr", "learning rate", "#2f6fde")
    plot.resize(400, 300)
    plot.show()
    qtbot.waitExposed(plot)
    plot.append("lr", 10, 2e-4)
    plot.flush()
    (_, _), (y0, y1) = plot.plot.getViewBox().viewRange()
    assert y0 >= -1e-4 and y1 < 1e-3 and y0 < 2e-4 < y1, (y0, y1)
    # a second, different value: the axis fits the curve again
    plot.append("lr", 20, 1e-4)
    plot.flush()
    qtbot.waitUntil(lambda: plot.plot.getViewBox().viewRange()[1][1] < 2.1e-4, timeout=3000)
    (_, _), (y0, y1) = plot.plot.getViewBox().viewRange()
    assert 0.9e-4 < y0 + 1e-5 and y1 < 2.1e-4, (y0, y1)

"""The report's per-class charts stay readable, and quick to draw, with tens of labels."""

import base64
import struct

import numpy as np

from workbench.engine.evaluation import report


def _size(b64: str) -> tuple[int, int]:
    raw = base64.b64decode(b64)
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", raw[16:24])


def _charges(n: int) -> list[str]:
    return [f"非法{'持有、私藏' * (i % 3)}罪名{i}" for i in range(n)]


def test_a_confusion_matrix_of_62_charges_stays_about_a_page_wide():
    report._setup_matplotlib()
    labels = _charges(62)
    rng = np.random.default_rng(0)
    cm = np.diag(rng.integers(1, 60, 62)) + (rng.random((62, 62)) > 0.97)
    w, h = _size(report._confusion_plot(cm.tolist(), labels))
    # a fixed cell drew this 5,300 px wide; the labels' text adds to the matrix itself
    assert w < 1800 and h < 1800
    small_w, _ = _size(report._confusion_plot(np.diag([3, 4, 5]).tolist(), ["肝病科", "消化科", "心内科"]))
    assert small_w < 700  # a few labels keep their large cells


def test_many_classes_get_one_bar_group_per_row():
    report._setup_matplotlib()
    labels = _charges(40)
    per_class = {lab: {"precision": 0.5, "recall": 0.6, "f1": 0.55, "support": 3} for lab in labels}
    w, h = _size(report._per_label_bars(per_class, labels, labels))
    assert h > 2 * w and w < 1400  # grows down the page, not 5,000 px across

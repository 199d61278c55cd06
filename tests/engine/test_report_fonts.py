"""The report's charts draw Chinese labels and Latin digits with real glyphs."""

import warnings

from workbench.engine.evaluation import report


def test_chart_text_has_a_glyph_for_every_character():
    assert report._setup_matplotlib()  # a CJK face: the system's, or the subset the app ships
    import matplotlib.pyplot as plt

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots()
        ax.set_title("混淆矩阵 confusion 0123456789")
        ax.bar(["肝病科", "消化科", "step 10"], [1, 2, 3])
        report._png(fig)
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert not missing, missing[:3]

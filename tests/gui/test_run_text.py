"""How a run's settings read on the pages (gui/pages/run_text.py)."""

from workbench.core.jobs import JobSpec
from workbench.gui.pages.run_text import hyper_label, setting_text
from workbench.gui.pages.train.runs_list import NOT_COMPARED


def test_every_setting_the_comparison_can_show_has_a_name(qapp):
    # a new field of the job shown under its Python name was met in the window (raw cpu_busy rows)
    unnamed = [n for n in JobSpec.model_fields if n not in NOT_COMPARED and hyper_label(n) == n]
    assert unnamed == []


def test_the_heads_depth_reads_as_a_share(qapp):
    assert setting_text("head_depth", 0.5) == "50%"
    assert setting_text("head_features", True) == "yes"


def test_the_results_say_each_parts_score_beside_the_mixture(qtbot):
    from workbench.gui.pages.evaluate.results import ResultsPanel

    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.show_result({"rows": 887, "split": "test", "base_model": "/home/ana/models/gemma-3-270m",
                       "base_model_name": "gemma-3-270m", "method": "lora",
                       "metrics": {"accuracy": 0.78, "macro_f1": 0.776,
                                   "parts": {"linear_share": 0.8, "linear_macro_f1": 0.773,
                                             "network_macro_f1": 0.718}}})
    text = panel.summary_text.text()
    assert "0.718" in text and "0.773" in text and "80%" in text
    # a registered model by its name, as the runs list names it, not by its folder (met in the window)
    assert "gemma-3-270m" in text and "/home/ana" not in text


def test_the_results_say_when_the_word_statistics_alone_answered(qtbot):
    from workbench.gui.pages.evaluate.results import ResultsPanel

    panel = ResultsPanel()
    qtbot.addWidget(panel)
    panel.show_result({"rows": 407, "split": "test", "base_model_name": "gemma-3-270m", "method": "lora",
                       "metrics": {"accuracy": 0.93, "macro_f1": 0.917,
                                   "parts": {"linear_share": 1.0, "linear_macro_f1": 0.917,
                                             "network_macro_f1": None}}})
    text = panel.summary_text.text()
    assert "alone (macro F1 0.917)" in text and "did not read these rows" in text and "–" not in text

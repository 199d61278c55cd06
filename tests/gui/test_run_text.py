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

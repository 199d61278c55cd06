"""Opening another project leaves nothing of the previous one on the Data and Train pages:
column statistics, the step limit of its last run."""

from __future__ import annotations

from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.data.page import DataPage


def test_the_column_charts_of_the_previous_project_are_cleared(qtbot, session, background, sample_project, tmp_path):
    """Seen at 1366x768: the new, empty project showed the last project's text-length histogram."""
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.stats_ready, timeout=60000):
        session.open(sample_project)
    qtbot.waitUntil(lambda: sum(page.length_chart.values) > 0, timeout=10000)
    session.create(tmp_path / "triage", TemplateCatalog().get("medical_triage"))
    assert page.length_chart.values == [] and page.values_chart.values == []
    assert page.stats == {}


def test_a_project_without_runs_does_not_take_the_last_projects_step_limit(qtbot, session, background, sample_project,
                                                                          tmp_path):
    """Seen at 1366x768: "Stop after steps" kept the 400 of the previous project's last run."""
    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.project import prepare
    from workbench.gui.pages.train.page import TrainPage

    write_job(sample_project / "runs" / "run-20260101-000000-abcd",
              JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                      base_model="builtin:tiny", method="full", max_steps=400, eval_steps=10))
    template = TemplateCatalog().get("finance_sentiment")
    other, _ = prepare(template, template.sample_path, tmp_path / "other")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.max_steps.value() == 400
    session.open(other.root)
    assert page.max_steps.value() == 0  # by epochs: the recommended settings decide
    assert page.preset_combo.currentIndex() == 0 and page.job_spec().max_steps != 400

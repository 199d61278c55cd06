"""The Evaluate page's "Apply to a file": a real trained run, ``workbench predict`` in a child
process, progress, cancel, the result table and saving it as Excel."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.cli import build_parser
from workbench.cli.evaluate_export import cmd_predict  # noqa: E402
from workbench.gui.pages.evaluate.page import EvaluatePage  # noqa: E402

from trained_factory import CLS, RUN, USER_COLUMNS, trained_project, user_frame  # noqa: E402


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return trained_project(CLS, tmp_path_factory.mktemp("apply"))


@pytest.mark.slow
def test_apply_a_trained_run_to_a_new_file(qtbot, session, background, project, tmp_path):
    new = user_frame(CLS).head(12).drop(columns=[USER_COLUMNS[CLS]["label"]])
    src = tmp_path / "next-month.csv"
    new.to_csv(src, index=False, encoding="gb18030")
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(project.root)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)
    apply = page.apply
    assert not apply.run_button.isEnabled()  # no file yet
    apply.set_input(src)
    assert apply.run_button.isEnabled()
    apply.all_probs.setChecked(True)

    # the command line it runs is one the real CLI accepts
    args = apply.command_args()
    parsed = build_parser().parse_args(args)
    assert parsed.func is cmd_predict and parsed.all_probabilities and parsed.json
    assert parsed.input == str(src) and parsed.run == RUN

    # cancel: the child ends and nothing is written
    assert apply.start()
    assert apply.cancel_button.isEnabled() and not apply.run_button.isEnabled()
    with qtbot.waitSignal(apply.prediction_failed, timeout=60000):
        apply.cancel()
    assert not apply.output_path.exists()
    assert apply.run_button.isEnabled() and not apply.save_button.isEnabled()

    values = []
    apply.progress.valueChanged.connect(values.append)
    with qtbot.waitSignal(apply.prediction_finished, timeout=180000) as blocker:
        assert apply.start()
    out = blocker.args[0]
    assert apply.progress.value() == 100 and any(0 < v < 100 for v in values)
    assert apply.model.rowCount() == 12
    cols = list(apply.result.columns)
    assert cols[:len(new.columns)] == list(new.columns)
    assert cols[len(new.columns):] == ["prediction", "probability", "p_正面", "p_中性", "p_负面"]
    assert set(apply.result["prediction"]) <= {"正面", "中性", "负面"}
    assert apply.save_button.isEnabled()

    dst = tmp_path / "saved.xlsx"
    with qtbot.waitSignal(apply.result_saved, timeout=30000):
        apply.save_as(dst)
    saved = pd.read_excel(dst, dtype=str, keep_default_na=False)
    assert list(saved.columns) == cols and list(saved["prediction"]) == list(apply.result["prediction"])
    assert out != str(dst)

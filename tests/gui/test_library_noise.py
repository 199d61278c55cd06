"""The libraries' own warnings stay out of the Export log and the Environment dialog; errors stay.

Seen: the Environment dialog's check showed "…/paddle/pir/math_op_patch.py:241: UserWarning:
Tensor do not have 'place' interface for pir graph mode…" and its warnings.warn( line, and the
Export log Paddle's "I1205 … pir_interpreter.cc:1529] New Executor is Running" lines."""

from __future__ import annotations

from workbench.core.library_noise import NoiseFilter, without_noise

CHECK = """Running verify PaddlePaddle program ... 
/opt/app/.venv/lib/python3.11/site-packages/paddle/pir/math_op_patch.py:241: UserWarning: Tensor do not have 'place' interface for pir graph mode, try not to use it. None will be returned.
  warnings.warn(
PaddlePaddle works well on 1 CPU.
PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle now."""

EXPORT = """/opt/app/.venv/lib/python3.11/site-packages/_distutils_hack/__init__.py:33: UserWarning: Setuptools is replacing distutils.
  warnings.warn("Setuptools is replacing distutils.")
None of PyTorch, TensorFlow >= 2.0, or Flax have been found. Models won't be available and only tokenizers, configuration and file/data utilities can be used.
I1205 21:36:07.932626  7998 pir_interpreter.cc:1529] New Executor is Running ...
W1205 21:36:08.100000  7998 gpu_resources.cc:119] Please NOTE: device: 0
E1205 21:36:09.000000  7998 op.cc:12] The model could not be traced
static model written
/home/ana/project/scripts/mine.py:3: UserWarning: our own warning
  warnings.warn("our own warning")"""


def test_the_check_without_library_warnings():
    assert without_noise(CHECK) == ("Running verify PaddlePaddle program ... \nPaddlePaddle works well on 1 CPU.\n"
                                    "PaddlePaddle is installed successfully! Let's start deep learning with "
                                    "PaddlePaddle now.")


def test_the_export_log_keeps_errors_and_its_own_lines():
    keep = NoiseFilter()
    shown = [line for line in EXPORT.split("\n") if not keep.is_noise(line)]
    assert shown == ["E1205 21:36:09.000000  7998 op.cc:12] The model could not be traced", "static model written",
                     "/home/ana/project/scripts/mine.py:3: UserWarning: our own warning",
                     '  warnings.warn("our own warning")']


def test_the_environment_dialog_shows_the_check_without_them(qtbot):
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from workbench.gui.dialogs import EnvironmentDialog
    from workbench.gui.background import BackgroundWork

    background = BackgroundWork()
    dlg = EnvironmentDialog(background)
    qtbot.addWidget(dlg)
    dlg.show_report({"paddle_version": "3.3.1", "devices": ["cpu"], "run_check": {"ok": True, "output": CHECK}})
    shown = dlg.details.toPlainText()
    assert "PaddlePaddle works well on 1 CPU." in shown and "Warning" not in shown and "warnings.warn" not in shown

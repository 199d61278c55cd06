"""The desktop application (PySide6). Imports workbench.core only, never the engine layer or paddle.

Long work runs in background operations (:mod:`.background`); training runs in a separate
worker process whose events file the GUI reads (:mod:`.run_monitor`).
"""

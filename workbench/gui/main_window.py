"""The main window: five steps in a navigation list, menus, status bar, drag and drop."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMainWindow, QMessageBox,
    QStackedWidget, QVBoxLayout, QWidget,
)

from ..core.errors import WorkbenchError
from . import i18n
from .error_texts import exception_text
from .dialogs import EnvironmentDialog, NewProjectDialog, SettingsDialog, data_file_filter
from .resources import icon
from .session import ProjectSession
from .settings import Settings
from .background import BackgroundWork, BackgroundProgressWidget

STEPS = ("template", "data", "train", "evaluate", "export")


def _dropped_file(url) -> str | None:
    """The local file a drop brings, whatever its suffix (the reader tells a data file by its
    content and says what is wrong with any other); None for a folder or a web address."""
    path = url.toLocalFile()
    return path if path and Path(path).is_file() else None


class MainWindow(QMainWindow):
    page_built = Signal(str)

    def __init__(self, settings: Settings | None = None, session: ProjectSession | None = None, parent=None):
        super().__init__(parent)
        self.settings = settings or Settings()
        self.session = session or ProjectSession(self.settings.templates_dir, parent=self)
        self.background = BackgroundWork(self)
        self.pages: dict[str, QWidget] = {}
        self._language = i18n.current()  # the language the widgets' texts are in
        self._language_pending = False
        self.setWindowTitle(self.tr("Workbench"))
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.resize(1366, 768)

        self.nav = QListWidget()
        self.nav.setObjectName("nav")
        self.nav.setIconSize(QSize(22, 22))
        self.nav.setFixedWidth(190)
        self.stack = QStackedWidget()
        self._holders: dict[str, QWidget] = {}
        for key in STEPS:
            item = QListWidgetItem(icon(key), "")
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.nav.addItem(item)
            holder = QWidget()
            QVBoxLayout(holder).setContentsMargins(0, 0, 0, 0)
            self._holders[key] = holder
            self.stack.addWidget(holder)
        self.nav.currentRowChanged.connect(self._on_nav_current_row_changed)

        central = QWidget()
        lay = QHBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.nav)
        lay.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        self.project_label = QLabel()
        self.run_label = QLabel()
        self.progress = BackgroundProgressWidget(self.background)
        self.statusBar().addWidget(self.project_label, 1)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.run_label)
        self.background.error_shown.connect(lambda title, msg: self.statusBar().showMessage(title, 8000))

        self._build_menus()
        self.session.project_changed.connect(self._on_session_project_changed)
        self.session.state_changed.connect(self._refresh_steps)
        self._refresh_steps()
        self._on_session_project_changed()
        self.nav.setCurrentRow(0)

        geo = self.settings.geometry
        if geo is not None:
            self.restoreGeometry(geo)

    # ----- pages -----
    def page(self, key: str) -> QWidget:
        """The page for ``key``, built the first time it is needed (keeps start-up fast)."""
        if key not in self.pages:
            page = self._make_page(key)
            self.pages[key] = page
            self._holders[key].layout().addWidget(page)
            self.page_built.emit(key)
        return self.pages[key]

    def _make_page(self, key: str) -> QWidget:
        if key == "template":
            from workbench.gui.pages.template.page import TemplatePage

            p = TemplatePage(self.session, self.background)
            p.template_chosen.connect(self._on_template_page_template_chosen)
            return p
        if key == "data":
            from workbench.gui.pages.data.page import DataPage

            p = DataPage(self.session, self.background)
            p.prepared.connect(lambda: self.show_step("train"))
            return p
        if key == "train":
            from workbench.gui.pages.train.page import TrainPage

            p = TrainPage(self.session, self.background)
            if self.settings.time_budget is not None:  # the budget the user set last time
                p.settings_panel.set_default_time_budget(self.settings.time_budget)
            p.time_budget.valueChanged.connect(self._on_train_page_time_budget_changed)
            return p
        if key == "evaluate":
            from workbench.gui.pages.evaluate.page import EvaluatePage

            return EvaluatePage(self.session, self.background)
        from workbench.gui.pages.export.page import ExportPage

        p = ExportPage(self.session, self.background)
        formats = self.settings.export_formats
        if formats is not None:  # the formats the user ticked last time
            for fmt, check in p.format_checks.items():
                check.setChecked(fmt in formats and check.isEnabled())  # a refused format stays unticked
            p.int8_check.setChecked("int8" in formats and p.int8_check.isEnabled())
        for check in (*p.format_checks.values(), p.int8_check):  # the user's clicks, not the page's own changes
            check.clicked.connect(lambda _on, p=p: self._remember_export_formats(p))
        return p

    @Slot(float)
    def _on_train_page_time_budget_changed(self, minutes: float) -> None:
        self.settings.time_budget = minutes

    def _remember_export_formats(self, page) -> None:
        ticked = [fmt for fmt, check in page.format_checks.items() if check.isChecked()]
        self.settings.export_formats = ticked + (["int8"] if page.int8_check.isChecked() else [])

    def shown_run(self) -> str | None:
        """The run the current page shows (Train, Evaluate, Export), if any."""
        page = self.pages.get(STEPS[self.nav.currentRow()]) if self.nav.currentRow() >= 0 else None
        if page is None:
            return None
        if hasattr(page, "current_run"):
            return page.current_run
        combo = getattr(page, "run_combo", None)
        return combo.currentData() if combo is not None else None

    def restore_last_session(self) -> bool:
        """Open the project, page and run the user left at the last close (False: none to restore)."""
        recent = self.settings.recent_projects
        if self.session.project is not None or not recent or not (Path(recent[0]) / "project.json").is_file():
            return False
        page_key, run_id = self.settings.last_page, self.settings.last_run
        if not self.open_project(recent[0]):
            return False
        if page_key in STEPS and (self.session.is_prepared or page_key in ("template", "data")):
            page = self.show_step(page_key)
            if run_id and run_id in self.session.monitor.runs:
                if hasattr(page, "select_run"):
                    page.select_run(run_id)
                elif getattr(page, "run_combo", None) is not None and page.run_combo.findData(run_id) >= 0:
                    page.run_combo.setCurrentIndex(page.run_combo.findData(run_id))
        return True

    def show_step(self, key: str) -> QWidget:
        self.nav.setCurrentRow(STEPS.index(key))
        return self.page(key)

    @Slot(int)
    def _on_nav_current_row_changed(self, row: int) -> None:
        if row < 0:
            return
        key = STEPS[row]
        page = self.page(key)
        self.stack.setCurrentIndex(row)
        if self.session.project is not None:
            self.settings.last_page = key
        if hasattr(page, "on_shown"):
            page.on_shown()

    def _step_title(self, key: str) -> str:
        return {
            "template": self.tr("1  Template"),
            "data": self.tr("2  Data"),
            "train": self.tr("3  Train"),
            "evaluate": self.tr("4  Evaluate"),
            "export": self.tr("5  Export"),
        }[key]

    def _state_text(self, state: str) -> str:
        return {
            "todo": "",
            "done": self.tr("done"),
            "running": self.tr("training…"),
            "stopped": self.tr("stopped"),  # short: the sidebar is narrow
            "blocked": self.tr("needs data"),
            "failed": self.tr("last run failed"),
        }.get(state, state)

    @Slot()
    def _refresh_steps(self) -> None:
        states = self.session.step_states()
        for i, key in enumerate(STEPS):
            item = self.nav.item(i)
            state = states[key]
            text = self._step_title(key)
            extra = self._state_text(state)
            item.setText(f"{text}\n     {extra}" if extra else text)
            item.setData(Qt.ItemDataRole.UserRole + 1, state)
            item.setToolTip(extra)
            mark = {"done": "done", "running": "running"}.get(state)
            item.setIcon(icon(f"{key}_{mark}") if mark and not icon(f"{key}_{mark}").isNull() else icon(key))
        running = self.session.monitor.running_ids()
        self.run_label.setText(self.tr("Training: {0}").format(i18n.join_list(running)) if running else "")

    # ----- language -----
    def changeEvent(self, event) -> None:  # noqa: N802
        # Qt sends one per translator installed or removed: the texts change once, after them
        if event.type() == QEvent.Type.LanguageChange and not self._language_pending:
            self._language_pending = True
            QTimer.singleShot(0, self.apply_language)
        super().changeEvent(event)

    @Slot()
    def apply_language(self) -> None:
        """Show every text in the language now installed (see gui.retranslate): the catalogued
        texts of every widget, then what the window and the pages draw from their state."""
        self._language_pending = False
        old, new = self._language, i18n.current()
        if old == new:
            return
        from .resources import translations_dir
        from .retranslate import catalogue, retranslate_tree

        for lang, to_source in ((old, True), (new, False)):  # through English, the catalogue's source
            if lang != "en":
                path = translations_dir() / f"workbench_{lang}.ts"
                if path.is_file():
                    retranslate_tree(self, catalogue(str(path)), to_source)
        self._language = new
        for key, action in self._view_actions.items():  # "Data", from the step's title
            action.setText(self._step_title(key).split("  ")[-1])
        self._refresh_steps()
        self._on_session_project_changed()
        self.statusBar().clearMessage()
        for page in self.pages.values():  # what they draw from data: run pickers, template texts
            if hasattr(page, "on_language_changed"):
                page.on_language_changed()
            if hasattr(page, "on_shown"):
                page.on_shown()

    # ----- menus -----
    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu(self.tr("&File"))
        self.act_new = self._action(self.tr("&New project…"), self.new_project, QKeySequence.StandardKey.New, "new")
        self.act_open = self._action(self.tr("&Open project…"), self.open_project_dialog, QKeySequence.StandardKey.Open, "open")
        self.act_sample = self._action(self.tr("Open a &sample project"), self.open_sample_project)
        self.act_import = self._action(self.tr("&Import data file…"), self.import_data_dialog, QKeySequence("Ctrl+I"), "import")
        self.act_quit = self._action(self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit)
        f.addAction(self.act_new)
        f.addAction(self.act_open)
        self.recent_menu = f.addMenu(self.tr("Open &recent"))
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        f.addAction(self.act_sample)
        f.addSeparator()
        f.addAction(self.act_import)
        f.addSeparator()
        f.addAction(self.act_quit)
        v = mb.addMenu(self.tr("&View"))
        self._view_actions: dict[str, QAction] = {}
        for i, key in enumerate(STEPS):
            a = QAction(self._step_title(key).split("  ")[-1], self)
            a.setShortcut(QKeySequence(f"Ctrl+{i + 1}"))
            a.triggered.connect(lambda _=False, k=key: self.show_step(k))
            v.addAction(a)
            self._view_actions[key] = a
        t = mb.addMenu(self.tr("&Tools"))
        t.addAction(self._action(self.tr("&Environment…"), self.show_environment))
        t.addAction(self._action(self.tr("&Settings…"), self.show_settings, QKeySequence("Ctrl+,")))
        h = mb.addMenu(self.tr("&Help"))
        h.addAction(self._action(self.tr("&About Workbench"), self.show_about))

    def _action(self, text: str, slot, shortcut=None, icon_name: str | None = None) -> QAction:
        a = QAction(text, self)
        if shortcut is not None:
            a.setShortcut(shortcut)
        if icon_name:
            a.setIcon(icon(icon_name))
        a.triggered.connect(lambda _=False: slot())
        return a

    @Slot()
    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        items = self.settings.recent_projects
        if not items:
            a = self.recent_menu.addAction(self.tr("(none yet)"))
            a.setEnabled(False)
        for path in items:
            a = self.recent_menu.addAction(path)
            a.triggered.connect(lambda _=False, p=path: self.open_project(p))

    # ----- project actions -----
    def open_project(self, path: str | Path) -> bool:
        try:
            self.session.open(path)
        except WorkbenchError as exc:
            self.settings.remove_recent(path)
            if exc.code == "not_a_project":
                self._offer_new_project(Path(path), exc)
            else:
                self.background.show_error(self.tr("The project could not be opened"), exc)
            return False
        self.settings.add_recent(path)
        self.show_step("data" if not self.session.is_prepared else "train")
        return True

    def open_project_dialog(self) -> None:
        d = QFileDialog.getExistingDirectory(self, self.tr("Open a project folder"), str(self.settings.projects_dir))
        if d:
            self.open_project(d)

    def _offer_new_project(self, folder: Path, exc: WorkbenchError) -> None:
        """A folder that holds no project: said in the window's words, with New project at hand
        (named after the folder, where the folder is empty or not there yet)."""
        title, message = self.tr("The project could not be opened"), exception_text(exc)
        self.background.error_shown.emit(title, message)
        if not self.background.show_dialogs:
            return
        box = QMessageBox(QMessageBox.Icon.Information, title, message, QMessageBox.StandardButton.Cancel, self)
        new = box.addButton(self.tr("New project…"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(new)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        empty = not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))
        new.clicked.connect(lambda: self.new_project(folder=folder if empty else None))
        box.open()

    def new_project(self, template_id: str | None = None, folder: Path | None = None) -> None:
        """The New project dialog; ``folder`` names the project and the folder it goes in."""
        where, name = (folder.parent, folder.name) if folder is not None else (self.settings.projects_dir, "")
        dlg = NewProjectDialog(self.session.catalog, where, template_id, self, name=name)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted():
            spec = self.session.catalog.get(dlg.template_id)
            try:
                self.session.create(dlg.project_dir, spec)
            except (WorkbenchError, OSError) as exc:
                self.background.show_error(self.tr("The project could not be created"), exc)
                return
            self.settings.add_recent(dlg.project_dir)
            self.show_step("data")

        dlg.accepted.connect(accepted)
        dlg.open()

    def open_sample_project(self, template_id: str = "finance_sentiment") -> None:
        """Prepare (once) and open the sample project of a template, with the built-in model preselected."""
        spec = self.session.catalog.templates.get(template_id) or next(iter(self.session.catalog))
        root = self.settings.projects_dir / f"sample-{spec.id}"
        self.session.preferred_base_model = "builtin:tiny"
        if (root / "project.json").is_file():
            self.open_project(root)
            return

        def work(ctx):
            from ..core.project import prepare

            stages = {"import": (0.0, 0.3), "clean": (0.3, 0.8), "write": (0.8, 1.0)}

            def progress(stage, frac):
                a, b = stages.get(stage, (0.0, 1.0))
                ctx.progress(a + (b - a) * frac)

            prepare(spec, spec.sample_path, root, progress=progress)
            return root

        self.background.op(work, self.tr("Preparing the sample project")).with_progress().on_success(self.open_project).run()

    def import_data_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a data file"), str(Path.home()), data_file_filter())
        if path:
            self.import_file(path)

    def import_file(self, path: str | Path) -> None:
        if self.session.project is None:
            QMessageBox.information(self, self.tr("Choose a template first"),
                                    self.tr("Data is imported into a project, and a project starts from a template. "
                                            "Pick a template and click \u201cUse this template\u201d, then drop the file again."))
            self.show_step("template")
            return
        page = self.show_step("data")
        page.import_file(path)

    @Slot(str)
    def _on_template_page_template_chosen(self, template_id: str) -> None:
        spec = self.session.catalog.get(template_id)
        if self.session.project is not None and not self.session.is_prepared:
            self.session.set_template(spec)
            self.show_step("data")
            return
        if self.session.template is not None and self.session.template.id == template_id:
            self.show_step("data")
            return
        self.new_project(template_id)

    @Slot()
    def _on_session_project_changed(self) -> None:
        p = self.session.project
        if p is None:
            self.project_label.setText(self.tr("No project open: start from a template, or File > Open a sample project"))
            self.setWindowTitle(self.tr("Workbench"))
        else:
            spec = self.session.template
            name = i18n.localized(spec.name) if spec else p.config.template
            self.project_label.setText(self.tr("Project {0} · {1} · {2}").format(p.config.name, name, str(p.root)))
            self.setWindowTitle(self.tr("{0} – Workbench").format(p.config.name))

    # ----- tools -----
    def show_environment(self) -> EnvironmentDialog:
        dlg = EnvironmentDialog(self.background, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.open()
        dlg.start()
        return dlg

    def show_settings(self) -> None:
        dlg = SettingsDialog(self.settings, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def accepted():
            changed = dlg.apply()
            if changed["theme"]:
                from PySide6.QtWidgets import QApplication

                from .resources import stylesheet

                QApplication.instance().setStyleSheet(stylesheet(self.settings.theme))
            if changed["language"]:
                from PySide6.QtWidgets import QApplication

                i18n.install(QApplication.instance(), self.settings.language)  # the window follows
            if changed["templates"]:
                self.statusBar().showMessage(self.tr("Restart Workbench to use the new templates folder."), 10000)

        dlg.accepted.connect(accepted)
        dlg.open()

    def about_text(self) -> str:
        from .. import __version__

        return self.tr("<b>Workbench</b> version {0}<br>Fine-tune, evaluate and export language models on "
                       "PaddlePaddle without writing code.<br><br>Chinese text uses Noto Sans CJK (SIL Open Font "
                       "License).").format(__version__)

    def show_about(self) -> None:
        QMessageBox.about(self, self.tr("About Workbench"), self.about_text())

    # ----- first start -----
    def offer_sample_project(self) -> QMessageBox | None:
        if self.settings.first_start_done or self.session.project is not None:
            return None
        self.settings.first_start_done = True
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Welcome to Workbench"))
        box.setText(self.tr("Would you like to open a sample project? It uses the financial news sentiment template, "
                            "its sample data and the built-in model, which trains on this computer in a few minutes."))
        yes = box.addButton(self.tr("Open the sample project"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(self.tr("Start empty"), QMessageBox.ButtonRole.RejectRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda b: b is yes and self.open_sample_project())
        box.open()
        return box

    # ----- drag and drop -----
    def dragEnterEvent(self, event) -> None:  # noqa: N802
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        if any(_dropped_file(u) for u in urls):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:  # noqa: N802
        for u in event.mimeData().urls():
            path = _dropped_file(u)
            if path:
                event.acceptProposedAction()
                QTimer.singleShot(0, lambda p=path: self.import_file(p))
                return

    # ----- closing -----
    def closeEvent(self, event) -> None:  # noqa: N802
        running = self.session.monitor.running_ids()
        if running and not self._ask_keep_or_stop(running):
            event.ignore()
            return
        self.settings.geometry = self.saveGeometry()
        if self.session.project is not None:
            self.settings.last_run = self.shown_run()
        for page in self.pages.values():
            if hasattr(page, "shutdown"):
                page.shutdown()
        self.background.cancel_all()
        self.background.wait(10000)
        event.accept()

    def _ask_keep_or_stop(self, running: list[str]) -> bool:
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Training is running"))
        box.setText(self.tr("{0} is still training. Keep it training in the background (reopen the project to see it), "
                            "or stop it now (it saves a checkpoint first, so it can be resumed)?").format(i18n.join_list(running)))
        keep = box.addButton(self.tr("Keep training"), QMessageBox.ButtonRole.AcceptRole)
        stop = box.addButton(self.tr("Stop training"), QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        clicked = box.clickedButton()
        if clicked is stop:
            for run_id in running:
                self.session.monitor.stop(run_id)
            return True
        return clicked is keep

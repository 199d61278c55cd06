"""Step 2: import, look at, clean, map and split the data.

Reading a file, cleaning, computing statistics, sorting and filtering a large frame run in
background operations; the table reads cells on demand. The cleaning recipe and the
column mapping are edited through an undo stack, and every change re-runs the recipe in
the background (the previous run is cancelled), so the counts and the before/after
examples of every step stay current.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QUndoCommand, QUndoStack
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from ....core.cleaning import Recipe, StepReport
from ....core.labels import LabelChoice, choice_from_recipe, default_min_rows, template_choice
from ....core.mapping import check_mapping
from ....core.project import SplitSettings
from ....core.task import TaskSpec
from ....core.templates import PromptFormat
from ...resources import icon
from ...session import ProjectSession
from ...background import BackgroundOp, BackgroundWork, describe_error
from .command_line import prepare_args
from .display import column_stats, problem_text, step_title
from .split_panel import SplitPanel
from .stats_panel import ColumnStatsPanel
from .labels_editor import LabelsEditor
from .mapping_editor import MappingEditor
from .prompt_editor import PromptEditor
from .reading import read_for_page
from .review_panel import ReviewPanel
from .source_bar import SourceBar
from .steps_panel import StepsPanel
from .table_corrections import TableCorrections
from .table_panel import DataTablePanel


class StateCommand(QUndoCommand):
    """One undoable change of the recipe and/or the mapping."""

    def __init__(self, page: "DataPage", before: dict, after: dict, text: str):
        super().__init__(text)
        self.page, self.before, self.after = page, before, after

    def redo(self) -> None:
        self.page._restore_state(self.after)

    def undo(self) -> None:
        self.page._restore_state(self.before)


def _steps_key(recipe: Recipe) -> list[tuple]:
    """A recipe's steps as the user chose them: the label step, which the label choice fills in
    (and a multi-label prepare names per label), is not one of them."""
    return [(st.op, st.enabled, sorted((k, repr(v)) for k, v in st.params.items()))
            for st in recipe.steps if st.op != "normalize_labels"]


class DataPage(QWidget):
    prepared = Signal()
    loaded = Signal()  # data is shown (imported or from the project)
    cleaned = Signal()  # the recipe was re-run and the reports are current
    stats_ready = Signal()
    template_saved = Signal(str)  # the folder of a template saved from this project

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self.raw: pd.DataFrame | None = None
        self.source_path: Path | None = None
        self.sheet: str | None = None
        self.mapping: dict[str, str | None] = {}
        self.recipe = Recipe()
        self.cleaned_df: pd.DataFrame | None = None
        self.reports: list[StepReport] = []
        # the project's own task: how its labels are chosen and its prompt (None: the template's)
        self.label_choice: LabelChoice | None = None
        self.prompt: PromptFormat | None = None
        self.list_columns: list[str] = []  # columns of the file whose cells are lists
        # CSV/Excel: whether the first row was read as the column names, and the user's own choice
        self.header: bool | None = None
        self.header_choice: bool | None = None
        self.group_column: str | None = None  # the document of each row (JSON Lines of documents)
        self.guesses: list = []  # core.column_guess: columns told from their cells, for roles left empty
        self._label_mismatch: tuple | None = None  # the labels found not to be the template's, once shown
        self._guessed_recipe: Recipe | None = None  # the recipe with the quotes step, if the guessed label is quoted
        self.task: TaskSpec | None = None  # as the last preview decided it
        self.undo_stack = QUndoStack(self)
        self._clean_op: BackgroundOp | None = None
        self._import_op: BackgroundOp | None = None
        self._restoring = False
        self._build()
        session.project_changed.connect(self._on_session_project_changed)
        self._clean_timer = QTimer(self)
        self._clean_timer.setSingleShot(True)
        self._clean_timer.setInterval(250)
        self._clean_timer.timeout.connect(self.run_cleaning)
        self._on_session_project_changed()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        # the row above the table (pages/data/source_bar.py); the page keeps its widgets' names
        self.source_bar = bar = SourceBar(self._undo_action(), self._redo_action())
        bar.import_button.clicked.connect(self._on_import_button_clicked)
        bar.header_check.toggled.connect(self._on_header_check_toggled)
        bar.save_template_button.clicked.connect(self._on_save_template_button_clicked)
        bar.prepare_button.clicked.connect(self._on_prepare_button_clicked)
        self.import_button, self.source_label, self.header_check = bar.import_button, bar.source_label, bar.header_check
        self.undo_button, self.redo_button = bar.undo_button, bar.redo_button
        self.save_template_button, self.prepare_button = bar.save_template_button, bar.prepare_button

        # the table (pages/data/table_panel.py); the page keeps its widgets' names
        self.table_panel = left = DataTablePanel(self.background)
        left.which_changed.connect(self._on_table_panel_which_changed)
        left.column_selected.connect(self._on_table_panel_column_selected)
        self.which_combo, self.filter_edit, self.filter_column = left.which_combo, left.filter_edit, left.filter_column
        self.rows_label, self.table_model, self.table = left.rows_label, left.table_model, left.table

        # side tabs
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_stats_tab(), self.tr("Columns"))
        self.steps = StepsPanel()
        self.steps.steps_edited.connect(self._push_recipe)
        self.tabs.addTab(self.steps, self.tr("Cleaning"))
        self.mapping_tab = self.tabs.addTab(self._build_mapping_tab(), self.tr("Mapping"))
        self.labels_editor = LabelsEditor()
        self.labels_editor.choice_edited.connect(self._on_labels_editor_choice_edited)
        self.labels_tab = self.tabs.addTab(self.labels_editor, self.tr("Labels"))
        self.review_panel = ReviewPanel(self.session, self.background)
        self.review_tab = self.tabs.addTab(self.review_panel, self.tr("Review"))
        self.tabs.addTab(self._build_split_tab(), self.tr("Split"))
        self.prompt_editor = PromptEditor()
        self.prompt_editor.prompt_edited.connect(self._on_prompt_editor_prompt_edited)
        self.tabs.addTab(self.prompt_editor, self.tr("Prompt"))

        # the person's corrections in the table, and the Review tab's, kept in step
        self.table_corrections = TableCorrections(self)
        self.table_corrections.changed.connect(self.review_panel.refresh_decisions)
        self.review_panel.corrections_changed.connect(self.table_corrections.refresh)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(self.tabs)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([640, 520])
        lay = QVBoxLayout(self)
        lay.addWidget(bar)
        lay.addWidget(split, 1)

    def _undo_action(self) -> QAction:
        a = self.undo_stack.createUndoAction(self, self.tr("Undo"))
        a.setIcon(icon("undo"))
        a.setShortcut("Ctrl+Z")
        self.addAction(a)
        return a

    def _redo_action(self) -> QAction:
        a = self.undo_stack.createRedoAction(self, self.tr("Redo"))
        a.setIcon(icon("redo"))
        a.setShortcut("Ctrl+Shift+Z")
        self.addAction(a)
        return a

    def _build_stats_tab(self) -> QWidget:
        self.stats_panel = ColumnStatsPanel(self._label_column_name)
        sp = self.stats_panel  # its parts, by the names the page's users know
        self.stats_column, self.stats_label = sp.column_combo, sp.label
        self.length_chart, self.values_chart = sp.length_chart, sp.values_chart
        return sp

    def _build_mapping_tab(self) -> QWidget:
        self.mapping_editor = MappingEditor()
        self.mapping_editor.mapping_edited.connect(self._on_mapping_editor_mapping_edited)
        self.mapping_editor.suggestion_accepted.connect(self._on_mapping_editor_suggestion_accepted)
        ed = self.mapping_editor  # its parts, by the names the page's users know
        self.mapping_combos, self.mapping_second, self.mapping_messages = ed.combos, ed.second, ed.messages
        self.guess_box, self.guess_label, self.guess_button, self.mapping_general = (
            ed.guess_box, ed.guess_label, ed.guess_button, ed.general)
        return ed

    def _build_split_tab(self) -> QWidget:
        self.split_panel = SplitPanel()
        self.split_panel.changed.connect(self._on_split_changed)
        sp = self.split_panel
        self.split_spins, self.seed_spin, self.split_message = sp.spins, sp.seed_spin, sp.message
        self.command_box = sp.command_box
        return sp

    # ------------------------------------------------------------------ project
    @Slot()
    def _on_session_project_changed(self) -> None:
        # nothing of the previous project stays: its rows, statistics, mapping and reports
        if self._import_op is not None and self._import_op.running:
            self._import_op.cancel()
        self.undo_stack.clear()
        self.raw = self.cleaned_df = None
        self.source_path, self.sheet = None, None  # the command line names this project's file, or none
        self.reports = []
        self.mapping = {}
        self.label_choice, self.prompt, self.list_columns, self.task = None, None, [], None
        self.header, self.header_choice, self.guesses, self._guessed_recipe = None, None, [], None
        self._label_mismatch = None
        self.group_column = None
        self._show_header_check()
        self._show_guesses()
        template = self.session.template
        self.prepare_button.setEnabled(False)
        self.import_button.setEnabled(template is not None)
        self.save_template_button.setEnabled(self.session.is_prepared)
        self._build_mapping_rows()
        self.labels_editor.set_table(None)
        self.tabs.setTabVisible(self.labels_tab, template is not None and "label" in template.roles)
        self.tabs.setTabVisible(self.review_tab, template is not None and "label" in template.roles)
        self._show_frame()
        self.source_bar.clear_source()
        self.stats_panel.clear()
        self._after_mapping_change()
        if template is None:
            self.prompt_editor.set_task(None)
            return
        cfg = self.session.project.config
        self.label_choice = cfg.labels or choice_from_recipe(cfg.recipe, template.labels, template.label_aliases)
        self.prompt = cfg.task.prompt if cfg.task is not None else None
        self.list_columns = list(cfg.source.list_columns) if cfg.source else []
        self.task = self._base_task()
        self.prompt_editor.set_task(self.task, template.prompt)
        self.recipe = Recipe.from_dict(cfg.recipe) if cfg.recipe else Recipe.from_template(template)
        split = cfg.split if cfg.source else SplitSettings(**template.split.model_dump())
        self._set_split(split)
        self._refresh_steps_table()
        snap = self.session.project.snapshot_path
        if snap.is_file():
            src = Path(cfg.source.path) if cfg.source else snap
            self.header = cfg.source.header if cfg.source else None
            self.group_column = cfg.source.group_column if cfg.source else None
            self._load(snap, source=src if src.is_file() else snap, sheet=cfg.source.sheet if cfg.source else None,
                       mapping=dict(cfg.mapping), fmt=cfg.source.format if cfg.source else "parquet",
                       encoding=cfg.source.encoding if cfg.source else None,
                       source_name=Path(cfg.source.path).name if cfg.source else None)

    def _set_split(self, split: SplitSettings) -> None:
        self.split_panel.set_settings(split)
        self._on_split_changed()

    # ------------------------------------------------------------------ import
    @Slot()
    def _on_import_button_clicked(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        from ...dialogs import data_file_filter

        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import a data file"), str(Path.home()), data_file_filter())
        if path:
            self.import_file(path)

    def import_file(self, path: str | Path, sheet: str | None = None) -> BackgroundOp | None:
        if self.session.template is None:
            self.background.show_error(self.tr("No template chosen"),
                                  self.tr("Choose a template first: it says which columns the data needs."))
            return None
        self.header_choice = None
        return self._load(Path(path), source=Path(path), sheet=sheet, mapping=None)

    @Slot(bool)
    def _on_header_check_toggled(self, checked: bool) -> None:
        if self.source_path is None or not self.source_path.is_file() or checked == self.header:
            return
        self.header_choice = checked
        self._load(self.source_path, source=self.source_path, sheet=self.sheet, mapping=None, header=checked)

    def _show_header_check(self) -> None:
        # a project shown from its copy can be read again only while the original is there
        self.source_bar.show_header_check(self.header, self.source_path is not None and self.source_path.is_file()
                                          and self.source_path != getattr(self.session.project, "snapshot_path", None))

    def on_language_changed(self) -> None:
        """What the page draws from the data and the core (step names, the reader's notes) in
        the new language: drawn again, not translated word by word."""
        self.steps.on_language_changed()
        self.source_bar.on_language_changed()
        self.labels_editor.on_language_changed()

    def _header_arg(self) -> bool | None:
        """What prepare and its command line are told: the user's choice, or "no header" as read."""
        if self.header_choice is not None:
            return self.header_choice
        return False if self.header is False else None

    def _load(self, path: Path, source: Path, sheet: str | None, mapping: dict | None,
              fmt: str | None = None, encoding: str | None = None, source_name: str | None = None,
              header: bool | None = None) -> BackgroundOp:
        """Read ``path`` in the background; ``fmt``/``encoding``/``source_name`` describe the
        original file when ``path`` is the project's snapshot of it."""
        if self._import_op is not None and self._import_op.running:
            self._import_op.cancel()
        template = self.session.template
        recipe = Recipe.model_validate(self.recipe.to_dict())
        from_snapshot = fmt is not None
        known_lists = list(self.list_columns)

        def work(ctx):
            return read_for_page(ctx, path, template=template, sheet=sheet, header=header, mapping=mapping,
                                 recipe=recipe, from_snapshot=from_snapshot, known_lists=known_lists)

        def done(result):
            df, info, suggested, guesses, quoted = result
            self.raw = df
            self.source_path, self.sheet = source, sheet
            if not from_snapshot:  # the snapshot holds list cells as text; the project knows which they are
                self.list_columns = list(info.list_columns)
                self.header = info.header
                self.group_column = info.group_column
            self.source_bar.show_source(df, info, source, path, from_snapshot, fmt, encoding, source_name)
            self.undo_stack.clear()
            self.mapping = suggested
            self.guesses = guesses
            self._label_mismatch = None  # a new file: its labels are told anew
            self._guessed_recipe = quoted if quoted is not None and not suggested.get("label") else None
            self._show_header_check()
            self._show_guesses()
            if guesses:
                self.tabs.setCurrentIndex(self.mapping_tab)
            self._build_mapping_rows()
            self.which_combo.setCurrentIndex(0)
            self._show_frame()
            self._compute_stats()
            self.prepare_button.setEnabled(True)
            self.loaded.emit()
            self._after_mapping_change()
            if quoted is not None and suggested.get("label"):
                self._push_state({**self._state(), "recipe": quoted.to_dict()},
                                 self.tr("add {0}").format(step_title("unquote_labels")))

        op = self.background.op(work, self.tr("Reading {0}").format(path.name)).with_progress().on_success(done)
        self._import_op = op
        return op.run()

    # ------------------------------------------------------------------ table view
    def current_frame(self) -> pd.DataFrame | None:
        return self.cleaned_df if self.table_panel.showing_cleaned() else self.raw

    @Slot()
    def _on_table_panel_which_changed(self) -> None:
        self._show_frame()
        self._compute_stats()

    def _show_frame(self) -> None:
        df = self.current_frame()
        self.table_panel.set_frame(df)
        self.stats_panel.set_columns([str(c) for c in (df.columns if df is not None else [])])
        self.table_corrections.refresh()

    def _on_header_section_clicked(self, column: int) -> None:
        self.table_panel.sort_by(column)

    @Slot(int)
    def _on_table_panel_column_selected(self, column: int) -> None:
        if self.stats_column.count() > column:
            self.stats_column.setCurrentIndex(column)

    # ------------------------------------------------------------------ statistics
    def _compute_stats(self) -> None:
        df = self.current_frame()
        if df is None:
            return

        def done(stats):
            if self.current_frame() is df:
                self.stats_panel.set_stats(stats)
                self.stats_ready.emit()

        self.background.op(lambda ctx: column_stats(df, ctx), self.tr("Computing column statistics")).on_success(done).run()

    @property
    def stats(self) -> dict[str, dict]:
        """The columns' statistics the Columns tab shows (column -> display.column_stats)."""
        return self.stats_panel.stats

    def _label_column_name(self) -> str | None:
        if self.which_combo.currentData() == "clean":
            return "label" if self.session.template and "label" in self.session.template.roles else None
        return self.mapping.get("label")

    # ------------------------------------------------------------------ mapping
    def _build_mapping_rows(self) -> None:
        template = self.session.template
        columns = [str(c) for c in self.raw.columns] if self.raw is not None else []
        self.mapping_editor.set_roles(template.roles if template else None, columns, self.mapping)

    def _show_guesses(self) -> None:
        self.mapping_editor.show_guesses(self.guesses)

    @Slot()
    def _on_mapping_editor_suggestion_accepted(self) -> None:
        before = self._state()
        new_mapping = dict(self.mapping)
        new_mapping.update({g.role: g.column for g in self.guesses if not self.mapping.get(g.role)})
        after = {**before, "mapping": new_mapping}
        if self._guessed_recipe is not None and new_mapping.get("label"):
            after["recipe"] = self._guessed_recipe.to_dict()
        self._push_state(after, self.tr("use the suggested columns"))

    def _push_state(self, after: dict, text: str) -> None:
        before = self._state()
        if after != before:
            self.undo_stack.push(StateCommand(self, before, after, text))

    @Slot(dict, str)
    def _on_mapping_editor_mapping_edited(self, mapping: dict, text: str) -> None:
        if self._restoring:
            return
        self._push_state({**self._state(), "mapping": mapping}, text)

    def mapping_problems(self):
        if self.raw is None or self.session.template is None:
            return []
        return check_mapping(self.session.template, [str(c) for c in self.raw.columns], self.mapping)

    def _after_mapping_change(self) -> None:
        if self.raw is None:  # nothing to map yet: say what comes first
            self.mapping_editor.show_problems(None)
            return
        problems = self.mapping_problems()
        self.mapping_editor.show_problems(problems)
        if any(p.severity == "error" for p in problems):
            self.prepare_button.setEnabled(False)
            # the labels shown so far belong to a mapping (or a file) that no longer holds
            self.labels_editor.set_table(None)
        else:
            self.schedule_cleaning()

    # ------------------------------------------------------------------ recipe editing
    def _state(self) -> dict:
        return {"recipe": self.recipe.to_dict(), "mapping": dict(self.mapping),
                "labels": self.label_choice.model_dump() if self.label_choice else None,
                "prompt": self.prompt.model_dump() if self.prompt else None}

    def _restore_state(self, state: dict) -> None:
        self._restoring = True
        try:
            self.recipe = Recipe.model_validate(copy.deepcopy(state["recipe"]))
            labels, prompt = state.get("labels"), state.get("prompt")
            self.label_choice = LabelChoice.model_validate(labels) if labels else None
            prompt_changed = (prompt or None) != (self.prompt.model_dump() if self.prompt else None)
            self.prompt = PromptFormat.model_validate(prompt) if prompt else None
            if prompt_changed:
                self.prompt_editor.set_task(self._base_task())
            mapping_changed = state["mapping"] != self.mapping
            self.mapping = dict(state["mapping"])
            self.mapping_editor.show_mapping(self.mapping)
            self._show_guesses()
            self._refresh_steps_table()
        finally:
            self._restoring = False
        if mapping_changed:
            self._after_mapping_change()
        else:
            self.schedule_cleaning()

    @Slot(list, str)
    def _push_recipe(self, steps: list[dict], text: str) -> None:
        before = self._state()
        after = {**before, "recipe": {**before["recipe"], "steps": steps}}
        self.undo_stack.push(StateCommand(self, before, after, text))

    def _refresh_steps_table(self) -> None:
        template = self.session.template
        self.steps.show_recipe(self.recipe, self.reports, list(template.roles) if template else [],
                               list(template.labels) if template else [])

    # ------------------------------------------------------------------ cleaning run
    def schedule_cleaning(self) -> None:
        if self.raw is not None:
            self._clean_timer.start()

    @Slot()
    def run_cleaning(self) -> BackgroundOp | None:
        if self.raw is None or self.session.template is None:
            return None
        if any(p.severity == "error" for p in self.mapping_problems()):
            return None
        if self._clean_op is not None and self._clean_op.running:
            self._clean_op.cancel()
        raw, mapping, base = self.raw, dict(self.mapping), self._base_task()
        recipe = Recipe.model_validate(self.recipe.to_dict())
        choice, list_columns = self.current_label_choice(), list(self.list_columns)
        split = self.split_settings()
        ratios = split.ratios if split else (0.8, 0.1, 0.1)

        def work(ctx):
            from ....core.cleaning import Cancelled
            from ....core.preparing import clean_for_task

            try:  # the same path prepare takes: mapping, label table, recipe, least rows per label
                return clean_for_task(raw, base, mapping, recipe, choice=choice, list_columns=list_columns,
                                      ratios=ratios, progress=lambda i, n: ctx.progress(0.05 + 0.9 * i / max(n, 1)),
                                      cancelled=ctx.cancelled)
            except Cancelled:
                ctx.check()
                raise

        def done(result):
            cleaned, reports, problems = result.frame, result.reports, result.problems
            if self.raw is not raw:
                return
            self.cleaned_df, self.reports = cleaned, reports
            self.task = result.task
            self.prompt_editor.update_labels(result.task)
            self.labels_editor.set_table(result.labels, default_min_rows(ratios),
                                         dropped=(sum(result.excluded.values()), sum(result.too_few.values())))
            # the Labels tab is shown when the label column is found not to hold the template's
            # labels, not again while it still does not: an edit elsewhere (the text column, a
            # step) leaves the page where the user is
            mismatch = tuple(sorted(result.labels.counts)) if result.labels is not None and \
                result.labels.mismatch else None
            if mismatch is not None and mismatch != self._label_mismatch:
                self.tabs.setCurrentIndex(self.labels_tab)
            self._label_mismatch = mismatch
            self._refresh_steps_table()
            self.steps.summary.setText(self.tr("{0} rows imported → {1} rows after cleaning.").format(
                f"{len(raw):,}", f"{len(cleaned):,}") + "".join(f"\n⚠ {problem_text(p)}" for p in problems))
            self.prepare_button.setEnabled(not any(p.severity == "error" for p in problems))
            self._on_split_changed()
            if self.table_panel.showing_cleaned():
                self._show_frame()
                self._compute_stats()
            self.cleaned.emit()

        def failed(exc):
            self.steps.summary.setText(describe_error(exc)[0])
            self.background.show_error(self.tr("Cleaning failed"), exc)

        op = self.background.op(work, self.tr("Cleaning")).with_progress().on_success(done).on_failure(failed)
        self._clean_op = op
        return op.run()

    # ------------------------------------------------------------------ split + prepare
    def split_settings(self) -> SplitSettings | None:
        return self.split_panel.settings()

    @Slot()
    def _on_split_changed(self, *_):
        rows = len(self.cleaned_df) if self.cleaned_df is not None else None
        grouped = self.group_column and self.raw is not None and self.group_column in self.raw.columns
        self.split_panel.show_message(rows, self.group_column if grouped else None)
        self.command_box.set_args(*self.prepare_command())

    def prepare_command(self) -> tuple[list[str], list[str]]:
        """The 'workbench data prepare' arguments for the page's choices, and what they leave out."""
        template, project = self.session.template, self.session.project
        if self.source_path is None or template is None or project is None:
            return [], []
        args, left_out = prepare_args(template, self.source_path, project.root, mapping=dict(self.mapping),
                                      split=self.split_settings(), sheet=self.sheet,
                                      choice=self.current_label_choice(), header=self._header_arg())
        if _steps_key(Recipe.model_validate(self.recipe.to_dict())) != _steps_key(Recipe.from_template(template)):
            left_out.insert(0, "recipe")
        return args, left_out

    @Slot()
    def _on_prepare_button_clicked(self) -> None:
        self.prepare()

    def prepare(self) -> BackgroundOp | None:
        split = self.split_settings()
        if split is None:
            self.tabs.setCurrentWidget(self.split_panel)
            self.background.show_error(self.tr("The split is not valid"), self.split_message.text())
            return None
        if self.source_path is None or self.session.project is None:
            return None
        template, root = self.session.template, self.session.project.root
        source, sheet = self.source_path, self.sheet
        recipe, mapping = Recipe.model_validate(self.recipe.to_dict()), dict(self.mapping)
        labels, prompt = self.current_label_choice(), self.prompt or template.prompt
        header = self._header_arg()

        def work(ctx):
            from ....core.project import prepare

            stages = {"import": (0.0, 0.4), "clean": (0.4, 0.85), "write": (0.85, 1.0)}

            def progress(stage, frac):
                a, b = stages.get(stage, (0.0, 1.0))
                ctx.progress(a + (b - a) * frac)

            _, summary = prepare(template, source, root, recipe=recipe, mapping=mapping, split=split,
                                 sheet=sheet, header=header, labels=labels, prompt=prompt, progress=progress)
            return summary

        def done(summary):
            self.session.reload()
            self.save_template_button.setEnabled(True)
            st = summary["stats"]["splits"]
            self.steps.summary.setText(self.tr("Prepared: {0} training, {1} validation, {2} test rows.").format(
                *(f"{int(st[k]):,}" for k in ("train", "val", "test"))))
            self.prepared.emit()

        return self.background.op(work, self.tr("Preparing the data")).with_progress().on_success(done).run()

    # ------------------------------------------------------------------ the project's task
    def current_label_choice(self) -> LabelChoice:
        """The label choice the preview and prepare use: the user's, else the template's start."""
        if self.label_choice is not None or self.session.template is None:
            return self.label_choice or LabelChoice()
        return template_choice(self.session.template)

    def _base_task(self) -> TaskSpec | None:
        """The template's task with the project's prompt; the labels come from the label choice."""
        template = self.session.template
        if template is None:
            return None
        base = TaskSpec.from_template(template)
        return base.model_copy(update={"prompt": self.prompt}) if self.prompt is not None else base

    @Slot(object)
    def _on_labels_editor_choice_edited(self, choice: LabelChoice) -> None:
        before = self._state()
        after = {**before, "labels": choice.model_dump()}
        self.undo_stack.push(StateCommand(self, before, after, self.tr("change the labels")))

    @Slot(object)
    def _on_prompt_editor_prompt_edited(self, prompt: PromptFormat) -> None:
        before = self._state()
        template = self.session.template
        same = template is not None and prompt == template.prompt
        after = {**before, "prompt": None if same else prompt.model_dump()}
        if after != before:
            self.undo_stack.push(StateCommand(self, before, after, self.tr("edit the prompt")))

    @Slot()
    def _on_save_template_button_clicked(self) -> None:
        from .save_template_dialog import SaveTemplateDialog

        if self.session.project is None:
            return
        dlg = SaveTemplateDialog(self.session.project.config.name, self)
        if dlg.exec() == SaveTemplateDialog.DialogCode.Accepted:
            self.save_as_template(*dlg.values())

    def save_as_template(self, template_id: str, name_zh: str, name_en: str) -> BackgroundOp | None:
        """Write the prepared project as a template (the same core function as the CLI's)."""
        if self.session.project is None:
            return None
        project = self.session.project
        dest = self.session.user_templates_dir

        def work(ctx):
            from ....core.operations.save_template import save_as_template

            return save_as_template(project, template_id, name_zh=name_zh or None, name_en=name_en or None,
                                    dest=dest)

        def done(folder):
            self.session.reload_catalog()
            self.template_saved.emit(str(folder))

        return self.background.op(work, self.tr("Saving the template")).on_success(done).run()

    def shutdown(self) -> None:
        for op in (self._clean_op, self._import_op):
            if op is not None and op.running:
                op.cancel()
        self.table_panel.cancel()

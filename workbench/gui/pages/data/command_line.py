"""The 'workbench data prepare' command line that prepares a file the way the Data page does,
so that what the analyst clicked can be re-run from a script or on another machine.

Only flags the CLI has are written; the page says which of its choices a command line cannot
carry (changed cleaning steps, names with commas).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from ....core.labels import LabelChoice, template_choice
from ....core.project import SplitSettings
from ....core.templates import TemplateSpec
from ...widgets.copy_button import CopyButton


def _has_comma(text: str) -> bool:
    return "," in text or "，" in text


def prepare_args(template: TemplateSpec, source: str | Path, project: str | Path, *,
                 mapping: dict[str, str | None], split: SplitSettings | None, sheet: str | None,
                 choice: LabelChoice, header: bool | None = None) -> tuple[list[str], list[str]]:
    """The argument list after ``workbench`` and the kinds of choice it leaves out
    ("recipe" is added by the page, which knows the recipe; here "labels", "names").
    ``header``: the user's choice of whether the first row names the columns (None: the file's)."""
    args = ["data", "prepare", "--template", template.id, "--input", str(source), "--project", str(project)]
    pairs = [f"{role}={col}" for role, col in mapping.items() if col]
    if pairs:
        args += ["--mapping", *pairs]
    if sheet:
        args += ["--sheet", sheet]
    if header is not None:
        args.append("--header" if header else "--no-header")
    if split is not None:
        args += ["--split", f"{split.train:g},{split.val:g},{split.test:g}", "--seed", str(split.seed)]
    left_out: list[str] = []
    start = template_choice(template)
    if choice.aliases:  # only a project prepared before it owned its labels has these: no flag
        left_out.append("labels")
    if choice.source == "data":
        args += ["--labels", "from-data"]
    elif choice.source == "list":
        if any(_has_comma(lab) for lab in choice.labels):
            left_out.append("names")
        else:
            args += ["--labels", ",".join(choice.labels)]
    elif choice.renames or choice.merges or choice.excluded:  # the edits start from the template's labels
        args += ["--labels", "template"]
    # one token each (a label may start with "-"); the first "=" separates the two names
    for flag, pairs in (("--rename-label", choice.renames), ("--merge-label", choice.merges)):
        for label, other in pairs.items():
            if "=" in label:
                left_out.append("names")
            else:
                args.append(f"{flag}={label}={other}")
    args += [f"--exclude-label={label}" for label in choice.excluded]
    for code, name in choice.codes.items():
        if _has_comma(code) or _has_comma(name) or "=" in code:
            left_out.append("names")
        else:
            args += ["--label-map", f"{code}={name}"]
    if choice.min_rows is not None:
        args += ["--min-label-rows", str(choice.min_rows)]
    if choice.several != start.several:
        args += ["--several-labels", choice.several]
    if choice.multi_label != start.multi_label:
        args.append("--multi-label" if choice.multi_label else "--no-multi-label")
    if choice.multi_label and choice.separator != start.separator:
        if choice.separator == "--":  # argparse drops a lone "--" even inside --label-sep=--
            left_out.append("separator")
        else:  # one token: a separator such as "-" or " " would otherwise read as a flag or vanish
            args.append(f"--label-sep={choice.separator or ''}")
    if choice.multi_label and choice.no_label != start.no_label:
        args += ["--no-label-rows", choice.no_label]
    return args, list(dict.fromkeys(left_out))


class CommandLineBox(QWidget):
    """A read-only command line with a button that copies it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.args: list[str] = []
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        title = QLabel(self.tr("The same preparation as a command line (for a script or another computer):"))
        title.setWordWrap(True)
        row = QHBoxLayout()
        # several lines, wrapped anywhere: a command with paths does not fit one line of the tab
        self.line = QPlainTextEdit()
        self.line.setReadOnly(True)
        self.line.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.line.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.line.setFixedHeight(5 * self.line.fontMetrics().lineSpacing() + 14)
        self.copy_button = CopyButton(self.text)  # says "Copied" for a moment after a click
        row.addWidget(self.line, 1)
        row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setObjectName("hint")
        v.addWidget(title)
        v.addLayout(row)
        v.addWidget(self.note)
        self.set_args([], [])

    def text(self) -> str:
        return shlex.join(["workbench", *self.args]) if self.args else ""

    def set_args(self, args: list[str], left_out: list[str]) -> None:
        self.args = list(args)
        self.line.setPlainText(self.text() or self.tr("(import a file first)"))
        self.copy_button.setEnabled(bool(args))
        notes = {
            "recipe": self.tr("Your changes to the cleaning steps are not on it (the command uses the template's "
                              "steps, or a recipe file given with --recipe)."),
            "labels": self.tr("The label spellings this project kept from its earlier preparation are not on it; "
                              "preparing into this project again keeps them."),
            "names": self.tr("Labels or code names with a comma (or a renamed label with =) in them cannot be "
                             "written on it."),
            "separator": self.tr("The separator -- cannot be written on it; choose another one for the command line."),
        }
        self.note.setText(" ".join(notes[k] for k in left_out if k in notes))
        self.note.setVisible(bool(left_out))

"""The Evaluate page's Results tab: the confusion matrix or, with several labels per row, bars
per label and the most confused pairs; beside them the summary, the per-label table and the
note on which weights were evaluated."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QSizePolicy, QSplitter, QStackedWidget, QTableWidget,
    QTableWidgetItem, QVBoxLayout, QWidget,
)

from ....core.trained import FINAL_DIR
from ...widgets.charts import HeatMap, LabelBars
from ..run_text import metric_title, setting_text
from .words import baseline_sentence, fmt_metric, method_name, split_name


class ResultsPanel(QStackedWidget):
    """Shows an evaluation's ``metrics.json`` (see :meth:`show_result`), or, before there is one,
    what to do (:meth:`show_nothing`) in the middle of the tab."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.heatmap = HeatMap()
        self.heat_title = QLabel(self.tr("Confusion matrix: rows are the true labels, columns the predicted ones"))
        self.heat_title.setObjectName("sectionTitle")
        self.heat_title.setWordWrap(True)
        self.summary_text = QLabel()
        self.summary_text.setWordWrap(True)
        self.summary_text.setTextFormat(Qt.TextFormat.RichText)
        self.summary_text.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.class_table = QTableWidget(0, 5)
        self.class_table.setHorizontalHeaderLabels([self.tr("label"), self.tr("precision"), self.tr("recall"),
                                                    self.tr("F1"), self.tr("rows")])
        self.class_table.verticalHeader().setVisible(False)
        self.class_table.verticalHeader().setDefaultSectionSize(24)
        self.class_table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.class_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.class_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.class_table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.class_table.setAlternatingRowColors(True)
        self.class_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.class_table.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        ch = self.class_table.horizontalHeader()
        ch.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        ch.setStretchLastSection(False)
        ch.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.class_table.hide()
        # several labels per row: bars per label and the most confused pairs, not a square matrix
        self.bars_title = QLabel(self.tr("Per label: precision, recall and F1 (test rows with the label in brackets)"))
        self.bars_title.setObjectName("sectionTitle")
        self.bars_title.setWordWrap(True)
        self.label_bars = LabelBars({"precision": self.tr("precision"), "recall": self.tr("recall"),
                                     "f1": self.tr("F1")})
        self.pairs_title = QLabel(self.tr("Most confused labels"))
        self.pairs_title.setObjectName("sectionTitle")
        self.pairs_table = QTableWidget(0, 4)
        self.pairs_table.setHorizontalHeaderLabels([self.tr("true label"), self.tr("wrong label"), self.tr("how"),
                                                    self.tr("rows")])
        self.pairs_table.verticalHeader().setVisible(False)
        self.pairs_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.pairs_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.pairs_table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.pairs_table.setAlternatingRowColors(True)
        self.pairs_table.setWordWrap(True)
        ph = self.pairs_table.horizontalHeader()
        ph.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        ph.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        ph.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.pairs_empty = QLabel(self.tr("No test row was given a wrong label."))
        self.pairs_empty.setObjectName("hint")
        for w in (self.bars_title, self.label_bars, self.pairs_title, self.pairs_table, self.pairs_empty):
            w.hide()
        self.note_text = QLabel()
        self.note_text.setWordWrap(True)
        self.note_text.setObjectName("hint")
        # a preference run: its held-out pairs and answers' figures beside the run it tuned
        self.preference_text = QLabel()
        self.preference_text.setWordWrap(True)
        self.preference_text.setTextFormat(Qt.TextFormat.RichText)
        self.preference_text.hide()
        side = QWidget()
        sdv = QVBoxLayout(side)
        sdv.setContentsMargins(6, 0, 0, 0)
        sdv.addWidget(self.summary_text)
        sdv.addWidget(self.preference_text)
        sdv.addWidget(self.class_table, 0, Qt.AlignmentFlag.AlignLeft)
        sdv.addWidget(self.pairs_title)
        sdv.addWidget(self.pairs_table, 100)  # shown, it takes the room the closing stretch would
        sdv.addWidget(self.pairs_empty)
        sdv.addWidget(self.note_text)
        sdv.addStretch(1)
        hm = QWidget()
        hv = QVBoxLayout(hm)
        hv.setContentsMargins(0, 0, 0, 0)
        hv.addWidget(self.heat_title)
        hv.addWidget(self.heatmap, 1)
        hv.addWidget(self.bars_title)
        hv.addWidget(self.label_bars, 1)
        self.figures = hm  # hidden where there is no matrix nor bars: the summary takes the width
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(hm)
        self.splitter.addWidget(side)
        self.splitter.setSizes([520, 400])
        # no evaluation yet: the text alone, where one looks, not beside an empty matrix
        self.empty_text = QLabel()
        self.empty_text.setWordWrap(True)
        self.empty_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.empty_text.setMaximumWidth(560)  # lines one reads at a glance
        empty = QWidget()
        ev = QVBoxLayout(empty)
        row = QHBoxLayout()  # centred by stretches: a layout alignment would cut the wrapped lines
        row.addStretch(1)
        row.addWidget(self.empty_text, 10)
        row.addStretch(1)
        ev.addStretch(1)
        ev.addLayout(row)
        ev.addStretch(2)
        self.empty = empty
        self.addWidget(self.splitter)
        self.addWidget(empty)

    def show_result(self, result: dict) -> None:
        """An evaluation's figures; ``{}`` shows none."""
        self.setCurrentWidget(self.splitter)
        m = result.get("metrics") or {}
        baseline = result.get("baseline") or {}
        labels = m.get("labels") or []
        conf = m.get("confusion")
        self.heat_title.setVisible(bool(conf))
        self.heatmap.setVisible(bool(conf))
        if conf:
            self.heatmap.set_matrix(conf, labels, self.tr("predicted"), self.tr("true"))
        lines = []
        if result:
            method = result.get("method")
            lines.append(self.tr("<b>{0}</b> rows of the {1} split · model {2} ({3})").format(
                result.get("rows"), split_name(result.get("split")),
                setting_text("base_model", result.get("base_model_name") or result.get("base_model")),
                setting_text("method", method) if method == "dpo" else method_name(method)))
        verdict = baseline_sentence(baseline.get("comparison"))
        if verdict:
            lines.append(verdict)
        parts = m.get("parts") or {}
        if isinstance(parts.get("linear_macro_f1"), (int, float)):  # a classifier that mixes in word statistics
            share = float(parts.get("linear_share") or 0)
            if share >= 1:  # validation gave the word statistics the whole answer: the network was not run
                lines.append(self.tr("The answers are the word statistics' alone (macro F1 {0}): on the validation "
                                     "split they scored best without the network, so the network did not read "
                                     "these rows.").format(f"{parts['linear_macro_f1']:.3f}"))
            else:
                network = parts.get("network_macro_f1")
                lines.append(self.tr("Macro F1 of each part on these rows: the network alone {0}, the word "
                                     "statistics alone {1}; the word statistics' share of the answer {2}.").format(
                    f"{network:.3f}" if isinstance(network, (int, float)) else "–", f"{parts['linear_macro_f1']:.3f}",
                    f"{share:.0%}"))
        if m.get("multi_label") and isinstance(m.get("threshold"), (int, float)):
            lines.append(self.tr("Several labels per row: a label is given when its probability is {0} or more "
                                 "(the threshold with the best macro F1 on the validation split).").format(
                f"{m['threshold']:.2f}"))
        budget = m.get("answer_budget") or {}
        if budget.get("shortened") or budget.get("prompts_cut"):  # engine/evaluate.budget_note, in words
            lines.append(self.tr("The model was trained on {0} tokens, question and answer together: {1} of {2} "
                                 "answers were given fewer than the {3} new tokens asked for (as few as {4}), so "
                                 "that each question is read whole. For longer answers, train again with a larger "
                                 "maximum length.").format(budget.get("max_length"), budget.get("shortened"),
                                                           budget.get("rows"), budget.get("asked"),
                                                           budget.get("smallest")))
        per = m.get("per_class") or {}
        multi = bool(m.get("multi_label")) and bool(per)
        self._show_label_set_results(m if multi else {})
        self.figures.setVisible(bool(conf) or multi)
        if multi:
            per = {}  # the bars show these, with each label's rows
        self._show_class_table(per)
        # the note in the interface language, from what it says (core writes it in English for the CLI)
        source = result.get("source")
        note = "" if not source or source == FINAL_DIR else self.tr(
            "This run ended before the end of training, so its last checkpoint ({0}) was evaluated.").format(source)
        self.note_text.setText(note)
        self.note_text.setVisible(bool(note))
        self.summary_text.setText("<br>".join(lines))
        self.summary_text.setVisible(bool(lines))
        self._show_preference(result)

    def _show_preference(self, result: dict) -> None:
        """A preference run's held-out pairs judged by it and by the run it tuned, with the answers'
        figures of both, so that a preference gained at the cost of the answers shows."""
        pref = result.get("preference") or {}
        tuned, first = pref.get("tuned") or {}, pref.get("base") or {}
        self.preference_text.setVisible(bool(pref))
        if not pref:
            self.preference_text.clear()
            return
        m, base = result.get("metrics") or {}, result.get("base") or {}
        run = html.escape(str(pref.get("from_run")))

        def cell(v, key: str) -> str:
            if not isinstance(v, (int, float)):
                return "–"
            return f"{v:.0%}" if key.endswith("accuracy") else fmt_metric(key, v)

        rows = [(self.tr("Preference accuracy on {0} held-out pairs").format(pref.get("heldout_pairs")),
                 cell(tuned.get("preference_accuracy"), "preference_accuracy"),
                 cell(first.get("preference_accuracy"), "preference_accuracy") + " " + self.tr("(a coin toss)")),
                (self.tr("Chosen answer more likely"), cell(tuned.get("likelihood_accuracy"), "likelihood_accuracy"),
                 cell(first.get("likelihood_accuracy"), "likelihood_accuracy"))]
        answers = [k for k in ("rouge_l", "bleu", "eval_loss") if isinstance(m.get(k), (int, float))]
        rows += [(metric_title(k), cell(m.get(k), k), cell(base.get(k), k)) for k in answers]
        this, first_run = self.tr("this run"), self.tr("run {0}").format(run)
        head = (f"<tr><th></th><th align='right'>&nbsp;{this}&nbsp;</th>"
                f"<th align='right'>&nbsp;{first_run}&nbsp;</th></tr>")
        body = "".join(f"<tr><td>{html.escape(a)}</td><td align='right'>{b}</td><td align='right'>{c}</td></tr>"
                       for a, b, c in rows)
        text = [self.tr("<b>Your judgements</b> · tuned from run {0} ({1}, beta {2}) on {3} pairs").format(
                    run, html.escape(str(pref.get("loss"))), f"{pref.get('beta', 0):g}", pref.get("train_pairs")),
                f"<table cellspacing='0' cellpadding='2'>{head}{body}</table>"]
        if answers and not any(isinstance(base.get(k), (int, float)) for k in answers):
            text.append(self.tr("Evaluate with “Compare with the base model” to see run {0}'s answers scored "
                                "beside these.").format(run))
        else:
            text.append(self.tr("A preference gained at the cost of the answers shows as a lower ROUGE-L or BLEU, "
                                "or a higher loss, than run {0}'s.").format(run))
        self.preference_text.setText("<br>".join(text))

    def show_nothing(self, text: str) -> None:
        """No evaluation to show: ``text`` says why and what to do."""
        self.show_result({})
        self.heatmap.set_matrix([], [])
        self.empty_text.setText(text)
        self.setCurrentWidget(self.empty)

    def _show_class_table(self, per: dict) -> None:
        self.class_table.setRowCount(len(per))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for r, (lab, d) in enumerate(per.items()):
            label_item = QTableWidgetItem(str(lab))
            label_item.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            self.class_table.setItem(r, 0, label_item)
            vals = [f"{d.get('precision', 0):.2f}", f"{d.get('recall', 0):.2f}", f"{d.get('f1', 0):.2f}",
                    str(d.get("support", ""))]
            for c, v in enumerate(vals, 1):
                item = QTableWidgetItem(v)
                item.setTextAlignment(right)
                self.class_table.setItem(r, c, item)
        header_label = self.class_table.horizontalHeaderItem(0)
        if header_label is not None:
            header_label.setTextAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.class_table.setVisible(bool(per))
        if per:
            self.class_table.resizeColumnsToContents()
            self.class_table.setFixedHeight(self.class_table.horizontalHeader().height()
                                            + 24 * len(per) + 2 * self.class_table.frameWidth())

    def _show_label_set_results(self, m: dict) -> None:
        """Bars per label and the most confused pairs, as eval wrote them (``per_class``,
        ``confused_pairs``); empty ``m`` hides them."""
        per, pairs = m.get("per_class") or {}, m.get("confused_pairs") or []
        for w in (self.bars_title, self.label_bars, self.pairs_title):
            w.setVisible(bool(per))
        self.pairs_table.setVisible(bool(per) and bool(pairs))
        self.pairs_empty.setVisible(bool(per) and not pairs)
        if not per:
            return
        self.label_bars.set_data(per)
        how = {"instead": self.tr("given instead"), "along": self.tr("given along with it")}
        self.pairs_table.setRowCount(len(pairs))
        for r, p in enumerate(pairs):
            values = [str(p.get("true", "")), str(p.get("predicted", "")), how.get(p.get("kind", "instead"), ""),
                      str(p.get("rows", ""))]
            for c, v in enumerate(values):
                item = QTableWidgetItem(v)
                if c == 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.pairs_table.setItem(r, c, item)
        self.pairs_table.resizeRowsToContents()

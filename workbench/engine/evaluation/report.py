"""The evaluation report: one self-contained HTML file (plots embedded as base64 PNG)
that a user can open in a browser or send to a colleague.

Plots are drawn with matplotlib's Agg backend. Chinese labels need a CJK font; when the
machine has none, plot ticks use short codes (C1, C2, ...) and the HTML lists what each
code stands for, instead of drawing empty boxes.
"""

from __future__ import annotations

import base64
import html
import io
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.fsutil import atomic_write_text
from workbench.core.runs import read_events

_BUNDLED_FONT = Path(os.environ.get("WORKBENCH_RESOURCES") or Path(__file__).resolve().parents[3] / "resources") \
    / "fonts" / "WorkbenchSansSC-Regular.otf"
_CJK_FONT_HINTS = ("Noto Sans CJK", "Noto Serif CJK", "Source Han", "WenQuanYi", "SimHei", "Microsoft YaHei",
                   "PingFang", "Heiti", "Songti", "AR PL", "Droid Sans Fallback")


def _setup_matplotlib() -> bool:
    """Agg backend and a CJK-capable font if one is installed; returns whether one is."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib import font_manager, rcParams

    names = sorted({f.name for f in font_manager.fontManager.ttflist})
    cjk = [n for hint in _CJK_FONT_HINTS for n in names if n.startswith(hint)]
    if not cjk and _BUNDLED_FONT.is_file():  # a machine without a CJK font: the subset the app ships
        font_manager.fontManager.addfont(str(_BUNDLED_FONT))
        cjk = [font_manager.FontProperties(fname=str(_BUNDLED_FONT)).get_name()]
    if cjk:
        # a list, not the "sans-serif" alias: matplotlib falls back glyph by glyph only along
        # font.family, and some CJK faces (Droid Sans Fallback) have no Latin digits
        rcParams["font.family"] = ["DejaVu Sans", cjk[0]]
    rcParams["axes.unicode_minus"] = False
    return bool(cjk)


MANY_LABELS = 12  # above this, plots switch to the compact forms below


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _img(b64: str, alt: str) -> str:
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}"><figcaption>{html.escape(alt)}</figcaption></figure>'


def read_curves(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Train loss and eval loss per step, from the run's events as core.runs reads them (what a
    crash or a disk left behind, bytes that are not UTF-8 included, is skipped there)."""
    curves: dict[str, list[tuple[int, float]]] = {"loss": [], "eval_loss": []}
    for ev in read_events(run_dir):
        if ev["event"] == "step" and isinstance(ev.get("loss"), (int, float)):
            curves["loss"].append((int(ev.get("step", 0)), float(ev["loss"])))
        elif ev["event"] == "eval" and isinstance(ev.get("eval_loss"), (int, float)):
            curves["eval_loss"].append((int(ev.get("step", 0)), float(ev["eval_loss"])))
    return curves


def _loss_plot(curves) -> str | None:
    import matplotlib.pyplot as plt

    if not curves["loss"] and not curves["eval_loss"]:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for key, label, style in (("loss", "training loss", "-"), ("eval_loss", "validation loss", "o-")):
        if curves[key]:
            xs, ys = zip(*curves[key])
            ax.plot(xs, ys, style, label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.grid(alpha=0.3)
    ax.legend()
    return _png(fig)


def _confusion_plot(confusion, ticks) -> str:
    import matplotlib.pyplot as plt
    import numpy as np

    cm = np.asarray(confusion, dtype=float)
    n = len(ticks)
    # With many labels a cell shrinks so that the matrix stays about a page wide (at a fixed
    # cell, 62 charges drew 5,300 px in 5 s), and only the non-empty cells get their count.
    many = n > MANY_LABELS
    cell = min(0.9, 11.0 / max(n, 1))
    font = 10.0 if not many else max(4.5, 10.0 * cell / 0.9)
    fig, ax = plt.subplots(figsize=(1.2 + cell * n, 1.0 + 0.9 * cell * n))
    im = ax.imshow(cm, cmap="Blues", aspect="auto")
    ax.set_xticks(range(n), ticks, fontsize=font, rotation=90 if many else 0)
    ax.set_yticks(range(n), ticks, fontsize=font)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    top = cm.max() if cm.size else 0
    cells = zip(*np.nonzero(cm)) if many else ((i, j) for i in range(n) for j in range(n))
    for i, j in cells:
        ax.text(j, i, f"{int(cm[i, j])}", ha="center", va="center", fontsize=font,
                color="white" if top and cm[i, j] > top / 2 else "black")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return _png(fig)


def _per_class_plot(per_class, labels, ticks) -> str:
    import matplotlib.pyplot as plt
    import numpy as np

    x = np.arange(len(labels))
    fig, ax = plt.subplots(figsize=(max(4.5, 1.2 * len(labels) + 2), 3.2))
    for k, name in enumerate(("precision", "recall", "f1")):
        ax.bar(x + (k - 1) * 0.26, [per_class[lab][name] for lab in labels], width=0.26, label=name)
    ax.set_xticks(x, ticks)
    ax.set_ylim(0, 1.2)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.grid(axis="y", alpha=0.3)
    ax.legend(ncols=3, fontsize=8, loc="upper center")
    return _png(fig)


def _per_label_bars(per_class, labels, ticks) -> str:
    """Multi-label, or many classes: horizontal bars, one group per label (names are long, and
    a row of vertical bars for 62 charges was 6,500 px wide), its test rows beside it."""
    import matplotlib.pyplot as plt
    import numpy as np

    y = np.arange(len(labels))[::-1]
    names = [f"{t} ({per_class[lab]['support']})" for t, lab in zip(ticks, labels)]
    # the bars keep about 4.5 inches beside the longest name (a legal charge runs to 30 characters)
    width = 4.5 + 0.11 * max((len(t) for t in names), default=10)
    fig, ax = plt.subplots(figsize=(width, max(2.6, 0.55 * len(labels) + 1.0)))
    for k, name in enumerate(("precision", "recall", "f1")):
        ax.barh(y + (1 - k) * 0.26, [per_class[lab][name] for lab in labels], height=0.26, label=name)
    ax.set_yticks(y, names)
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("score (test rows with the label in brackets)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(ncols=3, fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    return _png(fig)


PAIR_KINDS = {"instead": "given instead (the true label missed)", "along": "given along with it (the true label right)"}


def _hist_plot(series: dict[str, Sequence[float]], xlabel: str) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 3.0))
    bins = [i / 20 for i in range(21)]
    for name, values in series.items():
        if values:
            ax.hist(values, bins=bins, alpha=0.6, label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("samples")
    ax.set_xlim(0, 1)
    ax.legend()
    return _png(fig)


def _compare_plot(tuned: dict, base: dict, keys: Sequence[str]) -> str:
    import matplotlib.pyplot as plt
    import numpy as np

    keys = [k for k in keys if isinstance(tuned.get(k), (int, float)) and isinstance(base.get(k), (int, float))]
    x = np.arange(len(keys))
    fig, ax = plt.subplots(figsize=(max(4.0, 1.4 * len(keys) + 1.5), 3.0))
    ax.bar(x - 0.2, [base[k] for k in keys], width=0.4, label="base model")
    ax.bar(x + 0.2, [tuned[k] for k in keys], width=0.4, label="fine-tuned")
    ax.set_xticks(x, keys)
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    return _png(fig)


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4f}"
    if v is None:
        return "–"
    return str(v)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    # a text's lines as lines (the two questions of a pair, an answer's paragraphs)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c)).replace(chr(10), '<br>')}</td>" for c in row)
                   + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _clip(text: str, n: int = 300) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","Microsoft YaHei",sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}td,th{border:1px solid #ddd;padding:4px 8px;vertical-align:top;text-align:left}
th{background:#f4f6f8}figure{display:inline-block;margin:.5em 1em .5em 0}figcaption{font-size:.85em;color:#555}
.note{background:#fff8e0;border:1px solid #f0d890;padding:.5em .8em}.muted{color:#666;font-size:.85em}
"""

METRIC_NAMES = {
    "accuracy": "accuracy", "macro_f1": "macro-F1", "rouge_l": "ROUGE-L (characters)", "bleu": "BLEU (0-100)",
    "exact_match": "exact match", "eval_loss": "loss on reference answers", "perplexity": "perplexity",
    "micro_f1": "micro-F1", "subset_accuracy": "subset accuracy (the whole set right)", "hamming_loss": "Hamming loss",
    "preference_accuracy": "held-out preference accuracy (implicit reward)",
    "likelihood_accuracy": "held-out pairs whose chosen answer is the more likely",
}


def build_report(result: dict, rows: Sequence[dict], base_rows: Sequence[dict] | None, *,
                 run_dir: Path, task_spec) -> str:
    """The report's HTML text."""
    has_cjk = _setup_matplotlib()
    task = result["task"]
    m = result["metrics"]
    base = result.get("base")
    parts: list[str] = []
    title = f"Evaluation of run {result['run']}"
    parts.append(f"<h1>{html.escape(title)}</h1>")
    from workbench.core.task import origin_template

    origin = origin_template(task_spec)
    named = f" ({origin.name.en} / {origin.name.zh})" if origin else ""
    parts.append("<p>" + html.escape(
        f"Template {result['template']}{named}, task {task}, base model "
        f"{result['base_model']}, method {result['method']}; {result['rows']} samples of the '{result['split']}' "
        f"split; weights: {result['source']}.") + "</p>")
    if result.get("note"):
        parts.append(f'<p class="note">{html.escape(result["note"])}</p>')

    multi = bool(m.get("multi_label"))
    keys = ["accuracy", "macro_f1"] if task == "classification" else ["rouge_l", "bleu", "exact_match"]
    if multi:
        keys = ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"]
    keys += ["eval_loss", "perplexity"]
    parts.append("<h2>Figures</h2>")
    pref = result.get("preference")
    if pref:  # a preference run: its base model is the run it tuned
        keys += ["preference_accuracy", "likelihood_accuracy"]
        parts.append('<p class="note">' + html.escape(
            f"Preference tuning of run {pref['from_run']} ({pref['loss']} loss, beta {pref['beta']:g}) on "
            f"{pref['train_pairs']} pairs of answers; {pref['heldout_pairs']} pairs held out. The base model is "
            f"run {pref['from_run']}'s, whose implicit reward is a tie (0.5) by definition.") + "</p>")
    baseline = result.get("baseline")
    comp = (baseline or {}).get("comparison")
    if comp:
        parts.append(f'<p class="note">{html.escape(comp["sentence"])}</p>')
    headers = ["metric", "fine-tuned"] + (["base model"] if base else []) + (["baseline"] if baseline else [])
    from workbench.engine.scoring import macro_f1_name

    names = {**METRIC_NAMES, "macro_f1": macro_f1_name(m)}
    parts.append(_table(headers, [[names.get(k, k), m.get(k)] + ([base.get(k)] if base else [])
                                  + ([baseline.get(k)] if baseline else []) for k in keys]))
    if baseline:
        parts.append('<p class="muted">' + html.escape(
            f"Baseline: {baseline['description']}, fitted on the {baseline['train_rows']} training rows in "
            f"{baseline['fit_seconds']:.1f} s" + (", classes weighted by their frequency" if
                                                   baseline.get("class_weight") else "") + ".") + "</p>")
    if base:
        parts.append(_img(_compare_plot(m, base, [k for k in keys if k not in ("eval_loss", "perplexity", "bleu")]
                                        or keys), "base model vs fine-tuned"))

    curves = read_curves(run_dir)
    loss_png = _loss_plot(curves)
    if loss_png:
        parts.append("<h2>Training curves</h2>" + _img(loss_png, "loss per step"))

    # what the model read: the template's prompt around the row's text, or the text alone
    prompted = result.get("input", "prompt") == "prompt"
    input_name = "input (template's prompt + text)" if prompted else "text"
    inputs_note = ("Each input is what the model read: the template's prompt filled with the row's fields."
                   if prompted else "Each input is the row's text as the model read it: this model classifies "
                   "the text alone, and the template's prompt takes no part in it.")
    if task == "classification":
        labels = list(m["labels"])
        ticks = labels if has_cjk or all(lab.isascii() for lab in labels) else [f"C{i + 1}" for i in range(len(labels))]
        parts.append("<h2>Per class</h2>")
        if ticks != labels:
            parts.append('<p class="muted">Codes in the plots: ' + html.escape(
                ", ".join(f"{t} = {lab}" for t, lab in zip(ticks, labels))) + "</p>")
        if multi:
            tuning = m.get("threshold_tuning") or {}
            parts.append('<p class="note">' + html.escape(
                f"Several labels per row: a label is given when its probability is at least {m['threshold']:.2f}"
                + (f" (the threshold with the best macro-F1 on the {tuning.get('val_rows')} validation rows)"
                   if tuning.get("tuned_on") else "") + "; a row clearing none gets its most probable label.")
                + "</p>")
        else:
            parts.append(_img(_confusion_plot(m["confusion"], ticks), "confusion matrix (rows: true label)"))
        if multi or len(labels) > MANY_LABELS:
            parts.append(_img(_per_label_bars(m["per_class"], labels, ticks), "precision, recall and F1 per label"))
        else:
            parts.append(_img(_per_class_plot(m["per_class"], labels, ticks), "precision, recall and F1 per class"))
        pc = m["per_class"]
        if multi:
            pairs = m.get("confused_pairs") or []
            parts.append("<h3>Most confused labels</h3>" + (_table(
                ["true label", "wrong label", "how", "rows"],
                [[p["true"], p["predicted"], PAIR_KINDS.get(p.get("kind", "instead"), ""), p["rows"]] for p in pairs])
                if pairs else '<p class="muted">No row was given a wrong label.</p>'))
        parts.append(_table(["label", "precision", "recall", "F1", "support"],
                            [[lab, pc[lab]["precision"], pc[lab]["recall"], pc[lab]["f1"], pc[lab]["support"]]
                             for lab in labels]))
        conf = {"correct": [r["confidence"] for r in rows if r["correct"]],
                "wrong": [r["confidence"] for r in rows if not r["correct"]]}
        parts.append(_img(_hist_plot(conf, "confidence of the predicted label"), "confidence distribution"))
        cols = ["#", input_name, "reference", "prediction", "confidence"]
        pick = lambda r: [r["index"] + 1, _clip(r["input"]), _joined(r["reference"]), _joined(r["prediction"]),  # noqa: E731
                          r["confidence"]]
    else:
        series = {"fine-tuned": [r["score"] for r in rows]}
        if base_rows:
            series["base model"] = [r["score"] for r in base_rows]
        parts.append("<h2>Score distribution</h2>")
        parts.append(_img(_hist_plot(series, "ROUGE-L per sample"), "ROUGE-L distribution"))
        cols = ["#", input_name, "reference", "prediction", "ROUGE-L"]
        pick = lambda r: [r["index"] + 1, _clip(r["input"]), _clip(r["reference"]), _clip(r["prediction"]), r["score"]]  # noqa: E731

    parts.append(f'<p class="muted">{html.escape(inputs_note)}</p>')
    parts.append("<h2>Best samples</h2>" + _table(cols, [pick(r) for r in result["best"]]))
    parts.append("<h2>Worst samples</h2>" + _table(cols, [pick(r) for r in result["worst"]]))
    if base_rows:
        parts.append("<h2>Base model vs fine-tuned (first 10 samples)</h2>")
        parts.append(_table(["#", input_name, "reference", "base model", "fine-tuned"],
                            [[i + 1, _clip(r["input"], 160), _clip(r["reference"], 160), _clip(b["prediction"], 160),
                              _clip(r["prediction"], 160)] for i, (r, b) in enumerate(zip(rows[:10], base_rows[:10]))]))
    parts.append(f'<p class="muted">Written {time.strftime("%Y-%m-%d %H:%M")}. All samples with predictions are '
                 "in predictions.csv beside this file.</p>")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + html.escape(title)
            + f"</title><style>{CSS}</style></head><body>" + "\n".join(parts) + "</body></html>\n")


def _joined(value) -> str:
    return " | ".join(value) if isinstance(value, list) else value


def write_report(path: Path, result: dict, rows, base_rows, *, run_dir: Path, task_spec) -> Path:
    return atomic_write_text(path, build_report(result, rows, base_rows, run_dir=run_dir, task_spec=task_spec))

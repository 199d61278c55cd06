"""Does the label review find wrong labels, and does correcting them pay? On real data with
labels flipped on purpose.

Reads the file, keeps one row per text (identical texts, once width, case, white space and
punctuation are folded as the cleaning recipe's near-duplicate step folds them: a flipped row's
twin would otherwise contradict it), and prepares it twice with the template's recipe and the
labels taken from the data: as it is, which gives each text its true label, and as a copy with
``--noise`` (10 %) of the labels flipped (seeded), the same split settings. Two kinds of flips,
each a run of its own (``--flips``):

* random: to another label drawn at random;
* confusion: to the label the baseline confuses the row's own label with most (the largest
  out-of-fold probability mass the character 1-3-gram TF-IDF + logistic-regression baseline
  gives another label on the rows of that label, 5 folds over the clean rows).

The split is stratified on the labels it is given, so the flips land in every split; those in
the training and validation rows are the ones to find. ``workbench review --top 0 --json`` runs
on the noisy project as a child process, and the bench prints:

* recall and precision of the flipped rows among the review's first K rows, for K = 1x and 2x
  the flips (the floor measured on a ~6,300-row dialogue-act set with 607 random flips: 5-fold
  TF-IDF + logistic regression through cleanlab found 72 % at 1x and 82 % at 2x; target:
  recall >= 0.85 at 2x on random flips), and of the rows cleanlab flagged;
* macro-F1 on the test rows' true labels of the baseline fitted on the training and validation
  rows (all of them, so a correction of either counts) with the noisy labels, after a reviewer
  corrected the flipped rows among the first 2x (each to its true label), after accepting the
  review's suggestion on all first 2x rows unchecked, and with the true labels; and the share of
  the F1 the noise cost that the reviewed correction won back (target: at least 0.8);
* the review's wall time and CPU time (its child process's user + system time).

``--run MODEL`` also trains MODEL (e.g. builtin:small) on the noisy project through the real
worker and reviews again with ``--run``: recall on the validation rows' flips with and without
the run's opinion.

    python bench/review_bench.py --input FILE --template ID [--mapping ROLE=COLUMN ...]
        [--labels from-data|template] [--flips random|confusion|both] [--noise 0.1] [--seed 0] [--max-rows N] [--run MODEL]
        [--project DIR] [--json]
    python bench/review_bench.py --smoke     # the medical_triage sample, random flips, seconds
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.commands import last_json, wb  # noqa: E402
from workbench.core.cleaning import Recipe  # noqa: E402
from workbench.core.labels import template_choice  # noqa: E402
from workbench.core.project import Project, SplitSettings, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402

SPLIT = SplitSettings(train=0.8, val=0.1, test=0.1, seed=0)




def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--input", help="the data file (required unless --smoke)")
    p.add_argument("--template", help="the template id (required unless --smoke)")
    p.add_argument("--mapping", nargs="*", default=[], metavar="ROLE=COLUMN")
    p.add_argument("--labels", choices=["from-data", "template"], default="from-data",
                   help="the label set: the labels found in the data (default) or the template's")
    p.add_argument("--flips", choices=["random", "confusion", "both"], default="both")
    p.add_argument("--noise", type=float, default=0.1, help="share of the labels flipped (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help="which rows are flipped, and to what")
    p.add_argument("--max-rows", type=int, help="a seeded sample of this many rows (after one row per text)")
    p.add_argument("--run", metavar="MODEL", help="also train MODEL on the noisy labels and review with its run")
    p.add_argument("--project", help="folder for the projects (default: a temporary one)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--smoke", action="store_true", help="a template's sample, random flips (the tests run it)")
    args = p.parse_args(argv)
    if args.smoke:
        template = TemplateCatalog().get(args.template or "medical_triage")
        args.template, args.input = template.id, args.input or str(template.sample_path)
        args.flips, args.labels = "random", "template"
    elif not (args.input and args.template):
        p.error("--input and --template are required (or --smoke)")
    with tempfile.TemporaryDirectory(prefix="review-bench-") as tmp:
        base = Path(args.project) if args.project else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        results = []
        kinds = ["random", "confusion"] if args.flips == "both" else [args.flips]
        for kind in kinds:
            if kind == "confusion" and results and results[-1]["labels"] == 2:
                print("confusion flips: with two labels they are the random flips above")
                continue
            out = one_run(args, kind, base)
            if out is None:
                return 1
            results.append(out)
        if args.smoke and not all(r["review"]["recall_2x"] > r["flips_train_val"] / r["rows_reviewed"] * 2
                                  for r in results):
            print("the review ranked the flipped rows no better than chance", file=sys.stderr)
            return 1
    return 0


# ----- the data ------------------------------------------------------------------------------


def read_rows(args, template):
    """The file's rows, one per text, and the text and label columns."""
    from workbench.core.cleaning.steps import near_duplicate_key
    from workbench.core.dataio import read_table
    from workbench.core.mapping import mapped_columns, suggest_mapping

    import pandas as pd
    import pyarrow as pa

    df, _ = read_table(args.input)
    df = df.astype(str)
    mapping = {**suggest_mapping(template, [str(c) for c in df.columns]), **dict(m.split("=", 1) for m in args.mapping)}
    text_cols = mapped_columns(mapping.get("text"), [str(c) for c in df.columns])
    label_col = mapping.get("label")
    if not text_cols or not label_col:
        raise SystemExit(f"cannot tell the text and label columns of {args.input}: give --mapping text=... label=...")
    text = df[text_cols[0]] if len(text_cols) == 1 else df[text_cols].agg("\n".join, axis=1)
    keys = near_duplicate_key(pa.chunked_array([pa.array(text.tolist(), pa.string())])).to_pylist()
    df = df[~pd.Series(keys).duplicated().to_numpy()].reset_index(drop=True)
    df = df[df[label_col].str.strip() != ""].reset_index(drop=True)
    if args.max_rows and len(df) > args.max_rows:
        df = df.sample(n=args.max_rows, random_state=args.seed).reset_index(drop=True)
    return df, mapping, label_col


def confusion_targets(texts, labels) -> dict[str, str]:
    """For each label, the other label the baseline gives most probability on its rows (5 folds)."""
    import numpy as np
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    from workbench.engine.models.ngram_baseline import classifier, is_skewed, vectorizer

    names = sorted(set(labels))
    y = np.array([names.index(v) for v in labels])
    x = vectorizer().fit_transform(texts)
    folds = min(5, int(np.bincount(y).min()))
    probs = cross_val_predict(classifier(is_skewed(labels)), x, y, method="predict_proba",
                              cv=StratifiedKFold(max(2, folds), shuffle=True, random_state=0))
    mass = np.zeros((len(names), len(names)))
    np.add.at(mass, y, probs)
    np.fill_diagonal(mass, -1.0)
    return {names[k]: names[int(mass[k].argmax())] for k in range(len(names))}


def flip(df, label_col: str, kind: str, noise: float, seed: int, names: list[str], targets: dict[str, str] | None):
    """A copy with ``noise`` of the rows' labels changed to another of the project's ``names``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    noisy = df.copy()
    chosen = rng.choice(len(df), size=int(round(noise * len(df))), replace=False)
    col = noisy.columns.get_loc(label_col)
    for i in chosen:
        true = df.iat[i, col]
        if kind == "random":
            noisy.iat[i, col] = str(rng.choice([n for n in names if n != true]))
        elif true in targets:
            noisy.iat[i, col] = targets[true]
    return noisy


def prepared(template, csv: Path, root: Path, mapping, label_source: str) -> Project:
    labels = template_choice(template)
    if label_source == "from-data":
        labels = labels.model_copy(update={"source": "data"})
    project, _ = prepare(template, csv, root, recipe=Recipe.from_template(template),
                         mapping={k: v for k, v in mapping.items() if v}, labels=labels, split=SPLIT)
    return project


def split_rows(project: Project, split: str) -> list[dict]:
    from workbench.engine.examples import read_jsonl

    return read_jsonl(project.split_path(split))


# ----- one run -------------------------------------------------------------------------------


def one_run(args, kind: str, base: Path) -> dict | None:
    from workbench.engine.models.ngram_baseline import input_text

    template = TemplateCatalog().get(args.template)
    df, mapping, label_col = read_rows(args, template)
    folder = base / f"{Path(args.input).stem}-{kind}-{args.seed}"
    folder.mkdir(parents=True, exist_ok=True)
    clean_csv, noisy_csv = folder / "clean.csv", folder / "noisy.csv"
    df.to_csv(clean_csv, index=False)
    clean = prepared(template, clean_csv, folder / "clean", mapping, args.labels)
    roles = clean.task.input_roles
    # the cleaned text -> its true label (texts are unique: the recipe drops repeats)
    truth = {input_text(r, roles): r["label"] for s in ("train", "val", "test") for r in split_rows(clean, s)}
    targets = None
    if kind == "confusion":
        rows = [r for s in ("train", "val", "test") for r in split_rows(clean, s)]
        targets = confusion_targets([input_text(r, roles) for r in rows], [r["label"] for r in rows])
    flip(df, label_col, kind, args.noise, args.seed, list(clean.task.labels), targets).to_csv(noisy_csv, index=False)
    noisy = prepared(template, noisy_csv, folder / "noisy", mapping, args.labels)

    reviewed = {s: split_rows(noisy, s) for s in ("train", "val")}
    test = [r for r in split_rows(noisy, "test") if input_text(r, roles) in truth]
    is_flip = {(s, i): truth.get(input_text(r, roles), r["label"]) != r["label"]
               for s, recs in reviewed.items() for i, r in enumerate(recs)}
    flips = sum(is_flip.values())
    n_rows = len(is_flip)

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = wb("review", "--project", str(noisy.root), "--top", "0", "--json")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        print(res.stdout[-2000:], res.stderr[-3000:], file=sys.stderr)
        return None
    result = last_json(res.stdout)
    ranked = result["rows"]
    hits = [is_flip[(r["split"], r["index"])] for r in ranked]
    k1, k2 = flips, 2 * flips
    found = [r for r in ranked if r["flagged"]]
    review = {
        "recall_1x": round(sum(hits[:k1]) / max(1, flips), 4), "precision_1x": round(sum(hits[:k1]) / max(1, k1), 4),
        "recall_2x": round(sum(hits[:k2]) / max(1, flips), 4), "precision_2x": round(sum(hits[:k2]) / max(1, k2), 4),
        "found": result["found"],
        "found_recall": round(sum(is_flip[(r["split"], r["index"])] for r in found) / max(1, flips), 4),
        "found_precision": round(sum(is_flip[(r["split"], r["index"])] for r in found) / max(1, len(found)), 4),
        "wall_s": round(wall, 1), "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "in_process_s": result["seconds"],
    }
    f1 = corrected_f1(reviewed, test, ranked[:k2], is_flip, truth, roles, clean.task.labels)
    out = {"input": args.input, "template": args.template, "flips_kind": kind, "seed": args.seed,
           "labels": len(result["labels"]), "rows_reviewed": result["rows_reviewed"], "test_rows": len(test),
           "flips_train_val": flips, "flip_share": round(flips / max(1, n_rows), 4), "review": review, "f1": f1}
    if args.run:
        out["run"] = with_run(args, noisy, is_flip, ranked)
    show(out, args)
    return out


def corrected_f1(reviewed, test, top, is_flip, truth, roles, labels) -> dict:
    """Macro-F1 on the test rows' true labels of the baseline fitted on the training and
    validation rows with the noisy labels, after a reviewer corrected the flipped rows among
    ``top``, after accepting ``top``'s suggestions unchecked, and with the true labels."""
    from workbench.engine import scoring
    from workbench.engine.models.ngram_baseline import (classification_baseline, input_text,
                                                        macro_f1_difference_interval)

    rows = [(s, i, r) for s, recs in reviewed.items() for i, r in enumerate(recs)]
    texts = [input_text(r, roles) for _, _, r in rows]
    noisy = [r["label"] for _, _, r in rows]
    true = [truth.get(t, y) for t, y in zip(texts, noisy)]
    at = {(s, i): n for n, (s, i, _) in enumerate(rows)}
    checked, accepted = list(noisy), list(noisy)
    for r in top:
        n = at[(r["split"], r["index"])]
        if is_flip[(r["split"], r["index"])]:
            checked[n] = true[n]
        accepted[n] = r["suggested"]
    test_texts = [input_text(r, roles) for r in test]
    test_true = [truth[t] for t in test_texts]
    out, preds = {}, {}
    for name, ys in (("noisy", noisy), ("corrected", checked), ("accepted", accepted), ("clean", true)):
        preds[name] = classification_baseline(texts, ys, test_texts, test_true, list(labels))["predictions"]
        out[name] = round(scoring.classification_report(test_true, preds[name], list(labels))["macro_f1"], 4)
    lost = out["clean"] - out["noisy"]
    out["recovered"] = round((out["corrected"] - out["noisy"]) / lost, 3) if lost > 0 else None
    # what the noise cost, with the paired bootstrap interval over the test rows: a share of a
    # cost within the noise of a few hundred rows means little
    out["cost_interval"] = macro_f1_difference_interval(test_true, preds["clean"], preds["noisy"], list(labels))
    return out


def with_run(args, noisy: Project, is_flip, ranked) -> dict | None:
    """Train ``args.run`` on the noisy labels, review again with it: recall on the validation flips."""
    res = wb("train", "--project", str(noisy.root), "--base-model", args.run, "--json")
    runs = sorted(p.name for p in noisy.runs_dir.iterdir() if (p / "job.json").is_file())
    if res.returncode != 0 or not runs:
        print(res.stderr[-3000:], file=sys.stderr)
        return None
    t0 = time.perf_counter()
    rv = wb("review", "--project", str(noisy.root), "--run", runs[-1], "--top", "0", "--json")
    wall = time.perf_counter() - t0
    if rv.returncode != 0:
        print(rv.stderr[-3000:], file=sys.stderr)
        return None
    with_ranked = last_json(rv.stdout)["rows"]

    def val_recall(order, k):
        val = [r for r in order if r["split"] == "val"]
        flips = sum(v for (s, _), v in is_flip.items() if s == "val")
        return round(sum(is_flip[("val", r["index"])] for r in val[:k]) / max(1, flips), 4), flips

    flips_val = sum(v for (s, _), v in is_flip.items() if s == "val")
    flips = sum(is_flip.values())
    out = {"model": args.run, "run": runs[-1], "wall_s": round(wall, 1), "val_flips": flips_val}
    for name, order in (("without", ranked), ("with", with_ranked)):
        out[f"{name}_val_recall_1x"] = val_recall(order, flips_val)[0]
        out[f"{name}_val_recall_2x"] = val_recall(order, 2 * flips_val)[0]
        out[f"{name}_recall_2x"] = round(sum(is_flip[(r["split"], r["index"])] for r in order[:2 * flips])
                                         / max(1, flips), 4)
    return out


def show(out: dict, args) -> None:
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return
    r, f = out["review"], out["f1"]
    print(f"{Path(out['input']).name}, {out['flips_kind']} flips (seed {out['seed']}): {out['rows_reviewed']} training "
          f"and validation rows, {out['labels']} labels, {out['flips_train_val']} flipped "
          f"({out['flip_share']:.1%}); {out['test_rows']} test rows")
    print(f"  top 1x ({out['flips_train_val']} rows): recall {r['recall_1x']:.3f} precision {r['precision_1x']:.3f}")
    print(f"  top 2x ({2 * out['flips_train_val']} rows): recall {r['recall_2x']:.3f} precision {r['precision_2x']:.3f}")
    print(f"  flagged by cleanlab: {r['found']} rows, recall {r['found_recall']:.3f} precision {r['found_precision']:.3f}")
    print(f"  macro-F1 on the true test labels: noisy {f['noisy']:.4f}  corrected (top 2x) {f['corrected']:.4f}  "
          f"suggestions accepted (top 2x) {f['accepted']:.4f}  clean {f['clean']:.4f}")
    rec = f"{f['recovered']:.2f}" if f["recovered"] is not None else "- (the noise cost nothing)"
    iv = f.get("cost_interval")
    if iv:
        rec += (f"; the noise cost {f['clean'] - f['noisy']:+.4f} (95 % interval {iv['low']:+.4f} to {iv['high']:+.4f}"
                + (", within the noise of the test rows)" if iv["low"] <= 0 else ")"))
    print(f"  share of the F1 lost to the noise won back by the correction: {rec}")
    print(f"  review time: {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU ({r['in_process_s']:.1f} s in the command)")
    if out.get("run"):
        u = out["run"]
        print(f"  with run {u['run']} ({u['model']}), {u['val_flips']} validation flips: recall 1x "
              f"{u['without_val_recall_1x']:.3f} -> {u['with_val_recall_1x']:.3f}, 2x {u['without_val_recall_2x']:.3f} -> "
              f"{u['with_val_recall_2x']:.3f}; all rows at 2x {u['without_recall_2x']:.3f} -> {u['with_recall_2x']:.3f} "
              f"({u['wall_s']:.0f} s)")
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    raise SystemExit(main())

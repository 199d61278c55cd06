"""The rows whose label looks wrong: a single-label classification project's training and
validation rows ranked by how likely their given label is wrong.

* Out-of-fold probabilities: the classification baseline (character 1-3-gram TF-IDF +
  logistic regression, :mod:`.models.ngram_baseline`) fitted on four fifths of the rows and
  asked about the fifth, five times, so no row is judged by a model that learnt its label.
  Identical texts share a fold: a model that had seen a twin's label would vouch for it.
* With a trained run, its classifier's probabilities join in on the validation rows only
  (:data:`RUN_WEIGHT`): it learnt the training rows' labels, wrong ones included, so on those
  it mostly repeats the given label back.
* Identical texts (after white space, width and case are folded) vote: each twin's label
  counts as much as the model's probabilities (:func:`blend_twins`).
* Confident learning scores the result (cleanlab): ``find_label_issues`` decides which rows
  are flagged (its per-label thresholds count how many errors each label likely holds), and
  the rows are ranked by 1 - the probability given to their label ("self-confidence").
  Measured with bench/review_bench.py on four real sets with 10 % of the labels flipped at
  random, the share of the flips among the first 2x rows: self-confidence 0.685-0.959, the
  normalized margin 0.594-0.959, flagged rows first 0.681-0.959; the margin did better on flips
  to the most confused label (0.440 against 0.376 on news headlines) but lost up to 0.16 on
  random ones. Tried and dropped, against the plain five-fold fit: ten folds (within 0.01, at
  twice the time); averaging in multinomial naive Bayes, a calibrated linear SVM or the labels
  of the 10-30 nearest texts (at best equal, up to 0.09 lower); refitting without the flagged
  rows (0.01-0.04 lower).
* Nearly identical texts (cosine of the same TF-IDF vectors at or above
  :data:`NEAR_DUPLICATE_SIMILARITY`) that carry other labels are named as a reason; they do
  not move the score, since they do not say which of the two is wrong.

Every reason is ``{"code", "fields", "message"}`` (core.errors.coded): the window words the
code in its own language, the command line prints the English message.
"""

from __future__ import annotations

import os
import re
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.errors import WorkbenchError
from workbench.core.project import Project
from workbench.core.task import TaskSpec
from workbench.engine import examples
from workbench.engine.models import ngram_baseline

Progress = Callable[[str, int, int], None]

SPLITS = ("train", "val")  # the rows a model learns from; the test rows judge it and are left alone
FOLDS = 5
SEED = 0
# Cosine of the TF-IDF vectors from which two texts count as nearly identical. Measured on five
# real sets (short medical queries, news headlines, stock-forum posts, clinical-trial criteria,
# financial titles) with 10 % of the labels flipped: pairs at 0.85 and above that carry other
# labels involved a flipped row in 76-100 % of cases, and on the clean labels 0-12 % of such
# pairs differ (short queries one word apart, "心电图要多久" / "心电图要多少钱", sit at 0.80-0.85).
NEAR_DUPLICATE_SIMILARITY = 0.85
NEAR_DUPLICATES_SHOWN = 3  # row ids named in a reason
# A run's probabilities join the n-gram model's on the validation rows alone, at this weight.
# Measured with builtin:small runs trained on 10 % random flips: on the training rows the run
# agreed with 98 % of the given labels, flips included, and mixing it in there cut the recall
# of the flips at 2x from 0.946 to 0.777 (short medical queries) and 0.959 to 0.953 (finance
# titles); on the validation rows weights 0.3 / 0.5 / 0.7 / 1.0 gave 0.914 / 0.903 / 0.903 /
# 0.914 against 0.925 for the n-gram model alone (93 flips) and 0.987 / 0.987 / 0.987 / 0.974
# against 0.987 (77 flips), and at 1x 0.3 was best of the mixes on both. A run of the built-in
# model reads the same character n-grams, so it adds little; a pretrained model brings more.
RUN_WEIGHT = 0.3
METHOD = (f"{FOLDS}-fold out-of-fold probabilities of the character 1-3-gram TF-IDF + logistic regression "
          "baseline; confident learning (cleanlab): find_label_issues flags, self-confidence ranks")


def reason(message: str, code: str, **fields: Any) -> dict[str, Any]:
    """Why a row is listed: a code the window words in its own language (the Review tab's
    table of reasons), its figures, and the English the command line prints. Not a problem,
    so not core.errors.coded, whose codes the window's error texts must know."""
    return {"code": code, "fields": fields, "message": message}


def twin_key(text: str) -> str:
    """What identical texts share: width and case folded, white space removed."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).casefold())


def reviewable_task(project: Project) -> TaskSpec:
    """The project's task, or the reason it cannot be reviewed."""
    if not project.is_prepared:
        raise WorkbenchError(f"Project {project.root} has not been prepared yet, so it has no rows to review. "
                             "Prepare the data first ('workbench data prepare').", code="review_not_prepared",
                             path=str(project.root))
    task = project.task
    if task.task.value != "classification":
        raise WorkbenchError("Only classification projects can be reviewed for wrong labels: this project's rows "
                             "are questions and answers, which have no label to check.",
                             code="review_not_classification", task=task.task.value)
    if task.multi_label:
        raise WorkbenchError("This project gives each row a set of labels, and the review suggests single labels: "
                             "only projects with one label per row can be reviewed. Correct a row's label set with "
                             "'workbench data correct --set ROW_ID=A,B' or in the window's data table.",
                             code="review_multi_label")
    return task


def read_rows(project: Project, task: TaskSpec) -> tuple[list[dict[str, Any]], int]:
    """The training and validation rows whose label is one of the task's, each
    ``{"row_id", "split", "index", "text", "label"}``, and how many others were skipped."""
    known = set(task.labels)
    rows, skipped = [], 0
    for split in SPLITS:
        for index, rec in enumerate(examples.read_jsonl(project.split_path(split))):
            label = rec.get("label")
            if label is None or str(label) not in known:
                skipped += 1
                continue
            rows.append({"row_id": str(rec.get("row_id") or f"{split}-{index}"), "split": split, "index": index,
                         "text": ngram_baseline.input_text(rec, task.input_roles), "label": str(label)})
    return rows, skipped


def check_counts(labels: Sequence[str]) -> list[str]:
    """The labels the rows carry, in order of first appearance, or the reason they cannot be
    cross-validated: each needs a row in every fold."""
    counts = Counter(labels)
    if len(counts) < 2:
        raise WorkbenchError(
            "The training and validation rows carry fewer than two labels, so there is nothing a label could be "
            "confused with. Prepare the data again with at least two labels.", code="review_one_label",
            labels=sorted(counts))
    few = {lab: n for lab, n in counts.items() if n < FOLDS}
    if few:
        shown = ", ".join(f"'{lab}' ({n})" for lab, n in sorted(few.items(), key=lambda kv: kv[1]))
        raise WorkbenchError(
            f"Too few rows for the review's {FOLDS}-fold cross-validation: every label needs at least {FOLDS} "
            f"training and validation rows, and {shown} {'has' if len(few) == 1 else 'have'} fewer. Add rows, "
            "or merge or exclude these labels when you prepare the data ('workbench data prepare "
            "--merge-label' or '--exclude-label'), then review again.",
            code="review_too_few_rows", labels=sorted(few), counts=[few[k] for k in sorted(few)], need=FOLDS)
    return list(counts)


def folds(labels_idx, groups: Sequence[str]):
    """The folds' (train, held-out) index arrays: stratified by label, identical texts together."""
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    if len(set(groups)) < len(groups):
        splitter = StratifiedGroupKFold(n_splits=FOLDS, shuffle=True, random_state=SEED)
        return list(splitter.split(labels_idx, labels_idx, groups))
    return list(StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=SEED).split(labels_idx, labels_idx))


def out_of_fold_probabilities(x, y, n_labels: int, splits, progress: Progress | None = None):
    """Each row's label probabilities from the baseline fitted on the folds it is not in.
    The folds are fitted two at a time: scikit-learn's sparse products release the GIL."""
    import numpy as np
    from concurrent.futures import ThreadPoolExecutor
    from threadpoolctl import threadpool_limits

    from workbench.engine.models.ngram_baseline import classifier, is_skewed

    skewed = is_skewed([int(v) for v in y])  # weighted as the baseline weighs the same labels
    probs = np.zeros((len(y), n_labels))
    report = progress or (lambda s, d, t: None)
    report("folds", 0, len(splits))

    def fit(split):
        train, held = split
        model = classifier(skewed)
        with threadpool_limits(limits=1, user_api="blas"):  # one BLAS thread per fold: two folds share two cores
            model.fit(x[train], y[train])
            p = model.predict_proba(x[held])
        out = np.zeros((len(held), n_labels))
        out[:, model.classes_] = p  # a label no training row of this fold carries gets 0
        return held, out

    workers = max(1, min(len(splits), os.cpu_count() or 1, 2))
    with ThreadPoolExecutor(workers) as pool:
        for done, (held, p) in enumerate(pool.map(fit, splits), 1):
            probs[held] = p
            report("folds", done, len(splits))
    return probs


def blend_twins(probs, y, groups: Sequence[str]):
    """Each row's probabilities averaged with its identical twins' labels, one vote each: a
    text labelled A three times and B once leans to A whatever the model says."""
    import numpy as np

    members: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        members[g].append(i)
    out = probs.copy()
    for rows in members.values():
        if len(rows) < 2:
            continue
        votes = np.zeros(probs.shape[1])
        np.add.at(votes, y[rows], 1.0)
        for i in rows:
            others = votes.copy()
            others[y[i]] -= 1
            out[i] = (probs[i] + others) / len(rows)
    return out


def near_duplicates(x, threshold: float = NEAR_DUPLICATE_SIMILARITY,
                    progress: Progress | None = None) -> list[tuple[int, int, float]]:
    """Pairs ``(i, j, cosine)``, i < j, of rows whose TF-IDF vectors (L2-normalised, so the dot
    product is the cosine) are at least ``threshold`` alike; computed a block of rows at a time
    to bound memory (one character in common makes a pair nonzero)."""
    n = x.shape[0]
    xt = x.T.tocsc()
    block = max(64, 4_000_000 // max(1, n))
    pairs = []
    report = progress or (lambda s, d, t: None)
    for start in range(0, n, block):
        sims = (x[start:start + block] @ xt).tocoo()
        keep = (sims.data >= threshold) & (sims.col > sims.row + start)
        for i, j, v in zip(sims.row[keep] + start, sims.col[keep], sims.data[keep]):
            pairs.append((int(i), int(j), float(min(1.0, v))))
        report("near duplicates", min(n, start + block), n)
    return pairs


def _rounded(v: float) -> float:
    return round(float(v), 4)


def reasons_for(i: int, rows, labels: Sequence[str], model_probs, run_probs, run_id: str | None,
                twins: Sequence[int], near: Sequence[tuple[int, float]]) -> list[dict[str, Any]]:
    """Why row ``i`` looks wrong, strongest evidence first."""
    given = rows[i]["label"]
    g = labels.index(given)
    out = []
    p = model_probs[i]
    best = int(p.argmax())
    if best != g:
        out.append(reason(f"the model gives {p[best]:.2f} to {labels[best]} and {p[g]:.2f} to {given}",
                         "model_prefers", label=labels[best], probability=_rounded(p[best]), given=given,
                         given_probability=_rounded(p[g])))
    elif p[g] < 0.5:
        out.append(reason(f"the model gives only {p[g]:.2f} to {given}", "model_unsure", given=given,
                         given_probability=_rounded(p[g])))
    if run_probs is not None and run_probs.get(i) is not None:
        r = run_probs[i]
        rbest = int(r.argmax())
        if rbest != g:
            out.append(reason(f"run {run_id} gives {r[rbest]:.2f} to {labels[rbest]} and {r[g]:.2f} to {given}",
                             "run_prefers", run=run_id, label=labels[rbest], probability=_rounded(r[rbest]),
                             given=given, given_probability=_rounded(r[g])))
    other = Counter(rows[j]["label"] for j in twins if rows[j]["label"] != given)
    for lab, count in other.most_common():
        out.append(reason(f"{count} identical {'text is' if count == 1 else 'texts are'} labelled {lab}",
                         "duplicates_disagree", count=count, label=lab,
                         row_ids=[rows[j]["row_id"] for j in twins if rows[j]["label"] == lab][:NEAR_DUPLICATES_SHOWN]))
    by_label: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for j, sim in near:
        if rows[j]["label"] != given:
            by_label[rows[j]["label"]].append((j, sim))
    for lab, hits in sorted(by_label.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        hits.sort(key=lambda h: -h[1])
        top = hits[0][1]
        ids = [rows[j]["row_id"] for j, _ in hits[:NEAR_DUPLICATES_SHOWN]]
        count = len(hits)
        out.append(reason(f"{count} nearly identical {'text is' if count == 1 else 'texts are'} labelled {lab} "
                         f"(similarity {top:.2f}): {', '.join(ids)}", "near_duplicates_disagree", count=count,
                         label=lab, similarity=_rounded(top), row_ids=ids))
    return out


def review_rows(rows: list[dict[str, Any]], *, run_probs: dict[int, Sequence[float]] | None = None,
                run_id: str | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Score ``rows`` (:func:`read_rows`), most doubtful first. ``run_probs``: row index ->
    a trained run's probabilities over the labels in the order :func:`check_counts` gives."""
    import numpy as np
    import cleanlab.filter
    import cleanlab.rank

    report = progress or (lambda s, d, t: None)
    labels = check_counts([r["label"] for r in rows])
    index = {lab: k for k, lab in enumerate(labels)}
    y = np.array([index[r["label"]] for r in rows])
    # an empty text (a row with no input fields) is nobody's twin
    groups = [twin_key(r["text"]) or f"\0{i}" for i, r in enumerate(rows)]
    report("features", 0, 1)
    x = ngram_baseline.vectorizer().fit_transform([r["text"] for r in rows]).tocsr()
    report("features", 1, 1)
    model = out_of_fold_probabilities(x, y, len(labels), folds(y, groups), progress)
    probs = model.copy()
    run = None
    if run_probs:
        run = {i: np.asarray(p, dtype=float) for i, p in run_probs.items()}
        for i, p in run.items():
            probs[i] = (1 - RUN_WEIGHT) * probs[i] + RUN_WEIGHT * p
    probs = blend_twins(probs, y, groups)
    report("score", 0, 1)
    flagged = np.zeros(len(rows), dtype=bool)
    flagged[cleanlab.filter.find_label_issues(y, probs, n_jobs=1)] = True
    quality = cleanlab.rank.get_label_quality_scores(y, probs, method="self_confidence")
    report("score", 1, 1)
    pairs = near_duplicates(x, progress=progress)
    near: dict[int, list[tuple[int, float]]] = defaultdict(list)
    for i, j, sim in pairs:
        if groups[i] != groups[j]:  # identical texts are counted as duplicates, not near ones
            near[i].append((j, sim))
            near[j].append((i, sim))
    members: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(groups):
        members[g].append(i)
    out = []
    for i, r in enumerate(rows):
        best = int(probs[i].argmax())
        twins = [j for j in members[groups[i]] if j != i]
        out.append({**r, "suggested": labels[best], "suggested_probability": _rounded(probs[i][best]),
                    "score": _rounded(1.0 - quality[i]), "flagged": bool(flagged[i]),
                    "reasons": reasons_for(i, rows, labels, model, run, run_id, twins, near.get(i, []))})
    # most doubtful first; a tie keeps the flagged row first, then the file's order
    order = sorted(range(len(out)), key=lambda i: (-out[i]["score"], not out[i]["flagged"], i))
    conflicting = sum(1 for m in members.values() if len(m) > 1 and len({y[i] for i in m}) > 1)
    return {"rows": [out[i] for i in order], "found": int(flagged.sum()), "rows_reviewed": len(rows),
            "labels": labels, "folds": FOLDS, "method": METHOD,
            "duplicate_groups_disagreeing": conflicting,
            "near_duplicate_pairs_disagreeing": sum(1 for i, j, _ in pairs
                                                    if groups[i] != groups[j] and y[i] != y[j]),
            "near_duplicate_similarity": NEAR_DUPLICATE_SIMILARITY}


def run_probabilities(project: Project, run_id: str, rows: list[dict[str, Any]], labels: Sequence[str], *,
                      device: str = "cpu", progress: Progress | None = None) -> dict[int, list[float]]:
    """A trained run's probabilities over ``labels`` for the validation rows (index -> row)."""
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.inference.classify import classify_with_probs, task_prompts
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.models import loading

    trained = resolve_trained_run(project, run_id)
    spec = trained.spec
    if trained.task != "classification" or spec.multi_label:
        raise WorkbenchError(f"Run '{trained.run_id}' was not trained to give one label per row, so it cannot "
                             "judge these labels. Review without --run, or name a classification run.",
                             code="review_run_not_classification", run=trained.run_id)
    missing = [lab for lab in labels if lab not in spec.labels]
    if missing:
        raise WorkbenchError(
            f"Run '{trained.run_id}' was trained on another label set: it has no {', '.join(repr(m) for m in missing)}. "
            "Review without --run, or train a run on the project as it is prepared now.",
            code="review_run_labels_differ", run=trained.run_id, labels=missing)
    which = [i for i, r in enumerate(rows) if r["split"] == "val"]
    if not which:
        return {}
    report = progress or (lambda s, d, t: None)
    report("run", 0, len(which))
    loading.set_library_log_level("ERROR")
    model, tokenizer = load_trained(trained, device=device)
    split_records = {}
    records = []
    for i in which:
        r = rows[i]
        if r["split"] not in split_records:
            split_records[r["split"]] = examples.read_jsonl(project.split_path(r["split"]))
        records.append(split_records[r["split"]][r["index"]])
    prompts = task_prompts(model, tokenizer, spec, records)
    probs = classify_with_probs(model, tokenizer, prompts, list(spec.labels), max_length=trained.job.max_length,
                                progress=lambda d, t: report("run", d, t))
    cols = [list(spec.labels).index(lab) for lab in labels]
    out = {}
    for i, p in zip(which, probs):
        kept = [p[c] for c in cols]  # a label of the run the rows no longer carry is left out
        total = sum(kept) or 1.0
        out[i] = [v / total for v in kept]
    return out


def review_project(project_dir: str | os.PathLike, *, run: str | None = None, top: int = 50, device: str = "cpu",
                   progress: Progress | None = None) -> dict[str, Any]:
    """Review a prepared project's training and validation labels: the ``top`` most doubtful
    rows (0: every row) and the figures (see :func:`review_rows`)."""
    started, cpu = time.perf_counter(), time.process_time()
    project = Project.open(project_dir)
    task = reviewable_task(project)
    report = progress or (lambda s, d, t: None)
    report("read", 0, 1)
    rows, skipped = read_rows(project, task)
    report("read", 1, 1)
    labels = check_counts([r["label"] for r in rows])  # refused before a run loads
    run_probs = run_probabilities(project, run, rows, labels, device=device, progress=progress) if run else None
    result = review_rows(rows, run_probs=run_probs, run_id=run, progress=progress)
    shown = result["rows"] if top == 0 else result["rows"][:top]
    return {**result, "rows": shown, "run": run, "run_rows": len(run_probs or {}), "rows_skipped": skipped,
            "splits": {s: sum(1 for r in rows if r["split"] == s) for s in SPLITS},
            "seconds": round(time.perf_counter() - started, 2), "cpu_seconds": round(time.process_time() - cpu, 2)}

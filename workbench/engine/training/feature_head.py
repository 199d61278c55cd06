"""The first stage of a classification head on a pretrained decoder: the head fitted on the
frozen decoder's pooled states.

One pass over the training and validation rows without gradients (batched by length, through
the head model's own ``pooled``, so what is fitted is exactly what the model computes), then a
class-weighted logistic regression per regularisation strength from scikit-learn, the one with
the best validation macro-F1 kept. Its weights become the head's score layer: the result is a
complete model, evaluated, checkpointed and exported like any other, and the LoRA steps that
may follow start from it (their adapters start at zero, so step 0 is this model).

Why this first: on a 2-core processor one frozen pass over 2,000 rows of Gemma 3 270M took
about 6.5 minutes and its mean-pooled middle-layer states gave a better head than 20 minutes
of LoRA (issue figures in docs/models.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from workbench.core.recommend import STAGE_MIN_SECOND_S, comparison_seconds
from workbench.core.runs import EventWriter
from workbench.engine import examples, scoring
from workbench.engine.models import char_classifier

# from strong to weak regularisation, each fit starting from the last one's weights (the pooled
# states have unit root mean square): on KUAKE-QIC's 7,098 training rows 0.1 won, on 2,000 of them
# up to 1.0 (bench/head_layers_bench.py)
C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
BATCH_ROWS = 16
PROGRESS_EVERY_S = 10.0
# training rows read between two looks at the clock where a time budget bounds the pass: on 2
# cores Gemma 3 270M reads 5 to 40 rows a second, so the pass ends at most a few seconds late
CHUNK_ROWS = 64


def pooled_states(head, id_lists: Sequence[Sequence[int]], pad_id: int, *,
                  progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """``[rows, hidden]``: what ``head``'s score layer reads for each row, in the rows' order."""
    import paddle

    collator = examples.DataCollator(pad_id)
    out = np.zeros((len(id_lists), head.config.hidden_size), dtype=np.float32)
    was_training = head.training
    head.eval()
    done = 0
    try:
        with paddle.no_grad():
            for idx in char_classifier.eval_batches(head, [len(x) for x in id_lists], BATCH_ROWS, linear=False):
                batch = collator([{"input_ids": list(id_lists[i])} for i in idx])
                out[idx] = head.pooled(batch["input_ids"], batch["attention_mask"]).numpy()
                done += len(idx)
                if progress:
                    progress(done, len(id_lists))
    finally:
        if was_training:
            head.train()
    return out


def states_until(head, id_lists: Sequence[Sequence[int]], pad_id: int, deadline: float | None, *, seed: int = 0,
                 known: tuple[np.ndarray, np.ndarray] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(states [rows, hidden], read [rows])``: the states of as many rows as are read before
    ``deadline`` (``time.time()``; None: all of them), besides those ``known`` from an earlier pass
    (its states and read mask). The rows go in a seeded random order, CHUNK_ROWS at a time, so
    what a time budget leaves read is a sample of all of them; at least one chunk is read."""
    n = len(id_lists)
    states = np.zeros((n, head.config.hidden_size), dtype=np.float32)
    read = np.zeros(n, dtype=bool)
    if known is not None:
        states[known[1]], read[:] = known[0][known[1]], known[1]
    todo = [i for i in np.random.default_rng(seed).permutation(n) if not read[i]]
    if deadline is None:  # every row: batched by length over all of them, the least padding
        chunks = [todo] if todo else []
    else:
        chunks = [todo[k:k + CHUNK_ROWS] for k in range(0, len(todo), CHUNK_ROWS)]
    base = int(read.sum())
    for k, chunk in enumerate(chunks):
        if k and deadline is not None and time.time() >= deadline:
            break
        chunk = sorted(chunk)
        states[chunk] = pooled_states(head, [id_lists[i] for i in chunk], pad_id,
                                      progress=(lambda d, _n, b=base: progress(b + d, n)) if progress else None)
        read[chunk] = True
        base += len(chunk)
    return states, read


def _targets(rows: Sequence, labels: Sequence[str], multi_label: bool) -> np.ndarray:
    """Class indices, or a ``[rows, labels]`` 0/1 matrix for a multi-label head (the features'
    ``labels`` field as examples.build_classifier_features writes it)."""
    if multi_label:
        return np.asarray([list(r) for r in rows], dtype=np.int64).reshape(len(rows), len(labels))
    return np.asarray([int(r[0]) if isinstance(r, (list, tuple)) else int(r) for r in rows], dtype=np.int64)


def _fit(x: np.ndarray, y: np.ndarray, labels: Sequence[str], multi_label: bool, c: float, seed: int,
         fitted: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(weight [hidden, labels], bias [labels])`` of a class-weighted logistic regression;
    ``fitted`` keeps the estimators, so the next strength starts where this one ended."""
    from sklearn.linear_model import LogisticRegression

    def estimator(key):
        if key not in fitted:
            fitted[key] = LogisticRegression(class_weight="balanced", max_iter=1000, warm_start=True,
                                             random_state=seed)
        fitted[key].C = c
        return fitted[key]

    n = len(labels)
    coef, bias = np.zeros((n, x.shape[1]), np.float32), np.full(n, -30.0, np.float32)  # absent labels: never
    if not multi_label:
        present = np.unique(y)
        if len(present) == 1:  # a time budget's few rows of one label: that label, whatever the text
            bias[present[0]] = 0.0
            return coef.T, bias
        lr = estimator("all").fit(x, y)
        if len(present) == 2:  # scikit-learn keeps one row for two classes: the second's logit against the first
            coef[present[1]], bias[present[1]] = lr.coef_[0], lr.intercept_[0]
            bias[present[0]] = 0.0
        else:
            coef[present], bias[present] = lr.coef_, lr.intercept_
        return coef.T, bias
    for j in range(n):  # one sigmoid per label, as the head computes it
        col = y[:, j]
        if col.min() == col.max():
            bias[j] = 30.0 if col.max() else -30.0
            continue
        lr = estimator(j).fit(x, col)
        coef[j], bias[j] = lr.coef_[0], lr.intercept_[0]
    return coef.T, bias


def _macro_f1(logits: np.ndarray, y: np.ndarray, labels: Sequence[str], multi_label: bool) -> float:
    if multi_label:
        sets_true = [[labels[j] for j in np.flatnonzero(row)] for row in y]
        sets_pred = [[labels[j] for j in np.flatnonzero(row > 0)] for row in logits]
        return float(scoring.multi_label_report(sets_true, sets_pred, labels)["macro_f1"])
    return float(examples.classification_metrics([labels[i] for i in y], [labels[i] for i in logits.argmax(1)],
                                                 labels)["macro_f1"])


CACHE_KEPT = 4  # pooled states of the last runs' passes kept in the project's cache (about 20 MB each)


def _cache_key(head, id_lists: Sequence[Sequence[int]]) -> str:
    """What the pooled states depend on: the decoder's shape and weights (a sample of its first
    and last kept tables, which tells two models apart without reading them whole), the pooling,
    and the very ids read (so the data version, the length limit and the tokenizer)."""
    import hashlib
    import json

    h = hashlib.sha256(json.dumps([head.config.decoder, head.config.pooling], sort_keys=True, default=str).encode())
    params = [p for p in head.model.parameters()]
    for p in (params[0], params[len(params) // 2], params[-1]):
        part = p[:8] if len(p.shape) > 1 else p  # a few rows: a whole embedding table is hundreds of MB
        h.update(np.ascontiguousarray(part.numpy()).tobytes())
    for ids in id_lists:
        h.update(np.asarray(ids, dtype=np.int64).tobytes() + b"|")
    return h.hexdigest()[:20]


def _cached_states(cache_dir, key: str):
    """The cache file's path and ``(train states, val states, train rows read)``, or None."""
    from pathlib import Path

    path = Path(cache_dir) / f"{key}.npz" if cache_dir else None
    if path is None or not path.is_file():
        return path, None
    try:
        with np.load(path) as data:
            read = data["read"] if "read" in data.files else np.ones(len(data["train"]), dtype=bool)
            return path, (data["train"], data["val"], read.astype(bool))
    except (OSError, ValueError, KeyError):  # a damaged file is read again
        return path, None


def _store_states(path, x_train: np.ndarray, x_val: np.ndarray, read: np.ndarray) -> None:
    from workbench.core.fsutil import atomic_write

    def write(tmp) -> None:
        with open(tmp, "wb") as fh:  # a file object: np.savez would add ".npz" to a path's name
            np.savez(fh, train=x_train, val=x_val, read=read)

    atomic_write(path, write)
    for old in sorted(path.parent.glob("*.npz"), key=lambda p: p.stat().st_mtime)[:-CACHE_KEPT]:
        old.unlink(missing_ok=True)


def fit_feature_head(head, train: Sequence[dict], val: Sequence[dict], labels: Sequence[str], *, pad_id: int,
                     multi_label: bool, events: EventWriter, seed: int = 0, cache_dir=None,
                     deadline: float | None = None, read_on: Callable[[float, int], float | None] | None = None) -> dict:
    """Fits ``head``'s score layer on the frozen decoder's states of ``train`` (features as
    examples.build_classifier_features makes them), choosing the regularisation on ``val``
    (on the training rows where there is no validation row). Every validation row is read, then
    the training rows until ``deadline`` (``time.time()``; None: all): a time budget leaves the
    head fitted on a random share of them (the linear part is fitted on all, elsewhere). The
    states are kept in ``cache_dir``, and a later run of the same model over the same rows reads
    them back and goes on with the rows not read yet. ``read_on``: where the deadline left rows
    unread, called with the seconds a row took and the training rows read; a later deadline to
    read on to, or None. Returns
    what it measured."""
    import paddle

    started = time.monotonic()
    total = len(train) + len(val)
    last = [0.0, -1]  # when the last progress line was written, and its count

    def progress(done: int, _n: int, force: bool = False) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S or done == total or (force and done != last[1]):
            last[:] = [now, done]
            events.emit("log", level="info", code="feature_pass", done=done, total=total,
                        seconds=round(now - started, 1), message=(
                f"reading the rows with the frozen model: {done} of {total}"))

    ids_train, ids_val = [f["input_ids"] for f in train], [f["input_ids"] for f in val]
    path, cached = _cached_states(cache_dir, _cache_key(head, ids_train + [[-1]] + ids_val))
    if cached is not None and (len(cached[0]), len(cached[1])) != (len(train), len(val)):
        cached = None
    if cached is not None and cached[2].all():
        x_train, x_val, read = cached
        events.emit("log", level="info", code="feature_cache", rows=total, message=(
            f"read the frozen model's states of {total} rows from the project's cache"))
    else:
        x_val = cached[1] if cached is not None else pooled_states(head, ids_val, pad_id,
                                                                   progress=lambda d, n: progress(d, n))
        if cached is not None:
            known = len(val) + int(cached[2].sum())
            events.emit("log", level="info", code="feature_cache", rows=known, message=(
                f"read the frozen model's states of {known} rows from the project's cache; reading the others"))
        x_train, read = states_until(head, ids_train, pad_id, deadline, seed=seed,
                                     known=(cached[0], cached[2]) if cached is not None else None,
                                     progress=lambda d, n: progress(len(val) + d, n))
        fresh = len(val) * (cached is None) + int(read.sum()) - (int(cached[2].sum()) if cached is not None else 0)
        later = read_on((time.monotonic() - started) / max(fresh, 1), int(read.sum())) if read_on and not read.all() else None
        if later is not None:  # no second stage to leave time for: the first reads on
            x_train, read = states_until(head, ids_train, pad_id, later, seed=seed, known=(x_train, read),
                                         progress=lambda d, n: progress(len(val) + d, n))
        progress(len(val) + int(read.sum()), total, force=True)  # where a time budget stopped it
        if path is not None:
            _store_states(path, x_train, x_val, read)
    if not read.all():
        events.emit("log", level="info", code="feature_pass_partial", read=int(read.sum()), rows=len(train),
                    message=(f"the time budget's first stage read {int(read.sum())} of the {len(train)} training rows: "
                             "the head is fitted on them, the word statistics on all of them"))
        x_train = x_train[read]
        train = [f for f, r in zip(train, read) if r]
    if not val:
        x_val = None
    read_s = time.monotonic() - started
    y_train = _targets([f["labels"] for f in train], labels, multi_label)
    y_val = _targets([f["labels"] for f in val], labels, multi_label) if val else None
    x_pick, y_pick = (x_val, y_val) if val else (x_train, y_train)
    best, fitted = None, {}
    for c in C_GRID:
        weight, bias = _fit(x_train, y_train, labels, multi_label, c, seed, fitted)
        f1 = _macro_f1(x_pick @ weight + bias, y_pick, labels, multi_label)
        if best is None or f1 > best[0] + 1e-9:
            best = (f1, c, weight, bias)
    f1, c, weight, bias = best
    head.score.weight.set_value(paddle.to_tensor(weight.astype(np.float32)))
    head.score.bias.set_value(paddle.to_tensor(bias.astype(np.float32)))
    report = {"rows": len(train) + len(val), "train_rows_read": len(train), "train_rows": len(read),
              "read_seconds": round(read_s, 1), "seconds": round(time.monotonic() - started, 1),
              "c": c, "macro_f1": round(f1, 4), "on": "validation" if val else "training"}
    events.emit("log", level="info", code="feature_head", **report, message=(
        f"fitted the head on the frozen model's states of {report['rows']} rows in {report['seconds']} s "
        f"(reading them took {report['read_seconds']} s); {report['on']} macro-F1 {f1:.4f}"))
    if getattr(head, "has_linear", False):
        pick_ids = [f["input_ids"] for f in (val or train)]
        mix = choose_linear_weight(head, x_pick @ weight + bias, pick_ids, y_pick, labels, multi_label)
        report["linear_part"] = mix
        events.emit("log", level="info", code="part_scores", macro_f1=mix["macro_f1"], network=mix["network_alone"],
                    linear=mix["linear_alone"], share=mix["linear_weight"], message=(
            f"{report['on']} macro-F1 of the mixture {mix['macro_f1']:.4f} (the head alone {mix['network_alone']:.4f}, "
            f"the linear part alone {mix['linear_alone']:.4f}, linear share {mix['linear_weight']:g})"))
    return report


WEIGHT_GRID = tuple(i / 10 for i in range(11))  # the linear part's share; 0 and 1 are each part alone


def _squash(logits: np.ndarray, multi_label: bool) -> np.ndarray:
    if multi_label:
        return 1.0 / (1.0 + np.exp(-logits))
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def choose_linear_weight(head, network_logits: np.ndarray, id_lists: Sequence[Sequence[int]], y: np.ndarray,
                         labels: Sequence[str], multi_label: bool) -> dict:
    """The linear part's share in ``head``'s answer: the one of :data:`WEIGHT_GRID` whose mixture
    scores best on these rows (validation: neither part saw them, so the choice is made on
    held-out answers of both), the smaller share on a tie. Set on the head and its config; the
    grid holds each part alone, so the mixture never scores below either on these rows."""
    deep = _squash(network_logits, multi_label)
    lin = _squash(char_classifier.linear_logits(head, id_lists, head.config.pad_token_id or 0), multi_label)
    scores = []
    for w in WEIGHT_GRID:
        head.linear_weight = w
        p = char_classifier.mix_probabilities(head, deep, lin)
        scores.append(_macro_f1(np.log(np.clip(p, 1e-30, None)) if not multi_label else
                                np.log(np.clip(p, 1e-7, None)) - np.log(np.clip(1 - p, 1e-7, None)), y, labels,
                                multi_label))
    best = int(np.argmax(scores))  # the first of equals: the smaller share
    head.linear_weight = WEIGHT_GRID[best]
    head.config.linear_weight = WEIGHT_GRID[best]
    return {"linear_weight": WEIGHT_GRID[best], "macro_f1": round(scores[best], 4),
            "network_alone": round(scores[0], 4), "linear_alone": round(scores[-1], 4)}


def answer_macro_f1(model, id_lists: Sequence[Sequence[int]], y: np.ndarray, labels: Sequence[str],
                    multi_label: bool, pad_id: int) -> float:
    """Macro-F1 of what ``model`` answers (the mixture, where it has a linear part) on these rows."""
    import paddle

    collator = examples.DataCollator(pad_id)
    logits = np.zeros((len(id_lists), len(labels)), dtype=np.float32)
    was_training = model.training
    model.eval()
    try:
        with paddle.no_grad():
            for idx in char_classifier.eval_batches(model, [len(x) for x in id_lists], BATCH_ROWS):
                batch = collator([{"input_ids": list(id_lists[i])} for i in idx])
                logits[idx] = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits.numpy()
    finally:
        if was_training:
            model.train()
    return _macro_f1(logits, y, labels, multi_label)


class FrozenStart:
    """The fitted head's weights and its validation score, so that LoRA's result is kept only
    where it answers the same validation rows better (the issue of a head that 20 minutes of
    LoRA left below a single frozen pass)."""

    def __init__(self, head, report: dict, val: Sequence[dict], labels: Sequence[str], multi_label: bool):
        self.weight, self.bias = head.score.weight.numpy().copy(), head.score.bias.numpy().copy()
        self.macro_f1 = float((report.get("linear_part") or report)["macro_f1"])
        self.ids = [f["input_ids"] for f in val]
        self.y = _targets([f["labels"] for f in val], labels, multi_label) if val else None
        self.labels, self.multi_label = list(labels), multi_label
        self.read_seconds, self.rows_read = float(report.get("read_seconds") or 0.0), int(report.get("rows") or 0)
        self.linear_part = report.get("linear_part")  # the mixture's scores, where the head has the linear part
        self.skipped = False  # LoRA had no room after the first stage (skip)

    def compare_seconds(self) -> float:
        """What :meth:`keep_better` is expected to take: the validation rows read at the first
        stage's pace, with room for LoRA's adapters, which the first stage did not run (0 where
        the states came from the cache: no pace was measured)."""
        per_row = self.read_seconds / self.rows_read if self.rows_read else 0.0
        return comparison_seconds(per_row, len(self.ids))

    def skip(self, left_s: float, events: EventWriter) -> None:
        """The first stage left too little of the budget for LoRA's steps and the comparison
        after them (core.recommend.second_stage_fits): the run's model is the frozen start."""
        self.skipped = True
        need = STAGE_MIN_SECOND_S + self.compare_seconds()
        events.emit("log", level="info", code="frozen_start_only", left_s=round(left_s, 1), need_s=round(need, 1),
                    frozen_macro_f1=round(self.macro_f1, 4),
                    message=(f"the first stage left {left_s:.0f} s of the time budget, under the {need:.0f} s that "
                             "LoRA's steps and the comparison after them take: the frozen start is the run's model"))

    def keep_better(self, model, head, pad_id: int, events: EventWriter) -> dict | None:
        """After LoRA: its model's validation macro-F1 against the frozen start's; where LoRA does
        not beat it (or was skipped), the head's weights go back and the adapters to zero (the
        frozen start is the run's model). What was compared, or None without validation rows."""
        if self.skipped:
            self._restore(model, head)
            return {"kept": "frozen_start", "lora_skipped": True, "frozen_macro_f1": round(self.macro_f1, 4)}
        if not self.ids:
            return None
        tuned = answer_macro_f1(model, self.ids, self.y, self.labels, self.multi_label, pad_id)
        kept = "lora" if tuned > self.macro_f1 else "frozen_start"
        if kept == "frozen_start":
            self._restore(model, head)
        out = {"kept": kept, "lora_macro_f1": round(tuned, 4), "frozen_macro_f1": round(self.macro_f1, 4),
               "rows": len(self.ids)}
        events.emit("log", level="info", code="frozen_start_compared", **out, message=(
            f"validation macro-F1 on {len(self.ids)} rows: after LoRA {tuned:.4f}, the frozen start "
            f"{self.macro_f1:.4f}; kept {'LoRA' if kept == 'lora' else 'the frozen start'}"))
        return out

    def _restore(self, model, head) -> None:
        import paddle

        head.score.weight.set_value(paddle.to_tensor(self.weight))
        head.score.bias.set_value(paddle.to_tensor(self.bias))
        for name, p in model.named_parameters():
            if "lora_B" in name:  # the adapter's update is A @ B: zero B, no change to the decoder
                p.set_value(paddle.zeros_like(p))

"""Seeded train/validation/test split, stratified by label for classification."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import DataError


def _allocate(sizes: list[int], ratio: float, total: int, cap: list[int]) -> list[int]:
    """Per-group counts that add up to ``total``: floors first, then the largest remainders."""
    exact = [n * ratio for n in sizes]
    counts = [min(int(x), c) for x, c in zip(exact, cap)]
    # ties go to the smaller group, so that small classes reach every split
    order = sorted(range(len(sizes)), key=lambda i: (-(exact[i] - int(exact[i])), sizes[i]))
    short = total - sum(counts)
    while short > 0:
        progressed = False
        for i in order:
            if short and counts[i] < cap[i]:
                counts[i] += 1
                short -= 1
                progressed = True
        if not progressed:
            break
    return counts


def split_frame(
    df: pd.DataFrame,
    ratios: tuple[float, float, float] = (0.8, 0.1, 0.1),
    seed: int = 42,
    stratify: str | None = None,
    groups: pd.Series | None = None,
) -> dict[str, pd.DataFrame]:
    """Split into train/val/test. With ``stratify``, each class is split by the ratios.

    ``groups`` (one value per row, e.g. the document a sentence is from): the rows of a group
    stay in one split; the ratios then hold for the groups, stratified by each group's rarest
    class (the one hardest to place, as for multi-label rows).

    Written here rather than with scikit-learn's train_test_split because that one fails
    on a class with a single member and splits in two only; per-class allocation keeps
    every class in train and keeps the totals at the ratios, which is what small business data needs.
    """
    if abs(sum(ratios) - 1.0) > 1e-6 or min(ratios) < 0 or ratios[0] <= 0:
        raise DataError(f"Split ratios {ratios} must be non-negative, train above zero, and add up to 1.",
                        code="split_ratios_invalid", ratios=[float(r) for r in ratios])
    if groups is not None:
        return _split_groups(df, ratios, seed, stratify, groups)
    if len(df) < 3:
        raise DataError(f"Only {len(df)} rows are left; at least 3 are needed to split into train, validation and test.",
                        code="too_few_rows_to_split", rows=len(df))
    rng = np.random.default_rng(seed)
    groups = [np.arange(len(df))] if stratify is None else [
        idx for _, idx in sorted(df.groupby(stratify, sort=True, dropna=False).indices.items(), key=lambda kv: str(kv[0]))
    ]
    sizes = [len(idx) for idx in groups]
    n = sum(sizes)
    n_val, n_test = int(round(n * ratios[1])), int(round(n * ratios[2]))
    # every group keeps at least one training row
    val = _allocate(sizes, ratios[1], n_val, [max(k - 1, 0) for k in sizes])
    test = _allocate(sizes, ratios[2], n_test, [max(k - 1 - v, 0) for k, v in zip(sizes, val)])
    parts: dict[str, list[np.ndarray]] = {"train": [], "val": [], "test": []}
    for idx, nv, nt in zip(groups, val, test):
        idx = rng.permutation(idx)
        parts["val"].append(idx[:nv])
        parts["test"].append(idx[nv:nv + nt])
        parts["train"].append(idx[nv + nt:])
    out = {}
    for name, chunks in parts.items():
        pos = rng.permutation(np.concatenate(chunks)) if chunks else np.array([], dtype=int)
        out[name] = df.iloc[pos]
    return out


def _split_groups(df: pd.DataFrame, ratios, seed: int, stratify: str | None, groups: pd.Series
                  ) -> dict[str, pd.DataFrame]:
    codes, uniques = pd.factorize(pd.Series(groups).astype(str).to_numpy(), sort=False)
    if len(uniques) < 3:
        raise DataError(f"The rows come from only {len(uniques)} document(s); at least 3 are needed to keep each "
                        "document in one of train, validation and test.", code="too_few_documents",
                        documents=len(uniques))
    if stratify is None:
        table = pd.DataFrame(index=range(len(uniques)))
    else:
        rows = pd.DataFrame({"group": codes, "stratum": df[stratify].astype(str).to_numpy()})
        rows["rows"] = rows["stratum"].map(rows["stratum"].value_counts())
        rarest = rows.sort_values(["rows", "stratum"], kind="stable").drop_duplicates("group").set_index("group")
        table = pd.DataFrame({"stratum": rarest["stratum"].sort_index().to_numpy()})
    parts = split_frame(table, ratios, seed, None if stratify is None else "stratum")
    rng = np.random.default_rng(seed + 1)
    out = {}
    for name, part in parts.items():
        pos = np.flatnonzero(np.isin(codes, part.index.to_numpy()))
        out[name] = df.iloc[rng.permutation(pos)]
    return out

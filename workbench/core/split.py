"""Seeded train/validation/test split, stratified by label for classification."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import DataError


def _counts(n: int, ratios: tuple[float, float, float]) -> tuple[int, int, int]:
    n_val = int(round(n * ratios[1]))
    n_test = int(round(n * ratios[2]))
    if n - n_val - n_test < 1:
        n_val, n_test = min(n_val, max(n - 1, 0)), 0
    return n - n_val - n_test, n_val, n_test


def split_frame(
    df: pd.DataFrame,
    ratios: tuple[float, float, float] = (0.8, 0.1, 0.1),
    seed: int = 42,
    stratify: str | None = None,
) -> dict[str, pd.DataFrame]:
    """Split into train/val/test. With ``stratify``, each class is split by the ratios.

    Written here rather than with scikit-learn's train_test_split because that one fails
    on a class with a single member and splits in two only; per-class allocation keeps
    every class in train and rounds per class, which is what small business data needs.
    """
    if abs(sum(ratios) - 1.0) > 1e-6 or min(ratios) < 0 or ratios[0] <= 0:
        raise DataError(f"Split ratios {ratios} must be non-negative, train above zero, and add up to 1.")
    if len(df) < 3:
        raise DataError(f"Only {len(df)} rows are left; at least 3 are needed to split into train, validation and test.")
    rng = np.random.default_rng(seed)
    groups = [np.arange(len(df))] if stratify is None else [
        idx for _, idx in sorted(df.groupby(stratify, sort=True, dropna=False).indices.items(), key=lambda kv: str(kv[0]))
    ]
    parts: dict[str, list[np.ndarray]] = {"train": [], "val": [], "test": []}
    for idx in groups:
        idx = rng.permutation(idx)
        n_train, n_val, _ = _counts(len(idx), ratios)
        parts["train"].append(idx[:n_train])
        parts["val"].append(idx[n_train:n_train + n_val])
        parts["test"].append(idx[n_train + n_val:])
    out = {}
    for name, chunks in parts.items():
        pos = rng.permutation(np.concatenate(chunks)) if chunks else np.array([], dtype=int)
        out[name] = df.iloc[pos]
    return out

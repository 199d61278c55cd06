"""Small functions that run string work on the Arrow buffers behind pandas' ``str`` columns.

pandas 3 stores text columns as Arrow strings. The pyarrow compute kernels used here
(trim, Unicode normalisation, lower-casing, RE2 regex search/replace, length) run in C++
over the whole column in one call, so a million-row column costs tens to hundreds of
milliseconds instead of seconds in a per-row Python loop. Anything that cannot be said
in those kernels (checksums, per-match counting) runs in Python only on the few cells a
cheap kernel pre-filter selected, and is written back with ``replace_with_mask``.
"""

from __future__ import annotations

import unicodedata

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

try:  # pandas >= 2.3: the NaN-semantics Arrow string dtype that pandas 3 uses for "str"
    TEXT_DTYPE = pd.StringDtype("pyarrow", na_value=np.nan)
except TypeError:  # pragma: no cover - older pandas
    TEXT_DTYPE = pd.StringDtype("pyarrow")

# Horizontal white space (everything Unicode calls a space separator, plus tab/FF/VT).
H_SPACE = "\t\x0b\x0c \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"

_RE2_SPECIAL = set("\\.+*?()|[]{}^$-#&~")


def re2_escape(text: str) -> str:
    """Escape a literal for RE2 (pyarrow's regex engine), leaving other characters as they are."""
    return "".join("\\" + ch if ch in _RE2_SPECIAL else ch for ch in text)


def is_arrow_text(s: pd.Series) -> bool:
    return isinstance(s.dtype, pd.StringDtype) and s.dtype.storage == "pyarrow"


def is_text_column(s: pd.Series) -> bool:
    """A column the cleaning steps treat as text when the user names no columns."""
    return isinstance(s.dtype, pd.StringDtype) or s.dtype == object


def to_arrow(s: pd.Series) -> pa.ChunkedArray:
    """The column as Arrow strings (zero-copy for pandas' Arrow-backed string columns)."""
    if not is_arrow_text(s):
        s = s.astype(TEXT_DTYPE)
    return s.array.__arrow_array__()


def to_series(values: pa.ChunkedArray | pa.Array, like: pd.Series) -> pd.Series:
    """Wrap Arrow strings as a column with ``like``'s index and name."""
    dtype = like.dtype if is_arrow_text(like) else TEXT_DTYPE
    return pd.Series(pd.array(values, dtype=dtype), index=like.index, name=like.name, copy=False)


def to_bool(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Arrow booleans -> numpy bool, nulls counted as False."""
    out = pc.fill_null(values, False).to_numpy(zero_copy_only=False)
    return np.asarray(out, dtype=bool)


def changed(old: pa.ChunkedArray, new: pa.ChunkedArray) -> np.ndarray:
    """Positions whose value differs (a null on one side only counts as a change)."""
    if len(old) == 0:
        return np.zeros(0, dtype=bool)
    differs = to_bool(pc.not_equal(old, new))
    nulls = to_bool(pc.xor(pc.is_null(old), pc.is_null(new)))
    return differs | nulls


def blank(values: pa.ChunkedArray) -> np.ndarray:
    """Null, empty or white-space only (Unicode white space, e.g. U+3000 and NBSP)."""
    if len(values) == 0:
        return np.zeros(0, dtype=bool)
    null = to_bool(pc.is_null(values))
    empty = to_bool(pc.equal(pc.utf8_length(values), 0))
    space = to_bool(pc.utf8_is_space(values))
    return null | empty | space


def contains(values: pa.ChunkedArray, pattern: str, *, literal: bool = False, ignore_case: bool = False) -> np.ndarray:
    if len(values) == 0:
        return np.zeros(0, dtype=bool)
    fn = pc.match_substring if literal else pc.match_substring_regex
    return to_bool(fn(values, pattern, ignore_case=ignore_case))


def regex_replace(values: pa.ChunkedArray, pattern: str, replacement: str) -> pa.ChunkedArray:
    if len(values) == 0:
        return values
    return pc.replace_substring_regex(values, pattern=pattern, replacement=replacement)


def put(values: pa.ChunkedArray, positions: np.ndarray, new_values: list) -> pa.ChunkedArray:
    """A copy of ``values`` with the cells at ``positions`` replaced."""
    if len(positions) == 0:
        return values
    mask = np.zeros(len(values), dtype=bool)
    mask[positions] = True
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    out = pc.replace_with_mask(arr, pa.array(mask), pa.array(new_values, type=arr.type))
    return pa.chunked_array([out])


def take_py(values: pa.ChunkedArray, positions: np.ndarray) -> list:
    if len(positions) == 0:
        return []
    return values.take(pa.array(positions, type=pa.int64())).to_pylist()


# Characters that can be the second half of a canonical composition: every one of them is a
# combining mark (checked over all of Unicode), plus the Hangul vowel and trailing jamo
# that compose algorithmically.
_COMPOSABLE = r"[\p{M}\x{1161}-\x{1175}\x{11A8}-\x{11C2}]"
_DECOMPOSED = {"NFC": "NFD", "NFKC": "NFKD"}


def normalize(values: pa.ChunkedArray, form: str) -> pa.ChunkedArray:
    """Unicode normalisation of a whole column, equal to ``unicodedata.normalize(form, v)``.

    pyarrow's NFD/NFKD kernels are right, but its NFC/NFKC do not compose (they turn "é"
    into "e" + U+0301). NFKC is the composition of NFKD, and composition changes nothing in
    a text without a character that can compose with the one before it. So: decompose the
    whole column in C++, then redo in Python, with unicodedata, only the cells whose
    decomposition holds such a character (accented Latin, Hangul, ...): Chinese text stays
    on the fast path.
    """
    if len(values) == 0:
        return values
    if form not in _DECOMPOSED:
        return pc.utf8_normalize(values, form)
    decomposed = pc.utf8_normalize(values, _DECOMPOSED[form])
    pos = np.flatnonzero(contains(decomposed, _COMPOSABLE))
    if not len(pos):
        return decomposed
    return put(decomposed, pos, [unicodedata.normalize(form, v) for v in take_py(values, pos)])

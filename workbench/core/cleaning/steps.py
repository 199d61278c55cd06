"""The cleaning steps: pure functions ``DataFrame -> (new DataFrame, StepReport)``.

Rules every step keeps:

* The input frame is never modified; the result is a new frame. Only the columns a step
  changed are replaced (pandas copy-on-write shares the others), and rows are removed by
  boolean selection, so the original row index labels survive every step and the GUI can
  show before/after for a row and map it back to the source file.
* Text columns come out as pandas' Arrow-backed string dtype (``str``).
* ``columns`` null or absent means every text (string/object) column of the frame.
* Blank cells may be NA or ``""``; NA stays NA unless a step drops the row.
* Errors the user can fix raise :class:`~workbench.core.errors.DataError` naming the step.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..errors import DataError
from workbench.core.cleaning import _arrow as arrow_ops
from .pii import DEFAULT_TOKENS, KINDS, PiiMasker

MAX_EXAMPLES = 5


# ----- public models -----------------------------------------------------------------


class Example(BaseModel):
    """One affected cell (or dropped row) for the before/after preview."""

    row: int | str  # the row's index label in the original frame
    column: str | None = None
    before: str | None = None
    after: str | None = None  # None: the row was dropped


class StepReport(BaseModel):
    op: str
    title: str
    rows_in: int
    rows_out: int
    cells_changed: int = 0
    examples: list[Example] = Field(default_factory=list)  # at most MAX_EXAMPLES
    details: dict[str, Any] = Field(default_factory=dict)
    skipped: bool = False  # True for a disabled step (then rows_in == rows_out, nothing changed)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    op: str
    params: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True


# ----- parameter schemas -------------------------------------------------------------


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _one_or_many(v: Any) -> Any:
    return [v] if isinstance(v, str) else v


class ColumnsParams(Params):
    columns: list[str] | None = Field(
        default=None, description="a list of column names, or null for every text column"
    )

    _as_list = field_validator("columns", mode="before")(_one_or_many)


class TrimParams(ColumnsParams):
    pass


class RemoveInvisibleParams(ColumnsParams):
    pass


class NormalizeUnicodeParams(ColumnsParams):
    form: Literal["NFKC", "NFC", "NFKD", "NFD"] = Field(
        default="NFKC", description='one of "NFKC", "NFC", "NFKD", "NFD"'
    )
    keep_cjk_punctuation: bool = Field(
        default=True, description="true to keep Chinese full-width punctuation such as ，：；！？（） as it is"
    )


# Full-width punctuation that Chinese text uses as its own; NFKC would turn it into ASCII.
CJK_PUNCTUATION = "，：；！？（）"
# Placeholders from the supplementary private use area, which no normalisation touches.
_CJK_PLACEHOLDERS = "".join(chr(0xF0000 + i) for i in range(len(CJK_PUNCTUATION)))


class DropEmptyParams(Params):
    columns: list[str] = Field(min_length=1, description="a non-empty list of column names that must not be blank")

    _as_list = field_validator("columns", mode="before")(_one_or_many)


class DropDuplicatesParams(ColumnsParams):
    pass


class NearDuplicatesParams(ColumnsParams):
    pass


class LengthFilterParams(Params):
    column: str = Field(description="the name of the column whose length is checked")
    min_chars: int = Field(default=0, ge=0, description="a whole number of characters >= 0")
    max_chars: int | None = Field(default=None, ge=1, description="a whole number of characters >= 1, or null for no limit")
    # rows longer than this are counted (details["long"]) but kept; training cuts them to its maximum length
    long_chars: int | None = Field(default=None, ge=1, description="a whole number of characters >= 1, or null")

    @model_validator(mode="after")
    def _range(self) -> "LengthFilterParams":
        if self.max_chars is not None and self.max_chars < self.min_chars:
            raise ValueError(f"max_chars ({self.max_chars}) is smaller than min_chars ({self.min_chars})")
        return self


class MaskPiiParams(ColumnsParams):
    kinds: list[Literal["phone", "id_card", "bank_card", "email"]] = Field(
        default_factory=lambda: list(KINDS),
        description='a list drawn from "phone", "id_card", "bank_card", "email"',
    )
    replacement: dict[Literal["phone", "id_card", "bank_card", "email"], str] | None = Field(
        default=None,
        description='an optional mapping kind -> token, e.g. {"phone": "[PHONE]"}; defaults: '
        + ", ".join(f"{k} {v}" for k, v in DEFAULT_TOKENS.items()),
    )


class SensitiveTermsParams(ColumnsParams):
    terms: list[str] = Field(default_factory=list, description="a list of words or phrases")
    # flag: the rows are reported with examples, the text is left as it is
    action: Literal["mask", "drop", "flag"] = Field(default="mask", description='"mask", "drop" or "flag"')
    mask_char: str = Field(default="*", min_length=1, max_length=1, description="a single character")
    ignore_case: bool = Field(default=False, description="true or false")

    @field_validator("terms")
    @classmethod
    def _no_empty_terms(cls, v: list[str]) -> list[str]:
        if any(not t for t in v):
            raise ValueError("terms must not contain an empty string")
        return v


class NormalizeLabelsParams(Params):
    column: str = Field(description="the name of the label column")
    labels: list[str] = Field(min_length=1, description="the non-empty list of canonical labels")
    aliases: dict[str, list[str]] = Field(
        default_factory=dict, description="a mapping canonical label -> list of spellings seen in the data"
    )
    drop_unknown: bool = Field(default=False, description="true or false")

    @model_validator(mode="after")
    def _aliases_known(self) -> "NormalizeLabelsParams":
        stray = [k for k in self.aliases if k not in self.labels]
        if stray:
            raise ValueError(f"aliases names {stray}, which are not in labels {self.labels}")
        return self


class ReplaceParams(Params):
    column: str | None = Field(default=None, description="one column name (or use 'columns')")
    columns: list[str] | None = Field(default=None, description="a list of column names, or null for every text column")
    find: str = Field(min_length=1, description="the text (or regular expression) to find")
    replace: str = Field(default="", description="the replacement text")
    regex: bool = Field(default=False, description="true to read 'find' as a Python regular expression")
    ignore_case: bool = Field(default=False, description="true or false")

    _as_list = field_validator("columns", mode="before")(_one_or_many)

    @model_validator(mode="after")
    def _one_target(self) -> "ReplaceParams":
        if self.column is not None and self.columns is not None:
            raise ValueError("give either 'column' or 'columns', not both")
        return self


# ----- registry ----------------------------------------------------------------------


@dataclass(frozen=True)
class StepInfo:
    op: str
    title: str  # short English description, also the StepReport title
    title_zh: str
    params: type[Params]  # the pydantic schema of the step's params
    func: Callable[[pd.DataFrame, Any, str], tuple[pd.DataFrame, "_Result"]]
    drops_rows: bool

    def param_schema(self) -> dict[str, Any]:
        """JSON schema of the parameters (field descriptions say what is expected)."""
        return self.params.model_json_schema()

    def defaults(self) -> dict[str, Any]:
        """Parameter defaults (required parameters are absent)."""
        return {
            name: f.get_default(call_default_factory=True)
            for name, f in self.params.model_fields.items()
            if not f.is_required()
        }


STEPS: dict[str, StepInfo] = {}


def _register(op: str, title: str, title_zh: str, params: type[Params], drops_rows: bool = False):
    def deco(fn):
        STEPS[op] = StepInfo(op, title, title_zh, params, fn, drops_rows)
        return fn

    return deco


# ----- shared machinery --------------------------------------------------------------


@dataclass
class _Result:
    cells_changed: int = 0
    examples: list[Example] | None = None
    details: dict[str, Any] | None = None


class _Where(str):
    """"Cleaning step 3 'replace'": where an error happened, in its message; with the step's
    operation and number for the error's fields."""

    op: str
    index: int | None


def _where(op: str, index: int | None) -> _Where:
    where = _Where(f"Cleaning step {index} '{op}'" if index is not None else f"Cleaning step '{op}'")
    where.op, where.index = op, index
    return where


def _label(label: Any) -> int | str:
    if isinstance(label, (int, np.integer)):
        return int(label)
    return str(label)


def _check_columns(df: pd.DataFrame, cols: list[str], where: str) -> None:
    for c in cols:
        if c not in df.columns:
            avail = ", ".join(repr(str(x)) for x in df.columns) or "(none)"
            raise DataError(
                f"{where}: column {c!r} does not exist. Available columns: {avail}. "
                "Correct the column name in the recipe.",
                code="step_column_missing", step=getattr(where, "index", None), op=getattr(where, "op", ""),
                column=str(c), columns=[str(x) for x in df.columns],
            )


def _columns(df: pd.DataFrame, cols: list[str] | None, where: str) -> list[str]:
    if cols is None:
        return [c for c in df.columns if arrow_ops.is_text_column(df[c])]
    _check_columns(df, cols, where)
    return list(dict.fromkeys(cols))


def _map_columns(
    df: pd.DataFrame, cols: list[str], fn: Callable[[pa.ChunkedArray, str], pa.ChunkedArray]
) -> tuple[pd.DataFrame, _Result]:
    """Apply ``fn`` to each column's Arrow strings; replace only the columns that changed."""
    updates: dict[str, pd.Series] = {}
    total = 0
    found: list[tuple[int, str, Any, Any]] = []
    for c in cols:
        old = arrow_ops.to_arrow(df[c])
        new = fn(old, c)
        diff = arrow_ops.changed(old, new)
        n = int(diff.sum())
        if not n:
            continue
        total += n
        updates[c] = arrow_ops.to_series(new, df[c])
        pos = np.flatnonzero(diff)[:MAX_EXAMPLES]
        found += [(int(p), c, b, a) for p, b, a in zip(pos, arrow_ops.take_py(old, pos), arrow_ops.take_py(new, pos))]
    out = df.copy(deep=False)  # copy-on-write: shares the data of unchanged columns
    for c, s in updates.items():
        out[c] = s
    found.sort(key=lambda t: t[0])
    examples = [Example(row=_label(df.index[p]), column=str(c), before=b, after=a) for p, c, b, a in found[:MAX_EXAMPLES]]
    return out, _Result(total, examples, {})


def _drop_rows(df: pd.DataFrame, drop: np.ndarray, example_column: str | None, details: dict) -> tuple[pd.DataFrame, _Result]:
    n = int(drop.sum())
    details = {"rows_dropped": n, **details}
    if not n:
        return df.copy(deep=False), _Result(0, [], details)
    pos = np.flatnonzero(drop)[:MAX_EXAMPLES]
    if example_column is not None:
        before = arrow_ops.take_py(arrow_ops.to_arrow(df[example_column]), pos)
    else:
        before = [None] * len(pos)
    examples = [
        Example(row=_label(df.index[p]), column=None if example_column is None else str(example_column), before=b, after=None)
        for p, b in zip(pos, before)
    ]
    return df[~drop], _Result(0, examples, details)


# ----- the steps ---------------------------------------------------------------------

_H = arrow_ops.H_SPACE


@_register("trim_whitespace", "Trim whitespace", "去除多余空白", TrimParams)
def _trim_whitespace(df: pd.DataFrame, p: TrimParams, where: str):
    """Strip leading/trailing white space (Unicode, incl. U+3000 and NBSP); inside the text,
    collapse every run of spaces/tabs to one space, turn CR/CRLF into LF and collapse runs
    of line breaks (with the spaces around them) to a single line break."""

    def fn(a: pa.ChunkedArray, _c: str) -> pa.ChunkedArray:
        if len(a) == 0:
            return a
        a = pc.utf8_trim_whitespace(a)
        if arrow_ops.contains(a, "\r", literal=True).any():
            a = arrow_ops.regex_replace(a, "\r\n?", "\n")
        if arrow_ops.contains(a, "\n", literal=True).any():
            a = arrow_ops.regex_replace(a, f"[{_H}]*\n[{_H}\n]*", "\n")
        # a single ASCII space is left alone; runs and other space characters become " "
        return arrow_ops.regex_replace(a, f"[{_H}]{{2,}}|[{_H.replace(' ', '')}]", " ")

    return _map_columns(df, _columns(df, p.columns, where), fn)


# Characters a text holds but never shows: the C0 and C1 control characters (a backspace an old
# system left before a question, NUL, ESC, DEL…) and the format characters of no width (zero-width
# space, non-joiner and joiner, word joiner, soft hyphen, direction marks and embeddings, a
# byte-order mark inside a cell). Kept: tab, line feed, carriage return, vertical tab and form
# feed, which are white space; "Trim whitespace" decides what each column keeps of them, and
# removing a line break here would glue two lines' words together. The bundle's predict.py
# keeps a copy of this set (engine/bundle/bundle_runtime.py), checked against it by the tests.
INVISIBLE = ("\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
             "\u2066-\u206f\ufeff")
_INVISIBLE_RE = re.compile(f"[{INVISIBLE}]")
# the same set for RE2, which finds the cells that hold one
_INVISIBLE_RE2 = "[" + re.sub(r"[^-]", lambda m: f"\\x{{{ord(m.group()):x}}}", INVISIBLE) + "]"


def is_invisible(ch: str) -> bool:
    """Whether ``remove_invisible`` removes the character ``ch``."""
    return bool(_INVISIBLE_RE.fullmatch(ch))


@_register("remove_invisible", "Remove control and zero-width characters", "删除控制字符和零宽字符", RemoveInvisibleParams)
def _remove_invisible(df: pd.DataFrame, p: RemoveInvisibleParams, where: str):
    """Remove the characters of :data:`INVISIBLE` (control characters save tab and line breaks;
    zero-width and other format characters; a byte-order mark inside a cell).
    details["removed"] counts them by code point ("U+0008": 16)."""
    counts: dict[str, int] = {}

    def clean(text: str) -> str:
        for ch in _INVISIBLE_RE.findall(text):
            key = f"U+{ord(ch):04X}"
            counts[key] = counts.get(key, 0) + 1
        return _INVISIBLE_RE.sub("", text)

    def fn(a: pa.ChunkedArray, _c: str) -> pa.ChunkedArray:
        pos = np.flatnonzero(arrow_ops.contains(a, _INVISIBLE_RE2))  # RE2 over the whole column
        if not len(pos):
            return a
        return arrow_ops.put(a, pos, [clean(v) for v in arrow_ops.take_py(a, pos)])

    out, res = _map_columns(df, _columns(df, p.columns, where), fn)
    res.details = {"removed": dict(sorted(counts.items(), key=lambda kv: -kv[1]))}
    return out, res


@_register("normalize_unicode", "Normalise Unicode (full-width to half-width)", "统一字符宽度", NormalizeUnicodeParams)
def _normalize_unicode(df: pd.DataFrame, p: NormalizeUnicodeParams, where: str):
    """Unicode normalisation, NFKC by default: full-width letters and digits become
    half-width (ＡＢＣ１２３ -> ABC123), the ideographic space U+3000 becomes a space. The
    full-width punctuation Chinese writes with (，：；！？（）) stays unless
    keep_cjk_punctuation is false; 、 and 。 always stay."""
    # Vectorised (see _arrow.normalize): decomposition in C++ over the whole column, Python
    # only for the cells that need composing. Mapping unicodedata over the unique values
    # instead saves little here: most texts of a data set are unique.
    if not (p.keep_cjk_punctuation and p.form in ("NFKC", "NFKD")):
        return _map_columns(df, _columns(df, p.columns, where), lambda a, _c: arrow_ops.normalize(a, p.form))

    def keep_punctuation(a, _c):
        for ch, ph in zip(CJK_PUNCTUATION, _CJK_PLACEHOLDERS):
            a = pc.replace_substring(a, ch, ph)
        a = arrow_ops.normalize(a, p.form)
        for ch, ph in zip(CJK_PUNCTUATION, _CJK_PLACEHOLDERS):
            a = pc.replace_substring(a, ph, ch)
        return a

    return _map_columns(df, _columns(df, p.columns, where), keep_punctuation)


@_register("drop_empty", "Drop rows with empty cells", "删除空行", DropEmptyParams, drops_rows=True)
def _drop_empty(df: pd.DataFrame, p: DropEmptyParams, where: str):
    """Drop rows where any of the columns is NA, empty or white space only."""
    cols = _columns(df, p.columns, where)
    drop = np.zeros(len(df), dtype=bool)
    by_column: dict[str, int] = {}
    for c in cols:
        b = arrow_ops.blank(arrow_ops.to_arrow(df[c]))
        by_column[str(c)] = int(b.sum())
        drop |= b
    return _drop_rows(df, drop, cols[0], {"blank_by_column": by_column})


@_register("drop_duplicates", "Drop duplicate rows", "删除重复行", DropDuplicatesParams, drops_rows=True)
def _drop_duplicates(df: pd.DataFrame, p: DropDuplicatesParams, where: str):
    """Drop rows whose values in the columns repeat an earlier row exactly (keep the first)."""
    cols = _columns(df, p.columns, where)
    if not cols or df.empty:
        return _drop_rows(df, np.zeros(len(df), dtype=bool), None, {})
    drop = df.duplicated(subset=cols, keep="first").to_numpy(dtype=bool)
    return _drop_rows(df, drop, cols[0], {})


# white space, punctuation (CJK punctuation included), controls and combining marks
_NEAR_DUP_STRIP = r"[\s\p{P}\p{Z}\p{Cc}\p{Cf}\p{M}]+"


def near_duplicate_key(values: pa.ChunkedArray) -> pa.ChunkedArray:
    """The text as compared by drop_near_duplicates: compatibility-normalised (NFKD, which
    also folds full-width forms), lower-cased, without white space, punctuation or
    combining marks (so accents are ignored: "Café" ~ "cafe")."""
    if len(values) == 0:
        return values
    return arrow_ops.regex_replace(pc.utf8_lower(pc.utf8_normalize(values, "NFKD")), _NEAR_DUP_STRIP, "")


@_register("drop_near_duplicates", "Drop near-duplicate rows", "删除近似重复行", NearDuplicatesParams, drops_rows=True)
def _drop_near_duplicates(df: pd.DataFrame, p: NearDuplicatesParams, where: str):
    """Drop rows equal to an earlier row once the text is compatibility-normalised (full-width
    folded), lower-cased and stripped of all white space, punctuation (CJK punctuation
    included) and accents; keep the first. See :func:`near_duplicate_key`."""
    cols = _columns(df, p.columns, where)
    if not cols or df.empty:
        return _drop_rows(df, np.zeros(len(df), dtype=bool), None, {})
    keys = [near_duplicate_key(arrow_ops.to_arrow(df[c])) for c in cols]
    if len(keys) == 1:
        drop = pd.Series(pd.array(keys[0], dtype=arrow_ops.TEXT_DTYPE)).duplicated(keep="first")
    else:
        frame = pd.DataFrame({i: pd.array(k, dtype=arrow_ops.TEXT_DTYPE) for i, k in enumerate(keys)})
        drop = frame.duplicated(keep="first")
    return _drop_rows(df, drop.to_numpy(dtype=bool), cols[0], {})


@_register("length_filter", "Filter rows by text length", "按长度过滤", LengthFilterParams, drops_rows=True)
def _length_filter(df: pd.DataFrame, p: LengthFilterParams, where: str):
    """Drop rows whose text in ``column`` has fewer than min_chars or more than max_chars
    characters (NA counts as length 0)."""
    _check_columns(df, [p.column], where)
    a = arrow_ops.to_arrow(df[p.column])
    if len(a):
        lengths = pc.fill_null(pc.utf8_length(a), 0).to_numpy(zero_copy_only=False)
    else:
        lengths = np.zeros(0, dtype=np.int64)
    too_short = lengths < p.min_chars
    too_long = lengths > p.max_chars if p.max_chars is not None else np.zeros(len(a), dtype=bool)
    details = {"too_short": int(too_short.sum()), "too_long": int(too_long.sum())}
    if p.long_chars is not None:
        details["long"] = int((lengths > p.long_chars).sum())
        details["long_chars"] = p.long_chars
    return _drop_rows(df, too_short | too_long, p.column, details)


@_register("mask_pii", "Mask personal data", "脱敏个人信息", MaskPiiParams)
def _mask_pii(df: pd.DataFrame, p: MaskPiiParams, where: str):
    """Replace phone numbers, ID numbers (checksum-verified), bank card numbers
    (Luhn-verified) and e-mail addresses by tokens. See :mod:`workbench.core.cleaning.pii`."""
    masker = PiiMasker(p.kinds, p.replacement)

    def fn(a: pa.ChunkedArray, _c: str) -> pa.ChunkedArray:
        if not masker.kinds or len(a) == 0:
            return a
        pos = np.flatnonzero(masker.candidates(a))  # Arrow pre-filter over the whole column
        if not len(pos):
            return a
        # only the candidate cells go through Python (regex + checksum callback)
        new = [masker.mask(v) for v in arrow_ops.take_py(a, pos)]
        return arrow_ops.put(a, pos, new)

    out, res = _map_columns(df, _columns(df, p.columns, where), fn)
    res.details = {"masked": dict(masker.counts)}
    return out, res


def _terms_regex(terms: list[str], ignore_case: bool) -> tuple[re.Pattern, str]:
    ordered = sorted(set(terms), key=lambda t: (-len(t), t))  # longest first
    py = re.compile("|".join(re.escape(t) for t in ordered), re.IGNORECASE if ignore_case else 0)
    re2 = "|".join(arrow_ops.re2_escape(t) for t in ordered)
    return py, re2


@_register("sensitive_terms", "Mask, drop or flag sensitive terms", "处理敏感词", SensitiveTermsParams)
def _sensitive_terms(df: pd.DataFrame, p: SensitiveTermsParams, where: str):
    """Mask each occurrence of a term by as many mask characters as it has, drop the rows
    that contain any term, or flag them (reported with examples, text unchanged).
    details["terms"] counts occurrences per term."""
    cols = _columns(df, p.columns, where)
    counts: dict[str, int] = {t: 0 for t in p.terms}
    if not p.terms:
        if p.action == "drop":
            return _drop_rows(df, np.zeros(len(df), dtype=bool), cols[0] if cols else None, {"terms": counts})
        details = {"terms": counts, "rows_flagged": 0} if p.action == "flag" else {"terms": counts}
        return df.copy(deep=False), _Result(0, [], details)
    py, re2 = _terms_regex(p.terms, p.ignore_case)
    canon = {t.casefold(): t for t in p.terms} if p.ignore_case else None

    def count(m: re.Match) -> str:
        text = m.group(0)
        key = canon.get(text.casefold(), text) if canon is not None else text
        counts[key] = counts.get(key, 0) + 1
        return p.mask_char * len(text)

    def candidates(a: pa.ChunkedArray) -> np.ndarray:
        return arrow_ops.contains(a, re2, ignore_case=p.ignore_case)

    if p.action == "mask":

        def fn(a: pa.ChunkedArray, _c: str) -> pa.ChunkedArray:
            pos = np.flatnonzero(candidates(a))
            if not len(pos):
                return a
            return arrow_ops.put(a, pos, [py.sub(count, v) for v in arrow_ops.take_py(a, pos)])

        out, res = _map_columns(df, cols, fn)
        res.details = {"terms": counts}
        return out, res

    drop = np.zeros(len(df), dtype=bool)
    found: list[tuple[int, str, str]] = []
    for c in cols:
        a = arrow_ops.to_arrow(df[c])
        hit = candidates(a)
        pos = np.flatnonzero(hit)
        values = arrow_ops.take_py(a, pos)
        for v in values:
            py.sub(count, v)
        found += [(int(i), c, v) for i, v in zip(pos[:MAX_EXAMPLES], values[:MAX_EXAMPLES])]
        drop |= hit
    if p.action == "flag":
        found.sort(key=lambda t: t[0])
        examples = [Example(row=_label(df.index[i]), column=str(c), before=v, after=v)
                    for i, c, v in found[:MAX_EXAMPLES]]
        return df.copy(deep=False), _Result(0, examples, {"terms": counts, "rows_flagged": int(drop.sum())})
    return _drop_rows(df, drop, cols[0] if cols else None, {"terms": counts})


def label_key(text: str) -> str:
    """How labels are compared loosely: NFKC, no white space at all, case-folded."""
    return "".join(unicodedata.normalize("NFKC", text).split()).casefold()


class LabelLookup:
    """Which canonical label a spelling stands for: the exact label or alias first, then a
    loose match (see :func:`label_key`) against labels and aliases. The one rule the label
    step, the label table and the GUI share."""

    def __init__(self, labels: list[str], aliases: dict[str, list[str]]):
        self.exact: dict[str, str] = {lab: lab for lab in labels}
        self.alias_of: dict[str, str] = {}
        for canonical, variants in aliases.items():
            for v in variants:
                if v not in self.exact:
                    self.exact[v] = canonical
                    self.alias_of[v] = canonical
        self.loose: dict[str, str | None] = {}
        for spelling, canonical in self.exact.items():
            k = label_key(spelling)
            if self.loose.get(k, canonical) != canonical:
                self.loose[k] = None  # two labels look alike: the loose match is ambiguous, skip it
            else:
                self.loose[k] = canonical

    def __call__(self, value: str | None) -> str | None:
        if value is None:
            return None
        if value in self.exact:
            return self.exact[value]
        return self.loose.get(label_key(value)) if value.strip() else None


@_register("normalize_labels", "Normalise labels", "统一标签", NormalizeLabelsParams)
def _normalize_labels(df: pd.DataFrame, p: NormalizeLabelsParams, where: str):
    """Map label spellings to the canonical labels: exact label or alias first, then a loose
    match (NFKC + white space removed + case-folded) against labels and aliases. Values
    that match nothing are reported in details["unknown"] ({value: rows}); blank labels
    (NA, empty, white space) in details["blank"]. With drop_unknown both are dropped,
    otherwise kept unchanged."""
    _check_columns(df, [p.column], where)
    lookup = LabelLookup(p.labels, p.aliases)

    col = df[p.column]
    a = arrow_ops.to_arrow(col)
    if len(a) == 0:
        return df.copy(deep=False), _Result(0, [], {"unknown": {}, "blank": 0, "mapped": {}, "label_counts": {}})
    # Work on the distinct values only: dictionary-encode the column, map the (few)
    # distinct spellings in Python, then expand back with one vectorised take.
    enc = a.combine_chunks().dictionary_encode()
    uniques: list[str | None] = enc.dictionary.to_pylist()
    null = arrow_ops.to_bool(enc.is_null())
    codes = np.asarray(pc.fill_null(enc.indices, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    freq = np.bincount(codes[~null], minlength=len(uniques))

    target: list[str | None] = []
    unknown_u = np.zeros(len(uniques), dtype=bool)
    blank_u = np.zeros(len(uniques), dtype=bool)
    unknown: dict[str, int] = {}
    mapped: dict[str, str] = {}
    for i, v in enumerate(uniques):
        t = lookup(v)
        if t is None:
            if v.strip():
                unknown_u[i] = True
                unknown[v] = int(freq[i])
            else:
                blank_u[i] = True
            target.append(v)
        else:
            target.append(t)
            if t != v:
                mapped[v] = t
    new_dict = pa.array(target, type=a.type)
    new = pa.chunked_array([new_dict.take(enc.indices)])

    is_unknown = np.zeros(len(a), dtype=bool)
    is_blank = null.copy()
    if len(uniques):
        is_unknown = unknown_u[codes] & ~null
        is_blank |= blank_u[codes] & ~null

    label_counts: dict[str, int] = {}
    for i, t in enumerate(target):
        if t in p.labels:
            label_counts[t] = label_counts.get(t, 0) + int(freq[i])
    details = {
        "unknown": dict(sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))),
        "blank": int(is_blank.sum()),
        "mapped": mapped,
        "label_counts": {lab: label_counts.get(lab, 0) for lab in p.labels},
    }

    out, res = _map_columns(df, [p.column], lambda _a, _c: new)
    res.details = details
    if p.drop_unknown:
        drop = is_unknown | is_blank
        details["rows_dropped"] = int(drop.sum())
        if drop.any():
            kept, dres = _drop_rows(out, drop, p.column, {})
            # the dropped rows are more telling than the relabelled ones when both exist
            res.examples = (dres.examples + res.examples)[:MAX_EXAMPLES]
            out = kept
    return out, res


@_register("replace", "Find and replace", "查找替换", ReplaceParams)
def _replace(df: pd.DataFrame, p: ReplaceParams, where: str):
    """Replace every occurrence of ``find`` by ``replace``. With regex=true ``find`` is a
    Python regular expression and ``replace`` may use \\1 or \\g<name>."""
    cols = _columns(df, [p.column] if p.column is not None else p.columns, where)
    if p.regex or p.ignore_case:
        try:
            pattern = re.compile(p.find if p.regex else re.escape(p.find), re.IGNORECASE if p.ignore_case else 0)
            if p.regex:
                pattern.sub(p.replace, "")  # a bad group reference in 'replace' shows here
        except (re.error, IndexError) as exc:
            raise DataError(f"{where}: parameter 'find' or 'replace' is not a valid regular expression: {exc}.",
                            code="step_regex_invalid", step=getattr(where, "index", None),
                            op=getattr(where, "op", ""), detail=str(exc)) from None
        repl: Any = p.replace if p.regex else (lambda _m: p.replace)

        def fn(a: pa.ChunkedArray, _c: str) -> pa.ChunkedArray:
            if p.regex:  # Python semantics (look-arounds, back-references): every cell
                pos = np.flatnonzero(~arrow_ops.to_bool(pc.is_null(a))) if len(a) else np.zeros(0, dtype=np.int64)
            else:
                pos = np.flatnonzero(arrow_ops.contains(a, p.find, literal=True, ignore_case=True))
            if not len(pos):
                return a
            return arrow_ops.put(a, pos, [pattern.sub(repl, v) for v in arrow_ops.take_py(a, pos)])

    else:

        def fn(a: pa.ChunkedArray, _c: str) -> pa.ChunkedArray:
            return pc.replace_substring(a, pattern=p.find, replacement=p.replace) if len(a) else a

    return _map_columns(df, cols, fn)


# ----- running one step --------------------------------------------------------------


def _param_problems(model: type[Params], exc: ValidationError) -> str:
    """What is wrong with a step's parameters, in at most three sentences."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(x) for x in err["loc"])
        name = str(err["loc"][0]) if err["loc"] else ""
        field = model.model_fields.get(name)
        expected = f" Expected {field.description}." if field is not None and field.description else ""
        if err["type"] == "extra_forbidden":
            known = ", ".join(model.model_fields) or "(none)"
            parts.append(f"unknown parameter '{loc}'. Known parameters: {known}.")
        elif err["type"] == "missing":
            parts.append(f"parameter '{loc}' is required.{expected}")
        elif not loc:
            parts.append(err["msg"].removeprefix("Value error, ") + ".")
        else:
            msg = err["msg"].removeprefix("Value error, ")
            parts.append(f"parameter '{loc}' is invalid: {msg} (got {err.get('input')!r}).{expected}")
    return " ".join(parts)


def step_info(op: str, index: int | None = None) -> StepInfo:
    try:
        return STEPS[op]
    except KeyError:
        raise DataError(
            f"{_where(op, index)}: unknown operation {op!r}. Known operations: {', '.join(STEPS)}.",
            code="step_unknown", step=index, op=str(op),
        ) from None


def parse_params(step: Step, index: int | None = None) -> Params:
    """Validate a step's params against its schema; DataError names the step and the param."""
    info = step_info(step.op, index)
    try:
        return info.params.model_validate(step.params)
    except ValidationError as exc:
        problems = _param_problems(info.params, exc)
        raise DataError(f"{_where(step.op, index)}: {problems}", code="step_settings_invalid", step=index,
                        op=step.op, detail=problems) from None


def run_step(df: pd.DataFrame, step: Step, index: int | None = None) -> tuple[pd.DataFrame, StepReport]:
    info = step_info(step.op, index)
    params = parse_params(step, index)
    if not step.enabled:
        return df.copy(deep=False), StepReport(
            op=step.op, title=info.title, rows_in=len(df), rows_out=len(df), skipped=True
        )
    out, res = info.func(df, params, _where(step.op, index))
    return out, StepReport(
        op=step.op,
        title=info.title,
        rows_in=len(df),
        rows_out=len(out),
        cells_changed=res.cells_changed,
        examples=res.examples or [],
        details=res.details or {},
    )


def apply_step(df: pd.DataFrame, step: Step | dict) -> tuple[pd.DataFrame, StepReport]:
    """Run one step on ``df`` (not modified) and return the new frame and its report.

    A disabled step returns the frame unchanged and a report with ``skipped=True``.
    """
    if isinstance(step, dict):
        step = Step.model_validate(step)
    return run_step(df, step)

"""The label set of a project: from its template, from its data, or the user's own list.

A :class:`LabelChoice` records the user's decisions (where the labels come from, code
names, renames, merges, exclusions, the least rows a label needs); it is small, saved
in project.json and rebuilt from command-line flags. A :class:`LabelTable` applies a
choice to the values found in the label column: each value, its rows, and what it maps
to (a label, an alias of one, or nothing). The CLI and the Data page both edit a choice
through the table's operations, so both decide the same way.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from .cleaning.steps import LabelLookup, label_key
from .errors import DataError

LabelSource = Literal["template", "data", "list"]
SEVERAL_LABELS = ("drop", "first")
NO_LABEL_ROWS = ("keep", "drop")
# with more than this share of rows outside the template's labels, the template's set
# is plainly not the data's: stop and say so rather than drop most of the data
MISMATCH_SHARE = 0.5


class LabelChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: LabelSource = "template"
    labels: list[str] = Field(default_factory=list)  # source "list": the user's labels, in order
    codes: dict[str, str] = Field(default_factory=dict)  # a value as found -> the label it names
    aliases: dict[str, list[str]] = Field(default_factory=dict)  # more spellings of labels, the user's own
    renames: dict[str, str] = Field(default_factory=dict)  # label -> its new name
    merges: dict[str, str] = Field(default_factory=dict)  # label -> the label it is merged into
    excluded: list[str] = Field(default_factory=list)  # labels whose rows are dropped
    min_rows: int | None = Field(default=None, ge=1)  # None: enough rows to reach every split
    several: Literal["drop", "first"] = "drop"  # rows whose label cell lists several labels
    multi_label: bool = False  # a row's label cell is a set of labels (see multilabel.py)
    separator: str | None = None  # multi-label text cells: the separator (None: the default set)
    # multi-label rows whose label cell is empty: kept as rows with none of the labels (a real
    # answer in such data: most sentences of a case name no article), or dropped and counted
    no_label: Literal["keep", "drop"] = "keep"


def template_choice(template) -> LabelChoice:
    """The label choice a new project of ``template`` starts with: its labels, and several
    labels per row (with its separator) when the template says so."""
    return LabelChoice(multi_label=bool(getattr(template, "multi_label", False)),
                       separator=getattr(template, "label_separator", None))


def choice_from_recipe(recipe: Mapping | None, base_labels: Sequence[str],
                       base_aliases: Mapping[str, Sequence[str]] | None = None) -> LabelChoice | None:
    """A project prepared before it owned its labels kept them in its label step only: a set
    typed there that differs from the template's becomes the user's own list."""
    for step in (recipe or {}).get("steps", []):
        params = step.get("params", {})
        if step.get("op") != "normalize_labels" or not params.get("labels"):
            continue
        labels, aliases = list(params["labels"]), {k: list(v) for k, v in (params.get("aliases") or {}).items()}
        base = {k: list(v) for k, v in (base_aliases or {}).items()}
        if labels == list(base_labels) and aliases == base:
            return None
        return LabelChoice(source="list", labels=labels, aliases=aliases)
    return None


def default_min_rows(ratios: Sequence[float]) -> int:
    """Rows a label needs to have one in training and one in each other split in use."""
    return 1 + sum(1 for r in ratios[1:] if r > 0)


def parse_label_list(text: str) -> list[str]:
    """``"L1,L2,..."`` (ASCII or full-width commas) into labels; duplicates are an error."""
    items = [t.strip() for t in text.replace("，", ",").split(",")]
    items = [t for t in items if t]
    if len(items) < 2:
        raise DataError(f"--labels {text!r} names fewer than two labels. Give at least two, separated by commas, "
                        "or use --labels from-data.")
    dup = sorted({t for t in items if items.count(t) > 1})
    if dup:
        raise DataError(f"--labels names {', '.join(dup)} more than once. Name each label once.")
    return items


def parse_code_map(items: Iterable[str]) -> dict[str, str]:
    """``CODE=NAME[,CODE=NAME...]`` items (repeatable) into {code: name}."""
    out: dict[str, str] = {}
    for item in items:
        for pair in item.replace("，", ",").split(","):
            if not pair.strip():
                continue
            code, sep, name = pair.partition("=")
            if not sep or not code.strip() or not name.strip():
                raise DataError(f"--label-map '{pair}' is not of the form CODE=NAME, e.g. 0=负面.")
            out[code.strip()] = name.strip()
    return out


def parse_label_pairs(items: Iterable[str], flag: str) -> dict[str, str]:
    """``LABEL=OTHER`` items, one pair per item (a label may hold commas), into {label: other};
    the first ``=`` separates them. ``--rename-label`` and ``--merge-label``."""
    out: dict[str, str] = {}
    for item in items:
        label, sep, other = item.partition("=")
        if not sep or not label.strip() or not other.strip():
            raise DataError(f"{flag} '{item}' is not of the form LABEL=NAME, e.g. {flag} 肝病科=肝胆科.")
        out[label.strip()] = other.strip()
    return out


def _display(value: str) -> str:
    return unicodedata.normalize("NFKC", value).strip()


@dataclass(frozen=True)
class LabelValue:
    """One distinct value of the label column."""

    value: str
    rows: int
    label: str | None  # the label it maps to, None when it maps to none
    kind: str  # "label" (the label's own spelling), "alias", "unknown"


class LabelTable:
    """A :class:`LabelChoice` applied to the values found in a label column.

    ``base_labels``/``base_aliases`` are the template's. Operations change the choice and
    recompute the table; :attr:`labels`, :attr:`aliases` are what the label step uses.
    """

    def __init__(self, counts: Mapping[str, int], base_labels: Sequence[str],
                 base_aliases: Mapping[str, Sequence[str]] | None = None, choice: LabelChoice | None = None,
                 *, blank: int = 0, several: int = 0, labelled: int | None = None):
        self.counts = {str(k): int(v) for k, v in counts.items() if int(v) > 0}
        self.base_labels = list(base_labels)
        self.base_aliases = {k: list(v) for k, v in (base_aliases or {}).items()}
        self.choice = choice.model_copy(deep=True) if choice is not None else LabelChoice()
        self.blank = blank  # rows with an empty label
        self.several = several  # rows whose cell held several labels (dropped or cut to the first)
        # several labels per row: the rows with at least one (a value counts once per row, so
        # the counts add up to more than the rows); None: one label a row, the counts' sum
        self.labelled = labelled
        self._resolve()

    @classmethod
    def from_column(cls, column: pd.Series, base_labels, base_aliases=None, choice=None, *, several: int = 0):
        values = column.astype("string")
        blank_mask = values.isna() | (values.str.strip() == "")
        counts = values[~blank_mask].value_counts()
        return cls(counts.to_dict(), base_labels, base_aliases, choice, blank=int(blank_mask.sum()), several=several)

    # ----- resolving -----------------------------------------------------------------
    def _found(self, codes: dict[str, str]) -> tuple[list[str], dict[str, list[str]]]:
        """Labels from the data: values alike under label_key are one label, spelled as its most
        frequent spelling; the other spellings (and code values) are its aliases."""
        groups: dict[str, dict[str, int]] = {}
        first_code: dict[str, int] = {}  # integer codes keep their order (0, 1, 2), named or not
        numeric = all(v.strip().lstrip("-").isdigit() for v in self.counts)
        for value, rows in self.counts.items():
            name = codes.get(value.strip(), value)
            key = label_key(name)
            groups.setdefault(key, {}).setdefault(_display(name), 0)
            groups[key][_display(name)] += rows
            if numeric:
                first_code[key] = min(first_code.get(key, int(value)), int(value))
        labels, aliases, order = [], {}, {}
        for key, spellings in groups.items():
            label = max(spellings, key=lambda s: (spellings[s], -len(s), s))
            labels.append(label)
            order[label] = (first_code[key], "") if numeric else (-sum(spellings.values()), label)
            aliases[label] = sorted(s for s in spellings if s != label)
        labels.sort(key=order.__getitem__)  # codes in code order, names by rows (most first)
        return labels, aliases

    def _resolve(self) -> None:
        ch = self.choice
        codes = {k.strip(): v.strip() for k, v in ch.codes.items()}
        if ch.source == "data":
            labels, aliases = self._found(codes)
        elif ch.source == "list":
            labels = list(ch.labels)
            aliases = {k: list(v) for k, v in self.base_aliases.items() if k in labels}
        else:
            labels, aliases = list(self.base_labels), {k: list(v) for k, v in self.base_aliases.items()}
        for label, spellings in ch.aliases.items():
            if label in labels:
                aliases.setdefault(label, []).extend(spellings)
        for code, name in codes.items():
            if name in labels and code != name:
                aliases.setdefault(name, []).append(code)
        for old, new in ch.renames.items():
            if old not in labels or not new or new == old:
                continue
            if new in labels:  # renaming onto an existing label merges the two
                self._merge_into(labels, aliases, old, new)
            else:
                labels[labels.index(old)] = new
                aliases[new] = aliases.pop(old, []) + [old]
        for src, dst in ch.merges.items():
            if src in labels and dst in labels and src != dst:
                self._merge_into(labels, aliases, src, dst)
        label_set = set(labels)
        self.labels = labels
        self.aliases = {k: list(dict.fromkeys(a for a in v if a not in label_set))
                        for k, v in aliases.items() if k in label_set}
        self.aliases = {k: v for k, v in self.aliases.items() if v}
        self.excluded = [lab for lab in dict.fromkeys(ch.excluded) if lab in label_set]
        lookup = LabelLookup(self.labels, self.aliases)
        self.values: list[LabelValue] = []
        self.label_rows: dict[str, int] = {lab: 0 for lab in self.labels}
        for value, rows in sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0])):
            label = lookup(codes.get(value.strip(), value))
            kind = "unknown" if label is None else ("label" if label == value else "alias")
            self.values.append(LabelValue(value, rows, label, kind))
            if label is not None:
                self.label_rows[label] += rows

    @staticmethod
    def _merge_into(labels: list[str], aliases: dict[str, list[str]], src: str, dst: str) -> None:
        labels.remove(src)
        aliases[dst] = aliases.get(dst, []) + [src] + aliases.pop(src, [])

    # ----- figures -------------------------------------------------------------------
    @property
    def rows(self) -> int:
        """Rows with a non-empty label."""
        return sum(self.counts.values())

    @property
    def labelled_rows(self) -> int:
        """Rows with a non-empty label cell (with several labels per row, not their labels)."""
        return self.rows if self.labelled is None else self.labelled

    @property
    def unknown_rows(self) -> int:
        return sum(v.rows for v in self.values if v.kind == "unknown")

    @property
    def unknown_values(self) -> dict[str, int]:
        return {v.value: v.rows for v in self.values if v.kind == "unknown"}

    @property
    def kept(self) -> list[str]:
        """The labels the project trains on: not excluded (rows permitting, see ``min_rows``)."""
        return [lab for lab in self.labels if lab not in self.excluded]

    @property
    def absent(self) -> list[str]:
        """Labels of the set that no row of this data has: the project leaves them out (a
        template's 中性 where the data holds only 正面 and 负面)."""
        return [lab for lab in self.kept if self.label_rows.get(lab, 0) == 0]

    @property
    def mismatch(self) -> bool:
        """True when most rows fall outside the template's labels (the data has its own)."""
        return self.choice.source == "template" and self.rows > 0 and \
            self.unknown_rows > MISMATCH_SHARE * self.rows

    def mismatch_message(self) -> str:
        found = ", ".join(list(self.unknown_values)[:8])
        more = "…" if len(self.unknown_values) > 8 else ""
        return (f"{self.unknown_rows:,} of {self.rows:,} rows have labels outside the template's set "
                f"({', '.join(self.base_labels)}); your data has its own labels ({found}{more}). "
                "Use the labels found in your data (on the command line: --labels from-data), "
                "or list the labels to keep (--labels L1,L2,...).")

    def below(self, n: int) -> list[str]:
        """Kept labels with fewer than ``n`` rows in this table."""
        return [lab for lab in self.kept if self.label_rows.get(lab, 0) < n]

    def step_params(self) -> dict[str, object]:
        """The label step's ``labels`` and ``aliases``. Excluded labels stay in: their rows are
        named first, then removed and counted as excluded, not as unknown."""
        return {"labels": list(self.labels), "aliases": {k: list(v) for k, v in self.aliases.items()}}

    # ----- operations (each changes the choice and recomputes) -------------------------
    def _update(self, **changes) -> "LabelTable":
        self.choice = self.choice.model_copy(update=changes)
        self._resolve()
        return self

    def use_template(self) -> "LabelTable":
        return self._update(source="template", labels=[], renames={}, merges={}, excluded=[])

    def use_found(self) -> "LabelTable":
        """The labels found in the data (code names kept)."""
        return self._update(source="data", labels=[], renames={}, merges={}, excluded=[])

    def use_list(self, labels: Sequence[str]) -> "LabelTable":
        return self._update(source="list", labels=list(labels), renames={}, merges={}, excluded=[])

    def rename(self, label: str, new: str) -> "LabelTable":
        """Rename a label; its old spelling becomes an alias. Onto an existing label: a merge."""
        new = new.strip()
        if label not in self.labels:
            raise DataError(f"'{label}' is not a label of this project.", code="label_unknown", label=str(label))
        if not new:
            raise DataError("A label name cannot be empty.", code="label_name_empty")
        renames = dict(self.choice.renames)
        # renaming a label that was itself renamed: rename the original
        original = next((o for o, n in renames.items() if n == label), label)
        renames[original] = new
        return self._update(renames=renames)

    def merge(self, labels: Iterable[str], into: str) -> "LabelTable":
        """Merge labels into ``into``; their spellings become its aliases."""
        if into not in self.labels:
            raise DataError(f"'{into}' is not a label of this project.", code="label_unknown", label=str(into))
        merges = dict(self.choice.merges)
        for lab in labels:
            if lab not in self.labels:
                raise DataError(f"'{lab}' is not a label of this project.", code="label_unknown", label=str(lab))
            if lab != into:
                merges[lab] = into
        return self._update(merges=merges)

    def exclude(self, label: str, excluded: bool = True) -> "LabelTable":
        """Drop (or keep again) the rows of a label; they are counted as excluded."""
        if label not in self.labels:
            raise DataError(f"'{label}' is not a label of this project.", code="label_unknown", label=str(label))
        current = [lab for lab in self.choice.excluded if lab != label]
        return self._update(excluded=current + [label] if excluded else current)

    def drop_below(self, n: int | None) -> "LabelTable":
        """Labels with fewer than ``n`` rows after cleaning are dropped (None: the default)."""
        return self._update(min_rows=n)

    def keep_several(self, action: str) -> "LabelTable":
        """Rows listing several labels: "drop" them (counted) or keep their "first" label."""
        if action not in SEVERAL_LABELS:
            raise DataError(f"'{action}' is not one of {', '.join(SEVERAL_LABELS)}.")
        return self._update(several=action)

    def set_no_label(self, action: str) -> "LabelTable":
        """Multi-label rows with an empty label cell: "keep" them as rows with no label, or "drop"
        them (counted). The CLI's ``--no-label-rows``."""
        if action not in NO_LABEL_ROWS:
            raise DataError(f"'{action}' is not one of {', '.join(NO_LABEL_ROWS)}.")
        return self._update(no_label=action)

    def set_multi_label(self, on: bool) -> "LabelTable":
        """Each row a set of labels (list cells, or labels separated in one cell), or one label."""
        return self._update(multi_label=bool(on))

    def set_separator(self, sep: str | None) -> "LabelTable":
        """The separator of labels in a multi-label text cell, taken literally; empty or None:
        the default set (spaces, commas, 、 and semicolons). The CLI's ``--label-sep``."""
        return self._update(separator=sep or None)

    def name_codes(self, codes: Mapping[str, str], replace: bool = False) -> "LabelTable":
        """Give code values names (0 -> 负面); with ``replace`` these are all the names."""
        named = {str(k): str(v) for k, v in codes.items()}
        return self._update(codes=named if replace else {**self.choice.codes, **named})

    def to_dict(self) -> dict[str, object]:
        return {"source": self.choice.source, "labels": self.kept, "excluded": list(self.excluded),
                "values": [v.__dict__ for v in self.values], "unknown_rows": self.unknown_rows,
                "blank_rows": self.blank}

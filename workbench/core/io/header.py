"""Does a table's first row name its columns, or is it already data?

The idea is the one spreadsheet programs and Python's ``csv.Sniffer.has_header`` use: compare
each cell of the first row with the rest of its column (a name above numbers, a name whose
length differs from a column of fixed-length codes). Written here because ``has_header``
alone is wrong on the files this program gets: it votes only on numeric and fixed-length
columns, so a header above Chinese free text and labels of varying length
(``text,event_type`` / ``某公司……,破产清算``) gets no vote and is taken for data, and it
re-sniffs the delimiter itself, which fails on some samples. Added here: a value of the first
row that recurs in a column of repeated categories is data; a first cell that reads like a
sentence is data; a known column name is a header; and when nothing tells, the first row
stays the header (what every reader assumes, and a header read as data is easy to see).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

SAMPLE_ROWS = 500  # rows of the body compared with the first row

# names that head columns of the data this program reads, lower-case (see core.mapping too)
_KNOWN_NAMES = {
    "id", "idx", "index", "no", "uid", "qid", "doc_id", "text", "label", "labels", "title", "content",
    "sentence", "question", "answer", "query", "category", "class", "target", "input", "output",
    "instruction", "response", "prompt", "src", "tgt", "context", "summary", "date", "time", "source",
    "编号", "序号", "标题", "内容", "文本", "正文", "标签", "类别", "分类", "问题", "回答", "答案", "科室",
    "案由", "情感", "描述", "日期", "时间", "来源", "罪名", "意图", "类型",
}

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?")
_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE_MARKS = re.compile(r"[，。！？；、,.!?;]\s*\S")


def _is_number(text: str) -> bool:
    return bool(_NUMBER.fullmatch(text.replace(",", "")))


def _reads_like_data(cell: str) -> bool:
    """A sentence rather than a name: several CJK characters, or words with punctuation between."""
    if len(_CJK.findall(cell)) >= 8:
        return True
    return len(cell) >= 30 or bool(_SENTENCE_MARKS.search(cell) and len(cell) >= 12)


def _column_vote(first: str, column: list[str]) -> int:
    """+ for "the first cell is this column's name", - for "it is one of its values"."""
    cell = first.strip()
    values = [v.strip() for v in column if v.strip()]
    if not cell or not values:
        return 0
    vote = 2 if re.sub(r"[\s_\-]+", "_", cell.lower()) in _KNOWN_NAMES else 0
    if all(_is_number(v) for v in values):
        return vote + (-1 if _is_number(cell) else 1)
    if _is_number(cell):
        return vote  # a number above text says little (codes, years)
    distinct = set(values)
    if len(values) >= 4 and len(distinct) <= max(2, len(values) // 3):  # a column of repeated categories
        if cell in distinct:
            return vote - 2
        if len(distinct) <= len(values) // 5:
            return vote + 1
    lengths = {len(v) for v in values}
    if len(lengths) == 1 and len(values) >= 2:  # fixed-length codes: has_header's length test
        return vote + (-1 if len(cell) in lengths else 1)
    if _reads_like_data(cell):
        return vote - 1
    if len(cell) * 5 <= statistics.median(len(v) for v in values):
        return vote + 1  # a short name above long text
    return vote


def sniff_header(rows: Sequence[Sequence[str]]) -> bool:
    """True when the first of ``rows`` (cells as text) names the columns."""
    if not rows:
        return True
    first = [str(c) for c in rows[0]]
    body = [r for r in rows[1:SAMPLE_ROWS + 1] if len(r) == len(first)]
    if not body:
        return True
    names = [c.strip() for c in first if c.strip()]
    votes = -1 if len(names) != len(set(names)) else 0  # names are unique; values need not be
    for i, cell in enumerate(first):
        votes += _column_vote(cell, [str(r[i]) for r in body])
    return votes >= 0


def added_column(name: str, taken: set[str]) -> str:
    """The name of a column a tool adds to the user's table (``prediction``, ``p_<label>``):
    ``name`` itself, or ``name_1``, ``name_2``, ... when the table already has a column of
    that name, so the user's column is kept as it was. ``taken`` (the table's column names,
    as text) gets the name. ``workbench predict`` and the bundle's predict.py both use it."""
    new, n = name, 0
    while new in taken:
        n += 1
        new = f"{name}_{n}"
    taken.add(new)
    return new

"""The model code of this bundle, shared by predict.py (files and the command line) and
serve.py (the HTTP service): reading bundle.json, turning an input into the prompt the
model was trained on, running the Paddle Inference model, and reading input files.

Needs only paddlepaddle (or paddlepaddle-gpu), tokenizers and numpy. It must run without
the training software installed. How a file is cut into rows (the delimiter, whether the
first line names the columns, the sample both are told from, JSON Lines) is the
workbench's own code, copied into the bundle at export from one source each: io_sniff.py
(core/io/textsniff.py) and io_header.py (core/io/header.py). The few other pieces it shares
with the workbench (the text clean-up, the encoding detection) are written out here; tests
check them against the originals.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

try:  # the bundle's copies of the importer's rules (written at export)
    import io_header
    import io_sniff
except ImportError:  # imported from the workbench's own source tree
    from workbench.core.io import header as io_header
    from workbench.core.io import textsniff as io_sniff

# Paddle's import prints a build-tool notice that means nothing to a user of the model.
warnings.filterwarnings("ignore", message="No ccache found")


class InputError(ValueError):
    """A bad input file or request; the message says what was wrong and what to do."""


class _Blank(dict):
    def __missing__(self, key):
        return ""


LABEL_SET_JOINER = " | "  # a multi-label answer in one CSV cell (the workbench writes the same)
added_column = io_header.added_column  # the name of a column predict.py adds beside the file's own

def load_bundle(folder=HERE):
    with open(os.path.join(folder, "bundle.json"), encoding="utf-8") as fh:
        return json.load(fh)


class quiet_native_output:
    """Send what Paddle's C++ code prints on standard output (oneDNN pass notes such as
    ``ReduceMeanCheckIfOneDNNSupport``) to the null device, keeping stdout for results.
    Python's own ``sys.stdout`` is flushed first, so nothing of ours is lost."""

    def __enter__(self):
        try:
            sys.stdout.flush()
            self.saved = os.dup(1)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        except (OSError, ValueError, AttributeError):
            self.saved = None
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            os.dup2(self.saved, 1)
            os.close(self.saved)
        return False


def silence_native_stdout():
    """For a process that writes nothing on standard output itself (serve.py): route file
    descriptor 1 to the null device for good, and Python's stdout to stderr."""
    try:
        sys.stdout.flush()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
        sys.stdout = sys.stderr
    except (OSError, ValueError, AttributeError):
        pass


# ----- text clean-up --------------------------------------------------------------------------------
# The clean-up the training data went through (bundle.json "input_normalization"); a test
# checks it against the workbench's own cleaning steps on the sample data.
_H_SPACE = "\t\x0b\x0c \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_CJK_PUNCTUATION = "，：；！？（）"
# control characters save tab and line breaks, zero-width and other format characters (the
# workbench's core/cleaning/steps.py INVISIBLE)
_INVISIBLE = ("\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
              "\u2066-\u206f\ufeff")


def normalize_text(text, spec):
    import re
    import unicodedata

    if not spec or not text:
        return text
    if spec.get("remove_invisible"):
        text = re.sub(f"[{_INVISIBLE}]", "", text)
    if spec.get("trim"):
        text = text.strip()
        text = re.sub("\r\n?", "\n", text)
        text = re.sub(f"[{_H_SPACE}]*\n[{_H_SPACE}\n]*", "\n", text)
        text = re.sub(f"[{_H_SPACE}]{{2,}}|[{_H_SPACE.replace(' ', '')}]", " ", text)
    form = spec.get("unicode_form")
    if form:
        if spec.get("keep_cjk_punctuation", True) and form in ("NFKC", "NFKD"):
            text = "".join(c if c in _CJK_PUNCTUATION else unicodedata.normalize(form, c) for c in
                           _split_keep(text))
        else:
            text = unicodedata.normalize(form, text)
    return text


def _split_keep(text):
    """The text in runs that end before and after each kept punctuation mark."""
    out, start = [], 0
    for i, c in enumerate(text):
        if c in _CJK_PUNCTUATION:
            if start < i:
                out.append(text[start:i])
            out.append(c)
            start = i + 1
    if start < len(text):
        out.append(text[start:])
    return out


def clean_up_spaces(text):
    """The clean-up some tokenizers apply after decoding (transformers' rule)."""
    for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
                 (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
        text = text.replace(a, b)
    return text


def shrink(ids, budget, tail_tokens):
    """Cut a long prompt from its middle, keeping its start and its last tokens (as in training)."""
    if len(ids) <= budget:
        return ids
    if budget <= 0:
        return []
    tail = min(tail_tokens, budget // 2)
    return ids[: budget - tail] + (ids[-tail:] if tail else [])


# The fewest new tokens an answer is given when the prompt and the answer asked for do not
# fit the training length together: the answer shrinks towards it before the prompt is cut.
ANSWER_FLOOR = 32


def answer_budget(n_prompt, max_length, max_new_tokens, floor=ANSWER_FLOOR):
    """``(prompt tokens kept, new tokens)`` for a prompt of ``n_prompt`` tokens in a model
    trained on ``max_length`` tokens, asked for ``max_new_tokens``.

    The prompt is kept whole while it leaves the answer ``floor`` tokens; the answer gets
    what the training length leaves after it, never less than ``floor`` (nor more than
    asked). Only a prompt longer than ``max_length - floor`` is cut, from its middle as in
    training. The evaluation, predict.py and serve.py all budget with this one rule."""
    max_length, max_new_tokens = int(max_length), int(max_new_tokens)
    floor = max(1, min(int(floor), max_new_tokens, max_length // 2))
    keep = min(int(n_prompt), max(max_length - floor, 1))
    return keep, max(floor, min(max_new_tokens, max_length - keep))


def render_chat(chat, system, turns):
    """A conversation as the prompt text the model was trained on, from bundle.json's ``chat``
    pieces (cut at export from the model's chat template and checked against it): ``turns`` is
    ``[(user text, answer or None), ...]``, the last one unanswered. The system text goes into
    the first turn; a later turn is written without it."""
    parts = []
    for i, (user, answer) in enumerate(turns):
        if i == 0 and system and chat.get("with_system"):
            a, b, c = chat["with_system"]
            parts.append(a + system + b + user + c)
        else:
            a, b = chat["without_system"]
            parts.append(a + user + b)
        if answer is not None:
            parts.append(answer + chat["turn_end"])
    return "".join(parts)


class TrimmedStream:
    """Pieces of text passed on as ``str.strip`` would leave the whole: nothing before the
    first visible character, and white space held back until more text follows it (so the
    streamed answer is the non-streamed one to the character)."""

    def __init__(self, out):
        self.out, self.started, self.pending = out, False, ""

    def __call__(self, piece):
        if not self.started:
            piece = piece.lstrip()
            if not piece:
                return
            self.started = True
        text = self.pending + piece
        body = text.rstrip()
        self.pending = text[len(body):]
        if body:
            self.out(body)


# ----- inputs: fields and the user's own column names ---------------------------------------------------


def _joined(value, names):
    """The parts of a project column that read several columns joined ("title+ask", see the
    workbench's core.mapping), when ``names`` has them all; else None."""
    if not value or value in names:
        return None
    parts = [p.strip() for p in str(value).split("+")]
    return parts if len(parts) > 1 and all(p in names for p in parts) else None


def _field_text(row, column):
    """A row's text for a mapped column: the column's, or the joined columns' non-blank texts, one per line."""
    if column in row:
        return row.get(column) or ""
    return "\n".join(t for t in (row.get(p) or "" for p in _joined(column, list(row)) or []) if t)


def map_columns(bundle, names):
    """``{field: name}`` for the given column (or JSON key) names: a field's own name, or the
    column it had in the project's data ("columns" in bundle.json). A single unnamed-looking
    column is read as the main field. Raises InputError when no field is found."""
    fields, columns = bundle["fields"], bundle.get("columns") or {}
    names = [str(n) for n in names]
    by_field = {}
    for field in fields:
        if field in names:
            by_field[field] = field
        elif columns.get(field) in names or _joined(columns.get(field), names):
            by_field[field] = columns[field]
    if not by_field:
        if len(names) == 1:
            return {fields[0]: names[0]}
        wanted = " / ".join(list(fields) + [c for c in columns.values() if c and c not in fields])
        raise InputError(f"no column named {wanted}; the columns are {', '.join(names) or '(none)'}. "
                         "Rename the column that holds the text, or keep only that column.")
    return by_field


def record_from_input(bundle, value, where="input"):
    """One request input (a text, or an object of fields) as a record of the bundle's fields.
    A request names its fields exactly (a field's name, or its column in the project's data):
    an unknown name or an empty text is refused, where a file's columns are matched loosely."""
    fields, columns = bundle["fields"], bundle.get("columns") or {}
    if isinstance(value, str):
        value = {fields[0]: value}
    elif not isinstance(value, dict):
        raise InputError(f"{where} must be a text or an object of fields, not {type(value).__name__}")
    names = {c: f for f, c in columns.items() if c and f in fields}
    names.update({f: f for f in fields})
    record, named_by = {}, {}
    for key, v in value.items():
        field = names.get(key)
        if field is None:
            known = " / ".join(dict.fromkeys(list(fields) + [c for c in names if c not in fields]))
            raise InputError(f"{where}: unknown field '{key}'; the fields are {known}")
        if field in named_by:
            raise InputError(f"{where}: '{named_by[field]}' and '{key}' name the same field; send one of them")
        named_by[field] = key
        if v is not None and (isinstance(v, bool) or not isinstance(v, (str, int, float))):
            raise InputError(f"{where}: '{key}' must be a text, not {type(v).__name__}")
        record[field] = "" if v is None else str(v)
    if not any(v.strip() for v in record.values()):
        what = "classify" if bundle["task"] == "classification" else "answer"
        raise InputError(f"{where} is an empty text: send the text to {what}")
    return record


# ----- reading files --------------------------------------------------------------------------------------


def detect_encoding(raw, name="the file"):
    """BOM, strict UTF-8, GB18030 (what Chinese Excel saves), UTF-16 without a BOM; the
    order the workbench's importer uses. charset-normalizer, when installed, for the rest."""
    if raw.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in raw:
        even, odd = raw[0::2], raw[1::2]
        if odd.count(0) > 0.3 * len(odd) and even.count(0) == 0:
            return "utf-16-le"
        if even.count(0) > 0.3 * len(even) and odd.count(0) == 0:
            return "utf-16-be"
        raise InputError(f"{name} is not a text file (it contains binary data). Save it as CSV UTF-8.")
    for encoding in ("utf-8", "gb18030"):
        try:
            raw.decode(encoding)
            return encoding
        except UnicodeDecodeError:
            pass
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(raw).best()
        if best is not None and best.encoding:
            return best.encoding
    except ImportError:
        pass
    raise InputError(f"{name}: its encoding was not recognised. Save it again as UTF-8 (in Excel: 'CSV UTF-8').")


def _rows_from_json(values, fmt, docs, name):
    """The importer's shapes (io_sniff.json_values): arrays of objects (nested ones as dotted
    names, ``meta.accusation``), arrays of rows without names (col1 … colN), records wrapped
    in lists of one, an object holding one such array (``{"data": [...]}``), lines that are
    documents of records (a ``doc`` column numbers their lines)."""
    if fmt == "json" and isinstance(values, dict):
        lists = [v for v in values.values() if isinstance(v, list) and v
                 and (all(isinstance(x, dict) for x in v) or all(isinstance(x, list) for x in v))]
        values = lists[0] if len(lists) == 1 else [values]
    if not isinstance(values, list):
        raise InputError(f"{name}: JSON must be a list of records.")
    values, _ = io_sniff.unwrap(values)
    if values and all(isinstance(v, list) for v in values):
        header = [f"col{i}" for i in range(1, max(len(v) for v in values) + 1)]
        return header, [{h: io_sniff.json_cell(v[i]) if i < len(v) else "" for i, h in enumerate(header)} for v in values]
    records = []
    for i, item in enumerate(values):
        if not isinstance(item, dict):
            where = f"line {i + 1}" if fmt == "jsonl" else f"item {i + 1} of the list"
            raise InputError(f"'{name}': {where} is not an object with named fields, like the other records. "
                             "Make every record the same kind.")
        records.append(io_sniff.flatten(item))
    header = list(dict.fromkeys(k for r in records for k in r))
    rows = [{h: io_sniff.json_cell(r.get(h)) for h in header} for r in records]
    if docs is not None:
        doc = "doc"
        while doc in header:
            doc = "_" + doc
        header = [doc] + header
        rows = [{doc: str(d), **r} for d, r in zip(docs, rows)]
    return header, rows


EXCEL_SUFFIXES = (".xlsx", ".xlsm")


def read_table(path, sheet=None):
    """``(header, rows)``: rows as ``{column: text}`` from CSV/TSV/TXT, JSON/JSONL or Excel
    (with openpyxl installed; ``sheet``: by name, else the first), cut into rows by the
    workbench importer's rules (io_sniff, io_header): a one-column file keeps its commas, a
    file whose first line is already data keeps that line (its columns are col1 … colN), and
    a file without data rows is refused. Raises InputError with a message for the user."""
    name = os.path.basename(path)
    suffix = os.path.splitext(path)[1].lower()
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise InputError(f"{path} could not be read ({exc.strerror or exc}).") from None
    if not raw:
        raise InputError(f"'{name}' is empty (0 bytes). Choose a file that contains data.")
    if suffix in EXCEL_SUFFIXES or raw.startswith(b"PK\x03\x04"):  # a workbook, whatever its suffix
        return _read_excel(path, name, sheet)
    encoding = detect_encoding(raw, name)
    text = raw.decode(encoding)
    try:
        if io_sniff.reads_as_json(suffix, text):
            return _read_json(text, suffix, name)
        return _read_delimited(raw, text, encoding, suffix, name)
    except io_sniff.TextFileError as exc:
        raise InputError(str(exc)) from None


def _read_json(text, suffix, name):
    values, fmt, docs, _ = io_sniff.json_values(text.lstrip(io_sniff.BOM), suffix, name)
    header, rows = _rows_from_json(values, fmt, docs, name)
    if not rows:
        raise InputError(f"'{name}' has no data rows: the JSON holds an empty list. Add records and try again.")
    return header, rows


def _read_delimited(raw, text, encoding, suffix, name):
    if not text.strip(io_sniff.BOM + " \t\r\n"):
        raise InputError(f"'{name}' is empty (it holds only blank lines). Choose a file that contains data.")
    complete = len(raw) <= io_sniff.SAMPLE_BYTES
    sample = codecs.getincrementaldecoder(encoding)("replace").decode(raw[:io_sniff.SAMPLE_BYTES], False)
    preferred = io_sniff.preferred_delimiter(suffix)
    delimiter = io_sniff.sniff_delimiter(sample, complete, preferred)
    one_value_per_line = io_sniff.one_value_per_line(suffix, delimiter)  # quotes and commas are part of the text
    delimiter = delimiter or preferred
    has_header = io_header.sniff_header(io_sniff.sample_rows(sample, complete, delimiter, one_value_per_line,
                                                             io_header.SAMPLE_ROWS + 1))
    body = text.lstrip(io_sniff.BOM)
    if one_value_per_line:
        table = [([line], n) for n, line in enumerate(body.splitlines(), 1) if line.strip()]
    else:
        reader = csv.reader(io.StringIO(body, newline=""), delimiter=delimiter)
        try:
            table = [(row, reader.line_num) for row in reader if any(c.strip() for c in row)]
        except csv.Error as exc:
            raise InputError(f"'{name}' could not be read as a table ({exc}).") from None
    if has_header:
        header, table = [h.strip() for h in table[0][0]], table[1:]
    else:
        header = [f"col{i}" for i in range(1, max(len(r) for r, _ in table) + 1)]
    if not table:
        raise InputError(f"'{name}' has no data rows: only a header (column names) was found. "
                         "Add at least one row of data below the header.")
    rows = []
    for row, line in table:
        if len(row) > len(header) and any(c.strip() for c in row[len(header):]):
            raise InputError(
                f"'{name}' is not a regular table: line {line} has {len(row)} fields but the header has "
                f"{len(header)} (fields are separated by {io_sniff.DELIMITER_NAMES[delimiter]}s). A value probably "
                "contains the delimiter without quotes. Put that value in double quotes, or fix the line.")
        rows.append(dict(zip(header, row + [""] * (len(header) - len(row)))))
    return header, rows


def _read_excel(path, name, sheet=None):
    try:
        import openpyxl
    except ImportError:
        raise InputError(f"{name}: reading Excel files needs openpyxl (pip install openpyxl), or save the "
                         "sheet as CSV UTF-8.") from None
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:
        raise InputError(f"{name} could not be opened as an Excel workbook ({type(exc).__name__}).") from None
    if sheet is not None and sheet not in book.sheetnames:
        listed = ", ".join(f"'{s}'" for s in book.sheetnames)
        raise InputError(f"'{name}' has no sheet named '{sheet}'. Its sheets are: {listed}. Choose one of them.")
    chosen = book[sheet] if sheet is not None else book.worksheets[0]
    rows = [[io_sniff.excel_cell(c) for c in row] for row in chosen.iter_rows(values_only=True)]
    rows = [r for r in rows if any(str(c).strip() for c in r)]
    if not rows:
        raise InputError(f"'{name}' has no data rows. Choose the sheet that holds the data.")
    if io_header.sniff_header(rows[: io_header.SAMPLE_ROWS + 1]):
        header, rows = [str(h).strip() for h in rows[0]], rows[1:]
    else:
        header = [f"col{i}" for i in range(1, len(rows[0]) + 1)]
    if not rows:
        raise InputError(f"'{name}' has no data rows: only a header (column names) was found. "
                         "Add at least one row of data below the header.")
    return header, [dict(zip(header, r)) for r in rows]


def read_records(path, bundle, sheet=None):
    """``(rows, records)``: the file's rows as read, and each row as a record of the bundle's fields."""
    header, rows = read_table(path, sheet)
    try:
        by_field = map_columns(bundle, header)
    except InputError as exc:
        raise InputError(f"{os.path.basename(path)}: {exc}") from None
    return rows, [{f: _field_text(rows_i, col) for f, col in by_field.items()} for rows_i in rows]


# ----- choosing the next token (the workbench's own generation calls these too) ------------------------------

# A pretrained model answering greedily falls into loops ("根据规定，根据规定，..."). Two guards
# stop them: a CTRL-style repetition penalty on the tokens already generated (a positive
# logit is divided by it, a negative one multiplied) and a ban on any token that would
# repeat an n-gram of the answer. Bundles exported before these settings existed have no
# "generation" entry and generate as they did, unguarded.
GUARD_OFF = {"repetition_penalty": 1.0, "no_repeat_ngram": 0}


class AnswerText:
    """The answer's text as tokens come, for streaming: each new piece once it decodes to
    whole characters, ended at the first of ``stop_texts``. Without a chat template the
    prompt marks turns with plain text (``<user>``, ``<assistant>``), and a model that goes
    on past its answer writes the next turn's marker before any end token; the answer ends
    there, and a tail that may be the start of a marker is held back until it is not."""

    def __init__(self, decode, stop_texts=()):
        self.decode, self.stop_texts = decode, tuple(s for s in stop_texts if s)
        self.ids, self.shown, self.stopped = [], "", False

    def add(self, token):
        """The new text ``token`` makes visible ("" if none yet); ``stopped`` once a stop text is written."""
        self.ids.append(token)
        text = self.decode(self.ids)
        if text.endswith("\ufffd"):
            return ""  # an incomplete character: wait for its next byte
        text, self.stopped = self._cut(text)
        if not self.stopped:
            text = self._hold_back(text)
        return self._show(text)

    def finish(self):
        """What is left to show after the last token."""
        if not self.ids:
            return ""
        text, _ = self._cut(self.decode(self.ids))
        return self._show(text)

    @property
    def text(self):
        return self.shown

    def cut(self, ids):
        """The answer ``ids`` make as a whole, ended at the first stop text, and whether one was there."""
        return self._cut(self.decode(list(ids))) if ids else ("", False)

    def _cut(self, text):
        cuts = [text.find(s) for s in self.stop_texts if s in text]
        return (text[: min(cuts)], True) if cuts else (text, False)

    def _hold_back(self, text):
        for k in range(min(len(text), max((len(s) for s in self.stop_texts), default=1) - 1), 0, -1):
            if any(s.startswith(text[-k:]) for s in self.stop_texts):
                return text[:-k]
        return text

    def _show(self, text):
        if len(text) > len(self.shown) and text.startswith(self.shown):
            piece, self.shown = text[len(self.shown):], text
            return piece
        if text != self.shown and not text.startswith(self.shown):  # a decoder that rewrote earlier text
            common = 0
            while common < min(len(text), len(self.shown)) and text[common] == self.shown[common]:
                common += 1
            piece, self.shown = text[common:], text
            return piece
        return ""


def guard_logits(logits, generated, repetition_penalty=1.0, no_repeat_ngram=0):
    """A float64 copy of 1-D ``logits`` with the repetition guards applied for ``generated``."""
    x = np.array(logits, dtype="float64")
    if generated and repetition_penalty != 1.0:
        seen = np.unique(np.asarray(generated, dtype="int64"))
        v = x[seen]
        x[seen] = np.where(v > 0, v / repetition_penalty, v * repetition_penalty)
    n = int(no_repeat_ngram or 0)
    if n > 0 and len(generated) >= n:
        tail = list(generated[len(generated) - n + 1:])
        banned = [generated[i + n - 1] for i in range(len(generated) - n + 1) if list(generated[i:i + n - 1]) == tail]
        x[banned] = -np.inf
    return x


def pick_next(logits, generated, rng, mode="greedy", temperature=0.7, top_p=0.9, repetition_penalty=1.0,
              no_repeat_ngram=0):
    """The next token id: the most likely one ("greedy"), or one drawn from the
    temperature-scaled distribution cut to the smallest set of tokens whose probability
    reaches ``top_p`` ("sample"), after the repetition guards."""
    x = guard_logits(logits, generated, repetition_penalty, no_repeat_ngram)
    if mode == "greedy":
        return int(np.argmax(x))
    x = x / max(float(temperature), 1e-5)
    p = np.exp(x - x.max())
    p /= p.sum()
    order = np.argsort(-p)
    keep = order[: int(np.searchsorted(np.cumsum(p[order]), top_p) + 1)]
    return int(keep[rng.choice(len(keep), p=p[keep] / p[keep].sum())])


# ----- the model -------------------------------------------------------------------------------------------


class Predictor:
    def __init__(self, folder=HERE, device="auto", variant="static", tensorrt=True, threads=None,
                 default_threads=None):
        from tokenizers import Tokenizer

        self.folder = folder
        self.bundle = load_bundle(folder)
        b = self.bundle
        self.task = b["task"]
        self.labels = b.get("labels") or []
        self.multi_label = bool(b.get("multi_label"))
        self.threshold = float(b.get("threshold") or 0.5)
        self.no_label_rows = bool(b.get("no_label_rows"))
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, b["tokenizer"]))
        model = b["models"].get(variant)
        if not model and variant == "static":  # an instruction bundle's static model is the cached step
            model = b["models"].get("generate")
        if not model:
            raise InputError(f"this bundle has no '{variant}' model; available: {', '.join(b['models'])}")
        # instruction bundles: the generation model with the key/value cache, where there is one
        # for this variant (each new token then costs one position, not the whole sequence)
        self.cache = (b.get("generate") or {}).get("cache") if variant == "static" else None
        onednn = b.get("onednn", True)
        if self.cache:
            model, onednn, tensorrt = b["models"]["generate"], b["generate"].get("onednn", False), False
            # one thread where the export timed it faster: a step is one position, and a small
            # model's step is per-operator overhead that more threads only add to
            threads = threads or b["generate"].get("threads")
        threads = threads or default_threads  # the caller's choice where neither it nor the export chose
        self.device = self._make_predictor(os.path.join(folder, model), device, tensorrt, threads, onednn)
        self.input_names = self.predictor.get_input_names()

    def clone(self):
        """A second predictor over the same weights, for another thread: a Paddle Inference
        predictor must not run in two threads at once."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        with quiet_native_output():
            other.predictor = self.predictor.clone()
        return other

    # ----- Paddle Inference -------------------------------------------------------------
    def _make_predictor(self, prefix, device, tensorrt, threads, onednn):
        import paddle
        from paddle import inference

        config = inference.Config(prefix + ".json", prefix + ".pdiparams")
        use_gpu = False
        if device in ("auto", "gpu"):
            try:
                use_gpu = paddle.device.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
            except Exception:
                use_gpu = False
            if device == "gpu" and not use_gpu:
                raise InputError("--device gpu: Paddle finds no CUDA GPU here (install paddlepaddle-gpu).")
        used, self.threads = "cpu", None  # CPU threads (None on a GPU)
        if use_gpu:
            config.enable_use_gpu(512, 0)
            used = "gpu"
            if tensorrt and self._tensorrt_available(inference):
                try:
                    self._enable_tensorrt(config, inference)
                    used = "gpu+tensorrt"
                except Exception as exc:  # an older TensorRT or build: plain CUDA is still right
                    print(f"TensorRT not used: {exc}", file=sys.stderr)
        else:
            config.disable_gpu()
            if onednn:
                config.enable_onednn()
                used = "cpu+onednn"
            else:  # Paddle may switch it on by itself
                config.disable_onednn()
            self.threads = int(threads or os.cpu_count() or 1)
            config.set_cpu_math_library_num_threads(self.threads)
        config.disable_glog_info()
        with quiet_native_output():
            self.predictor = inference.create_predictor(config)
        return used

    @staticmethod
    def _tensorrt_available(inference):
        try:
            return any(inference.get_trt_compile_version()) and any(inference.get_trt_runtime_version())
        except Exception:
            return False

    def _enable_tensorrt(self, config, inference):
        b = self.bundle
        longest = int(b["max_length"]) + int(b.get("label_length", 0))
        config.enable_tensorrt_engine(workspace_size=1 << 30, max_batch_size=32, min_subgraph_size=3,
                                      precision_mode=inference.PrecisionType.Float32, use_static=False,
                                      use_calib_mode=False)
        names = b["inputs"]
        config.set_trt_dynamic_shape_info({n: [1, 1] for n in names}, {n: [32, longest] for n in names},
                                          {n: [1, min(128, longest)] for n in names})

    def run(self, *arrays):
        for name, array in zip(self.input_names, arrays):
            handle = self.predictor.get_input_handle(name)
            handle.reshape(list(array.shape))
            handle.copy_from_cpu(np.ascontiguousarray(array))
        with quiet_native_output():
            self.predictor.run()
        return self.predictor.get_output_handle(self.predictor.get_output_names()[0]).copy_to_cpu()

    def run_all(self, *arrays):
        """Every output of the model (the cached generation model returns logits, keys, values)."""
        first = self.run(*arrays)
        names = self.predictor.get_output_names()
        return [first] + [self.predictor.get_output_handle(n).copy_to_cpu() for n in names[1:]]

    # ----- prompts ------------------------------------------------------------------------
    def user_text(self, record):
        if isinstance(record, str):
            record = {self.bundle["fields"][0]: record}
        norm = self.bundle.get("input_normalization") or {}
        values = _Blank({k: normalize_text("" if v is None else str(v), norm.get(k)) for k, v in record.items()})
        return self.bundle["user_format"].format_map(values).strip()

    def prompt_ids(self, record, budget):
        b = self.bundle
        prompt = b["prompt_prefix"] + self.user_text(record) + b["prompt_suffix"]
        ids = self.tokenizer.encode(prompt, add_special_tokens=False).ids
        bos, bos_id = b.get("bos_token"), b.get("bos_id")
        if bos and bos_id is not None and not prompt.startswith(bos) and (not ids or ids[0] != bos_id):
            ids = [bos_id] + ids
        return shrink(ids, budget, int(b.get("prompt_tail_tokens", 32)))

    # ----- classification ---------------------------------------------------------------------
    def classify(self, records, batch_size=8):
        """[(label, {label: probability})] for each record; for a multi-label model
        [([labels], {label: probability})]: the labels at or above the bundle's threshold
        (the most probable one when none is, unless the bundle's data had rows with no label),
        each probability the label's own sigmoid."""
        b = self.bundle
        budget = max(1, int(b["max_length"]) - int(b["label_length"]))
        out = []
        for start in range(0, len(records), batch_size):
            chunk = [self.prompt_ids(r, budget) for r in records[start:start + batch_size]]
            longest = max(len(x) for x in chunk)
            ids = np.full((len(chunk), longest), int(b["pad_id"]), dtype="int64")
            mask = np.zeros((len(chunk), longest), dtype="int64")
            for i, x in enumerate(chunk):
                ids[i, :len(x)] = x
                mask[i, :len(x)] = 1
            probs = self.run(ids, mask)
            for row in probs:
                k = int(np.argmax(row))
                named = {lab: float(p) for lab, p in zip(self.labels, row)}
                if self.multi_label:
                    chosen = [lab for lab, p in named.items() if p >= self.threshold]
                    if not chosen and not self.no_label_rows:  # without such rows "none" is never right
                        chosen = [self.labels[k]]
                    out.append((chosen, named))
                else:
                    out.append((self.labels[k], named))
        return out

    # ----- generation -----------------------------------------------------------------------------
    def generate(self, record, max_new_tokens=None, mode="greedy", temperature=0.7, top_p=0.9, seed=None,
                 stream=None, repetition_penalty=None, no_repeat_ngram=None):
        return self.generate_full(record, max_new_tokens, mode, temperature, top_p, seed, stream,
                                  repetition_penalty, no_repeat_ngram)["answer"]

    def generation_guard(self, repetition_penalty=None, no_repeat_ngram=None):
        """The repetition guards: the bundle's own (those the model was evaluated with) unless given."""
        guard = dict(GUARD_OFF, **{k: v for k, v in (self.bundle.get("generation") or {}).items() if k in GUARD_OFF})
        if repetition_penalty is not None:
            guard["repetition_penalty"] = float(repetition_penalty)
        if no_repeat_ngram is not None:
            guard["no_repeat_ngram"] = int(no_repeat_ngram)
        if not guard["repetition_penalty"] > 0:
            raise InputError("the repetition penalty must be above 0 (1 means none)")
        if guard["no_repeat_ngram"] < 0:
            raise InputError("the no-repeat n-gram size must be 0 (none) or more")
        return guard

    def chat_prompt_ids(self, system, turns):
        """The token ids of a conversation (see :func:`render_chat`): each user text laid out
        and cleaned as a record's main field is; ``system`` None: the bundle's own."""
        b = self.bundle
        chat = b.get("chat")
        if not chat:
            raise InputError("this bundle carries no chat format: export it again to send a conversation")
        system = b.get("system") if system is None else system
        text = render_chat(chat, system, [(self.user_text(u), a) for u, a in turns])
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        bos, bos_id = b.get("bos_token"), b.get("bos_id")
        if bos and bos_id is not None and (not ids or ids[0] != bos_id):
            ids = [bos_id] + ids
        return ids

    def generate_full(self, record, max_new_tokens=None, mode="greedy", temperature=0.7, top_p=0.9, seed=None,
                      stream=None, repetition_penalty=None, no_repeat_ngram=None, prompt_ids=None, stop=()):
        """``{"answer", "prompt_tokens", "completion_tokens", "finish_reason", "max_new_tokens"}``
        (the budget :func:`answer_budget` left the answer); ``stream`` gets each new piece of
        text as soon as it decodes to whole characters, trimmed as the whole answer is.
        ``prompt_ids`` (a conversation's, :meth:`chat_prompt_ids`) stand for ``record``'s
        prompt and are not cut; the answer ends before the first of the texts ``stop``."""
        b = self.bundle
        guard = self.generation_guard(repetition_penalty, no_repeat_ngram)
        asked = int(max_new_tokens or b.get("max_new_tokens", 128))
        if prompt_ids is not None:  # a conversation: the caller fitted it to the context
            ids, n_new = list(prompt_ids), asked
        else:
            ids = self.prompt_ids(record, 1 << 30)
            keep, n_new = answer_budget(len(ids), b["max_length"], asked)
            ids = shrink(ids, keep, int(b.get("prompt_tail_tokens", 32)))
        if stream is not None:
            stream = TrimmedStream(stream)
        limit = b.get("max_position_embeddings")
        if limit:
            n_new = min(n_new, max(int(limit) - len(ids), 0))
        stops = set(b["eos_ids"])
        rng = np.random.default_rng(seed)
        answer, finish = AnswerText(self.decode, tuple(b.get("stop_texts") or ()) + tuple(stop or ())), "length"
        generated = answer.ids
        next_logits = self._cached_steps(ids) if self.cache else None
        for _ in range(n_new):
            if next_logits is not None:
                logits = next_logits.send(generated[-1] if generated else None)
            else:
                logits = self.run(np.asarray([ids + generated], dtype="int64"))[0, -1]
            token = pick_next(logits, generated, rng, mode, temperature, top_p, **guard)
            if token in stops:
                finish = "stop"
                break
            piece = answer.add(token)
            if piece and stream is not None:
                stream(piece)
            if answer.stopped:
                finish = "stop"
                break
        piece = answer.finish()
        if piece and stream is not None:
            stream(piece)
        return {"answer": answer.text.strip(), "prompt_tokens": len(ids), "completion_tokens": len(generated),
                "finish_reason": finish, "max_new_tokens": n_new}

    def _cached_steps(self, prompt_ids):
        """A generator: send it the last new token (None first) and get the next logits. The
        prompt goes in as one step with an empty cache, then one token per step."""
        c = self.cache
        keys = np.zeros([c["layers"], 1, c["kv_heads"], 0, c["head_dim"]], dtype="float32")
        values = keys.copy()
        new, total, token = list(prompt_ids), len(prompt_ids), None
        if self.device.startswith("cpu"):
            # the cache stays in the predictor's output tensors from step to step: numpy copies in
            # and out of it cost more at every position (builtin:small, 256 new tokens: 3.8 s -> 2.3 s)
            import paddle

            cpu = paddle.CPUPlace()
            keys, values = paddle.to_tensor(keys, place=cpu), paddle.to_tensor(values, place=cpu)
        while True:
            if token is not None:
                new, total = [token], total + 1
            arrays = (np.asarray([new], dtype="int64"), np.ones([1, total], dtype="int64"),
                      np.arange(total - len(new), total, dtype="int64")[None])
            if isinstance(keys, np.ndarray):
                logits, keys, values = self.run_all(*arrays, keys, values)
            else:
                with quiet_native_output():
                    logits, keys, values = self.predictor.run(
                        [paddle.to_tensor(a, place=cpu) for a in arrays] + [keys, values])
                logits = logits.numpy()
            token = yield logits[0]

    def decode(self, ids):
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return clean_up_spaces(text) if self.bundle.get("clean_up_tokenization_spaces") else text

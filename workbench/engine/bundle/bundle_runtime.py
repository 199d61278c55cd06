"""The model code of this bundle, shared by predict.py (files and the command line) and
serve.py (the HTTP service): reading bundle.json, turning an input into the prompt the
model was trained on, running the Paddle Inference model, and reading input files.

Needs only paddlepaddle (or paddlepaddle-gpu), tokenizers and numpy. It must run without
the training software installed, so the few pieces it shares with it (the text clean-up,
the encoding detection) are written out here; tests check them against the originals.
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

# Paddle's import prints a build-tool notice that means nothing to a user of the model.
warnings.filterwarnings("ignore", message="No ccache found")


class InputError(ValueError):
    """A bad input file or request; the message says what was wrong and what to do."""


class _Blank(dict):
    def __missing__(self, key):
        return ""


LABEL_SET_JOINER = " | "  # a multi-label answer in one CSV cell (the workbench writes the same)

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


def normalize_text(text, spec):
    import re
    import unicodedata

    if not spec or not text:
        return text
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


# ----- inputs: fields and the user's own column names ---------------------------------------------------


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
        elif columns.get(field) in names:
            by_field[field] = columns[field]
    if not by_field:
        if len(names) == 1:
            return {fields[0]: names[0]}
        wanted = " / ".join(list(fields) + [c for c in columns.values() if c and c not in fields])
        raise InputError(f"no column named {wanted}; the columns are {', '.join(names) or '(none)'}. "
                         "Rename the column that holds the text, or keep only that column.")
    return by_field


def record_from_input(bundle, value, where="input"):
    """One request input (a text, or an object of fields) as a record of the bundle's fields."""
    if isinstance(value, str):
        return {bundle["fields"][0]: value}
    if isinstance(value, dict):
        try:
            by_field = map_columns(bundle, list(value))
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        record = {}
        for field, key in by_field.items():
            v = value[key]
            if v is not None and not isinstance(v, (str, int, float)):
                raise InputError(f"{where}: '{key}' must be a text, not {type(v).__name__}")
            record[field] = "" if v is None else str(v)
        return record
    raise InputError(f"{where} must be a text or an object of fields, not {type(value).__name__}")


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


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return v if isinstance(v, str) else (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else str(v))


def _rows_from_json(doc, name):
    """Arrays of objects, arrays of arrays (first element: the text), arrays of texts, or an
    object holding one such array (``{"data": [...]}``)."""
    if isinstance(doc, dict):
        lists = [v for v in doc.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise InputError(f"{name}: a JSON object must hold one list of records.")
        doc = lists[0]
    if not isinstance(doc, list):
        raise InputError(f"{name}: JSON must be a list of records.")
    header, rows = [], []
    for item in doc:
        if isinstance(item, dict):
            for k in item:
                if k not in header:
                    header.append(k)
            rows.append(item)
        elif isinstance(item, list):
            rows.append({"text": _cell(item[0]) if item else ""})
            header = header or ["text"]
        else:
            rows.append({"text": _cell(item)})
            header = header or ["text"]
    return header, [{h: _cell(r.get(h)) for h in header} for r in rows]


def read_table(path):
    """``(header, rows)``: rows as ``{column: text}`` from CSV/TSV/TXT, JSON/JSONL or Excel
    (with openpyxl installed). Raises InputError with a message for the user."""
    name = os.path.basename(path)
    suffix = os.path.splitext(path)[1].lower()
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise InputError(f"{path} could not be read ({exc.strerror or exc}).") from None
    if suffix in (".xlsx", ".xlsm"):
        return _read_excel(path, name)
    if raw.startswith(b"PK\x03\x04"):
        raise InputError(f"{name} is a zip archive (an Excel workbook?); give it the suffix .xlsx.")
    text = raw.decode(detect_encoding(raw, name))
    if suffix in (".json", ".jsonl") or text.lstrip()[:1] in ("[", "{"):
        try:
            if suffix == ".jsonl" or (text.lstrip().startswith("{") and "\n{" in text.strip()):
                doc = [json.loads(line) for line in text.splitlines() if line.strip()]
            else:
                doc = json.loads(text)
        except json.JSONDecodeError as exc:
            if suffix in (".json", ".jsonl"):
                raise InputError(f"{name} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
        else:
            return _rows_from_json(doc, name)
    if not text.strip():
        return [], []
    delimiter = "\t" if suffix == ".tsv" else None
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:20000], delimiters=",\t;|").delimiter
        except csv.Error:
            delimiter = ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        table = [row for row in reader if any(c.strip() for c in row)]
    except csv.Error as exc:
        raise InputError(f"{name} could not be read as CSV ({exc}).") from None
    header = [h.strip() for h in table[0]]
    return header, [dict(zip(header, row + [""] * (len(header) - len(row)))) for row in table[1:]]


def _read_excel(path, name):
    try:
        import openpyxl
    except ImportError:
        raise InputError(f"{name}: reading Excel files needs openpyxl (pip install openpyxl), or save the "
                         "sheet as CSV UTF-8.") from None
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:
        raise InputError(f"{name} could not be opened as an Excel workbook ({type(exc).__name__}).") from None
    rows = [[_cell(c) for c in row] for row in book.worksheets[0].iter_rows(values_only=True)]
    rows = [r for r in rows if any(str(c).strip() for c in r)]
    if not rows:
        return [], []
    header = [str(h).strip() for h in rows[0]]
    return header, [dict(zip(header, r)) for r in rows[1:]]


def read_records(path, bundle):
    """``(rows, records)``: the file's rows as read, and each row as a record of the bundle's fields."""
    header, rows = read_table(path)
    if not rows:
        return [], []
    try:
        by_field = map_columns(bundle, header)
    except InputError as exc:
        raise InputError(f"{os.path.basename(path)}: {exc}") from None
    return rows, [{f: rows_i.get(col) or "" for f, col in by_field.items()} for rows_i in rows]


# ----- choosing the next token (the workbench's own generation calls these too) ------------------------------

# A pretrained model answering greedily falls into loops ("根据规定，根据规定，..."). Two guards
# stop them: a CTRL-style repetition penalty on the tokens already generated (a positive
# logit is divided by it, a negative one multiplied) and a ban on any token that would
# repeat an n-gram of the answer. Bundles exported before these settings existed have no
# "generation" entry and generate as they did, unguarded.
GUARD_OFF = {"repetition_penalty": 1.0, "no_repeat_ngram": 0}


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
    def __init__(self, folder=HERE, device="auto", variant="static", tensorrt=True, threads=None):
        from tokenizers import Tokenizer

        self.folder = folder
        self.bundle = load_bundle(folder)
        b = self.bundle
        self.task = b["task"]
        self.labels = b.get("labels") or []
        self.multi_label = bool(b.get("multi_label"))
        self.threshold = float(b.get("threshold") or 0.5)
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, b["tokenizer"]))
        model = b["models"].get(variant)
        if not model:
            raise InputError(f"this bundle has no '{variant}' model; available: {', '.join(b['models'])}")
        # instruction bundles: the generation model with the key/value cache, where there is one
        # for this variant (each new token then costs one position, not the whole sequence)
        self.cache = (b.get("generate") or {}).get("cache") if variant == "static" else None
        onednn = b.get("onednn", True)
        if self.cache:
            model, onednn, tensorrt = b["models"]["generate"], b["generate"].get("onednn", False), False
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
        used = "cpu"
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
            config.set_cpu_math_library_num_threads(int(threads or os.cpu_count() or 1))
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
        (the most probable one when none is), each probability the label's own sigmoid."""
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
                    chosen = [lab for lab, p in named.items() if p >= self.threshold] or [self.labels[k]]
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

    def generate_full(self, record, max_new_tokens=None, mode="greedy", temperature=0.7, top_p=0.9, seed=None,
                      stream=None, repetition_penalty=None, no_repeat_ngram=None):
        """``{"answer", "prompt_tokens", "completion_tokens", "finish_reason"}``; ``stream`` gets
        each new piece of text as soon as it decodes to whole characters."""
        b = self.bundle
        guard = self.generation_guard(repetition_penalty, no_repeat_ngram)
        n_new = int(max_new_tokens or b.get("max_new_tokens", 128))
        ids = self.prompt_ids(record, max(8, int(b["max_length"]) - n_new))
        limit = b.get("max_position_embeddings")
        if limit:
            n_new = min(n_new, max(int(limit) - len(ids), 0))
        stops = set(b["eos_ids"])
        rng = np.random.default_rng(seed)
        generated, shown, finish = [], "", "length"
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
            generated.append(token)
            if stream is not None:
                text = self.decode(generated)
                if not text.endswith("\ufffd") and text.startswith(shown) and len(text) > len(shown):
                    stream(text[len(shown):])
                    shown = text
        answer = self.decode(generated)
        if stream is not None and answer.startswith(shown) and len(answer) > len(shown):
            stream(answer[len(shown):])
        return {"answer": answer.strip(), "prompt_tokens": len(ids), "completion_tokens": len(generated),
                "finish_reason": finish}

    def _cached_steps(self, prompt_ids):
        """A generator: send it the last new token (None first) and get the next logits. The
        prompt goes in as one step with an empty cache, then one token per step."""
        c = self.cache
        keys = np.zeros([c["layers"], 1, c["kv_heads"], 0, c["head_dim"]], dtype="float32")
        values = keys.copy()
        new, total, token = list(prompt_ids), len(prompt_ids), None
        while True:
            if token is not None:
                new, total = [token], total + 1
            logits, keys, values = self.run_all(
                np.asarray([new], dtype="int64"), np.ones([1, total], dtype="int64"),
                np.arange(total - len(new), total, dtype="int64")[None], keys, values)
            token = yield logits[0]

    def decode(self, ids):
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return clean_up_spaces(text) if self.bundle.get("clean_up_tokenization_spaces") else text

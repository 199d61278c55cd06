"""The built-in vertical templates, their sample data and the template loader's errors."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pandas as pd
import pytest
import yaml

from workbench.core.errors import TemplateError
from workbench.core.task import TaskSpec
from workbench.core.templates import (
    SPEC_FILE,
    TASK_ROLES,
    TemplateCatalog,
    builtin_templates_dir,
    load_template,
)

TEMPLATES = builtin_templates_dir()
IDS = ["finance_sentiment", "finance_service_qa", "medical_triage", "medical_qa",
       "legal_case_type", "legal_case_type_multi", "legal_consult_qa"]
CLASSIFICATION = ["finance_sentiment", "medical_triage", "legal_case_type"]
MULTI_LABEL = ["legal_case_type_multi"]  # several labels per row, the cell split on the template's separator
INSTRUCTION = ["finance_service_qa", "medical_qa", "legal_consult_qa"]

CLEANING_OPS = {
    "remove_invisible", "trim_whitespace", "normalize_unicode", "drop_empty", "drop_duplicates", "drop_near_duplicates",
    "length_filter", "mask_pii", "sensitive_terms", "normalize_labels",
}
REQUIRED_HPARAMS = {
    "learning_rate", "epochs", "batch_size", "max_length", "lora_r", "lora_alpha", "lora_dropout",
    "warmup_ratio", "gradient_accumulation_steps",
}

PHONE = re.compile(r"(?<![0-9])1[3-9][0-9]{9}(?![0-9])")
ID_NUMBER = re.compile(r"(?<![0-9])[1-9][0-9]{16}[0-9Xx](?![0-9])")
EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
CARD = re.compile(r"(?<![0-9])62[0-9]{14,17}(?![0-9])")
FULLWIDTH = re.compile("[\u3000\uff01-\uff5e]")


def id_checksum_ok(number: str) -> bool:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return "10X98765432"[sum(int(c) * w for c, w in zip(number[:17], weights)) % 11] == number[17].upper()


def luhn_ok(number: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(number)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def read_sample(path: Path) -> tuple[pd.DataFrame, str]:
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            df = pd.read_csv(path, encoding=encoding, dtype=str, keep_default_na=False)
        except UnicodeDecodeError:
            continue
        return df, encoding
    raise AssertionError(f"{path} is neither UTF-8 nor GB18030")


@pytest.fixture(scope="module")
def catalog() -> TemplateCatalog:
    return TemplateCatalog(dirs=[TEMPLATES])


@pytest.fixture(scope="module")
def samples(catalog) -> dict[str, pd.DataFrame]:
    return {tid: read_sample(catalog.get(tid).sample_path)[0] for tid in IDS}


def role_frame(spec, df: pd.DataFrame) -> pd.DataFrame:
    """The sample with its columns renamed to roles, as the column mapping does."""
    return df[list(spec.columns.values())].rename(columns={v: k for k, v in spec.columns.items()})


# ----- the catalog ---------------------------------------------------------------


def label_sets(spec, cells: pd.Series) -> list[list[str]]:
    """A multi-label sample's label cells as the prepare step splits them."""
    from workbench.core.multilabel import split_cell

    return [split_cell(c, spec.label_separator) for c in cells]


def test_all_load_without_problems(catalog):
    assert catalog.problems == []
    assert sorted(t.id for t in catalog) == sorted(IDS)
    for t in catalog:
        assert t.folder.name == t.id
        assert t.sample_path.is_file()


def test_two_per_vertical_one_of_each_task(catalog):
    by_vertical = catalog.by_vertical()
    assert sorted(by_vertical) == ["finance", "legal", "medical"]
    for vertical, specs in by_vertical.items():
        single = [t.task.value for t in specs if not t.multi_label]
        assert sorted(single) == ["classification", "instruction"], vertical
    assert sorted(t.id for t in catalog if t.task.value == "classification" and not t.multi_label) == \
        sorted(CLASSIFICATION)
    assert sorted(t.id for t in catalog if t.multi_label) == MULTI_LABEL


def test_the_multi_label_variant_of_the_case_type_template(catalog):
    multi, single = catalog.get("legal_case_type_multi"), catalog.get("legal_case_type")
    assert multi.vertical == single.vertical == "legal" and multi.task.value == "classification"
    assert multi.multi_label and not single.multi_label and multi.label_separator == ";"
    assert {"盗窃罪", "诈骗罪", "故意伤害罪", "寻衅滋事罪"} <= set(multi.labels)
    assert any("、" in lab for lab in multi.labels)  # why the sample separates charges with ";"
    assert multi.metrics == ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"]
    assert multi.summary()["multi_label"] is True and single.summary()["multi_label"] is False


def test_classification_labels(catalog):
    assert catalog.get("finance_sentiment").labels == ["正面", "中性", "负面"]
    assert len(catalog.get("medical_triage").labels) >= 6
    assert len(catalog.get("legal_case_type").labels) >= 6
    for tid in CLASSIFICATION + MULTI_LABEL:
        spec = catalog.get(tid)
        assert spec.columns.keys() == {"text", "label"}
        assert set(spec.label_aliases) == set(spec.labels)
        variants = [v for vs in spec.label_aliases.values() for v in vs]
        assert len(variants) == len(set(variants)), f"{tid}: an alias is listed under two labels"
        assert not set(v.strip() for v in variants if v.strip() != v) - set(spec.labels)
        assert not set(variants) & set(spec.labels), f"{tid}: an alias is itself a label"


def test_instruction_columns(catalog):
    for tid in INSTRUCTION:
        spec = catalog.get(tid)
        assert spec.columns == {"instruction": "问题", "input": "补充说明", "output": "回答"}
        assert spec.labels == []


def test_prompts_format_over_roles(catalog):
    for spec in catalog:
        filled = TaskSpec.from_template(spec).user_text({r: f"<{r}>" for r in spec.roles})
        for role in set(spec.columns) - {"label", "output"}:  # the targets are not in the prompt
            assert f"<{role}>" in filled, (spec.id, role)
        assert "{label}" not in spec.prompt.user and "{output}" not in spec.prompt.user
        assert spec.prompt.system.zh and spec.prompt.system.en
        if spec.labels:  # a classification prompt lists the labels from the label set, not by hand
            assert "{labels}" in spec.prompt.user and "/".join(spec.labels) in filled, spec.id


def test_term_lists_hold_no_ordinary_domain_words(catalog):
    ordinary = {"根治", "特效药", "刚性兑付", "内幕消息", "疏通关系", "找关系"}
    for spec in catalog:
        assert not ordinary & set(spec.sensitive_terms), spec.id


def test_cleaning_recipes_use_known_ops_and_roles(catalog):
    for spec in catalog:
        roles = set(spec.roles)
        ops = [s.op for s in spec.cleaning]
        assert set(ops) <= CLEANING_OPS, spec.id
        for step in spec.default_recipe():
            p = step["params"]
            cols = p.get("columns")
            if cols is not None:
                assert set(cols) <= roles, (spec.id, step)
            if "column" in p:
                assert p["column"] in roles, (spec.id, step)
            if step["op"] == "normalize_unicode":
                assert p["form"] == "NFKC"
            if step["op"] == "mask_pii":
                assert set(p["kinds"]) == {"phone", "id_card", "bank_card", "email"}
            if step["op"] == "sensitive_terms":
                assert p["terms"] == spec.sensitive_terms
                # a classifier's texts are only flagged; a Q&A model's answers are masked
                want = "flag" if spec.labels or "output" not in p["columns"] else "mask"
                assert p["action"] == want, (spec.id, step)
            if step["op"] == "length_filter" and spec.labels:
                assert p["max_chars"] is None and p["long_chars"], spec.id  # long texts are cut, not lost
            if step["op"] == "normalize_labels":
                assert p["labels"] == spec.labels and isinstance(p["drop_unknown"], bool)
        assert ("normalize_labels" in ops) == (spec.task.value == "classification")
        for must in ("remove_invisible", "trim_whitespace", "normalize_unicode", "drop_empty", "drop_duplicates",
                     "mask_pii"):
            assert must in ops, (spec.id, must)
        # first, over every column: the white space a removed character leaves is trimmed next
        assert ops[0] == "remove_invisible" and spec.cleaning[0].params.get("columns") is None, spec.id
        assert spec.sensitive_terms


def test_hyperparameters_presets_metrics_split(catalog):
    for spec in catalog:
        hp = spec.hyperparameters
        assert REQUIRED_HPARAMS <= set(hp), spec.id
        for name, p in hp.items():
            assert p.help is not None and p.help.zh and p.help.en, (spec.id, name)
            assert p.min is not None and p.max is not None and p.min <= p.default <= p.max
        for name in ("epochs", "batch_size", "max_length", "lora_r", "lora_alpha", "gradient_accumulation_steps"):
            assert isinstance(hp[name].default, int), (spec.id, name)
        assert isinstance(hp["learning_rate"].default, float)
        assert [p.name.en for p in spec.presets] == ["Quick try", "Standard", "Thorough"]
        for preset in spec.presets:
            for key, value in preset.values.items():
                assert key in hp, (spec.id, preset.name.en, key)
                assert hp[key].min <= value <= hp[key].max, (spec.id, preset.name.en, key)
        if spec.multi_label:
            assert spec.metrics == ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"]
        elif spec.task.value == "classification":
            assert spec.metrics == ["accuracy", "macro_f1"]
        else:
            assert spec.metrics == ["rouge_l", "bleu", "exact_match", "eval_loss"]
        assert (spec.split.train, spec.split.val, spec.split.test) == (0.8, 0.1, 0.1)


# ----- the sample data -------------------------------------------------------------


def test_sample_encodings(catalog):
    encodings = {tid: read_sample(catalog.get(tid).sample_path)[1] for tid in IDS}
    assert "gb18030" in encodings.values()
    raw = {tid: catalog.get(tid).sample_path.read_bytes() for tid in IDS}
    assert any(b.startswith(b"\xef\xbb\xbf") for b in raw.values()), "no UTF-8 file with a BOM"
    assert any(not b.startswith(b"\xef\xbb\xbf") and enc == "utf-8-sig" for b, enc in
               zip(raw.values(), encodings.values())), "no plain UTF-8 file"


def test_sample_sizes_and_columns(catalog, samples):
    for tid, df in samples.items():
        assert 400 <= len(df) <= 1500, (tid, len(df))
        assert set(catalog.get(tid).columns.values()) <= set(df.columns), tid


def test_every_label_appears(catalog, samples):
    for tid in CLASSIFICATION:
        spec = catalog.get(tid)
        counts = samples[tid][spec.columns["label"]].value_counts()
        for label in spec.labels:
            assert counts.get(label, 0) >= 30, (tid, label)
    for tid in MULTI_LABEL:
        spec = catalog.get(tid)
        sets = label_sets(spec, samples[tid][spec.columns["label"]])
        for label in spec.labels:
            assert sum(label in s for s in sets) >= 30, (tid, label)


def test_multi_label_sample_has_cases_with_several_charges(catalog, samples):
    """As in published criminal case facts: about one case in ten has two to four charges, and
    the charges that come together in judgements come together here."""
    from collections import Counter

    for tid in MULTI_LABEL:
        spec = catalog.get(tid)
        sets = [s for s in label_sets(spec, samples[tid][spec.columns["label"]]) if s]
        sizes = Counter(len(s) for s in sets)
        several = sum(n for k, n in sizes.items() if k > 1)
        assert 0.08 <= several / len(sets) <= 0.15, sizes
        assert max(sizes) == 4 and sizes[3] >= 5, sizes
        pairs = Counter(frozenset(p) for s in sets for p in [(a, b) for a in s for b in s if a < b])
        assert pairs[frozenset({"故意伤害罪", "寻衅滋事罪"})] >= 10
        assert pairs[frozenset({"盗窃罪", "诈骗罪"})] >= 5
        # the cell holds charges whose names carry 、: the default separators would cut them apart
        from workbench.core.multilabel import split_cell

        cells = samples[tid][spec.columns["label"]]
        assert any(len(split_cell(c)) > len(split_cell(c, spec.label_separator)) for c in cells)


def test_samples_are_dirty(catalog, samples):
    for tid, df in samples.items():
        spec = catalog.get(tid)
        roles = role_frame(spec, df)
        text_col = "text" if "text" in roles else "instruction"
        target = "label" if "label" in roles else "output"
        blob = "\n".join(roles.fillna("").astype(str).agg(" ".join, axis=1))

        assert roles.duplicated().sum() >= 0.02 * len(df), f"{tid}: too few exact duplicates"
        assert (roles[text_col].str.strip() == "").sum() >= 1, f"{tid}: no blank {text_col}"
        assert (roles[target].str.strip() == "").sum() >= 1, f"{tid}: no blank {target}"
        assert PHONE.search(blob), f"{tid}: no mobile number"
        ids = ID_NUMBER.findall(blob)
        assert ids and all(id_checksum_ok(n) for n in ids), f"{tid}: no valid ID number"
        cards = [c for c in CARD.findall(blob) if len(c) in (16, 19)]
        assert cards and all(luhn_ok(c) for c in cards), f"{tid}: no Luhn-valid card number"
        assert EMAIL.search(blob), f"{tid}: no e-mail address"
        assert FULLWIDTH.search(blob), f"{tid}: no full-width characters"
        assert (roles[text_col] != roles[text_col].str.strip()).any(), f"{tid}: no stray whitespace"
        assert roles[text_col].str.len().max() > 1000 or roles[target].str.len().max() > 1000, tid
        assert any(term in blob for term in spec.sensitive_terms), f"{tid}: no sensitive term"
        # near duplicates: texts equal once whitespace and character widths are normalised
        norm = roles[text_col].map(lambda s: re.sub(r"\s+", "", unicodedata.normalize("NFKC", s)))
        near = norm.duplicated() & ~roles[text_col].duplicated()
        assert near.sum() >= 3, f"{tid}: no near duplicates"
        if spec.multi_label:
            items = pd.Series([x for s in label_sets(spec, roles["label"]) for x in s])
            aliases = {v for vs in spec.label_aliases.values() for v in vs}
            assert items.isin(aliases).sum() >= 10, f"{tid}: too few alias labels"
            assert items.str.contains(r"^[A-Za-z ]+$").any(), f"{tid}: no English label"
            unknown = items[~items.isin(set(spec.labels) | aliases)]
            assert 1 <= len(unknown) <= 0.03 * len(df), f"{tid}: labels outside the set: {len(unknown)}"
        elif spec.task.value == "classification":
            labels = roles["label"]
            aliases = {v for vs in spec.label_aliases.values() for v in vs}
            assert labels.isin(aliases).sum() >= 10, f"{tid}: too few alias labels"
            assert labels.str.contains(r"^[A-Za-z ]+$").any(), f"{tid}: no English label"
            unknown = labels[(labels.str.strip() != "") & ~labels.str.strip().isin(set(spec.labels) | aliases)]
            assert 1 <= len(unknown) <= 0.03 * len(df), f"{tid}: labels outside the set: {len(unknown)}"


def _rough_clean(spec, df: pd.DataFrame) -> pd.DataFrame:
    """A crude stand-in for the default recipe, to check how much usable data remains."""
    r = role_frame(spec, df).apply(lambda col: col.map(lambda s: unicodedata.normalize("NFKC", s).strip()))
    text_col = "text" if "text" in r else "instruction"
    target = "label" if "label" in r else "output"
    r = r[(r[text_col] != "") & (r[target] != "")]
    if "label" in r and spec.multi_label:  # the first charge stands for the row's share
        back = {v.strip(): k for k, vs in spec.label_aliases.items() for v in vs}
        r = r.assign(label=[next((back.get(x, x) for x in s if back.get(x, x) in spec.labels), "")
                            for s in label_sets(spec, r["label"])])
        r = r[r["label"] != ""]
    elif "label" in r:
        back = {v.strip(): k for k, vs in spec.label_aliases.items() for v in vs}
        r = r.assign(label=r["label"].map(lambda s: back.get(s, s)))
        r = r[r["label"].isin(spec.labels)]
    key = r[text_col].str.replace(r"\s+", "", regex=True)
    if "input" in r:
        key = key + "\x00" + r["input"]
    r = r[~key.duplicated()]
    return r[(r[text_col].str.len() <= 500) & (r[target].str.len() <= 800)]


def test_dirt_is_modest(catalog, samples):
    for tid, df in samples.items():
        spec = catalog.get(tid)
        clean = _rough_clean(spec, df)
        assert len(clean) >= 350, (tid, len(clean))
        assert len(clean) >= 0.75 * len(df), (tid, len(clean), len(df))
        if spec.task.value == "classification":
            shares = clean["label"].value_counts(normalize=True)
            assert shares.min() > 0.5 / len(spec.labels), (tid, shares.to_dict())


def test_instruction_answers_are_concise_and_varied(catalog, samples):
    for tid in INSTRUCTION:
        clean = _rough_clean(catalog.get(tid), samples[tid])
        assert clean["output"].str.len().median() <= 120, tid
        assert clean["output"].nunique() >= 150, tid
        assert (clean["input"] != "").mean() > 0.3, tid


def test_generator_is_deterministic(tmp_path):
    script = TEMPLATES / "make_samples.py"
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True, capture_output=True)
    for tid in IDS:
        spec = load_template(TEMPLATES / tid)
        regenerated = tmp_path / tid / spec.sample_data
        assert regenerated.read_bytes() == spec.sample_path.read_bytes(), (
            f"{spec.sample_path.name} differs from the generator's output; "
            "run 'python templates/make_samples.py' and commit the result"
        )


# ----- invalid user templates --------------------------------------------------------


def _user_template(base: Path, name: str, **changes) -> Path:
    """A copy of a built-in template in ``base/name`` with some fields replaced."""
    src = TEMPLATES / "finance_sentiment"
    raw = yaml.safe_load((src / SPEC_FILE).read_text(encoding="utf-8"))
    sample = raw["sample_data"]
    raw["id"] = name
    raw.update(changes)
    folder = base / name
    folder.mkdir(parents=True)
    (folder / SPEC_FILE).write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    (folder / sample).write_bytes((src / sample).read_bytes())
    return folder


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"task": "regression"}, "task"),
        ({"labels": ["正面"]}, "labels"),
        ({"split": {"train": 0.8, "val": 0.3, "test": 0.1}}, "split"),
        ({"columns": {"text": "新闻内容"}}, "columns"),
        ({"id": "Bad Id!"}, "id"),
        ({"prompt": {"system": {"zh": "系统", "en": "system"}, "user": "{news}"}}, "prompt.user"),
        ({"hyperparameters": {"epochs": {"default": 50, "min": 1, "max": 20}}}, "hyperparameters.epochs"),
        ({"sample_data": "missing.csv"}, "sample_data"),
        ({"label_separator": ";"}, "label_separator"),  # a separator without multi_label: true
    ],
)
def test_invalid_user_template_names_file_and_field(tmp_path, changes, field):
    folder = _user_template(tmp_path / "user", "org_custom", **changes)
    with pytest.raises(TemplateError) as info:
        load_template(folder)
    message = str(info.value)
    assert str(folder / SPEC_FILE) in message
    assert f"field '{field}'" in message, message

    cat = TemplateCatalog(dirs=[TEMPLATES, tmp_path / "user"])
    assert sorted(t.id for t in cat) == sorted(IDS), "a bad user template must not hide the built-ins"
    assert len(cat.problems) == 1 and str(folder / SPEC_FILE) in cat.problems[0]


def test_user_template_loads_and_may_not_shadow_builtin(tmp_path):
    _user_template(tmp_path / "user", "org_news")
    shadow = _user_template(tmp_path / "user", "shadow")
    text = (shadow / SPEC_FILE).read_text(encoding="utf-8").replace("id: shadow", "id: finance_sentiment")
    (shadow / SPEC_FILE).write_text(text, encoding="utf-8")
    cat = TemplateCatalog(dirs=[TEMPLATES, tmp_path / "user"])
    assert "org_news" in cat.templates
    assert cat.get("finance_sentiment").folder == (TEMPLATES / "finance_sentiment").resolve()
    assert len(cat.problems) == 1 and "'id'" in cat.problems[0] and str(shadow / SPEC_FILE) in cat.problems[0]


def test_unknown_template_id(catalog):
    with pytest.raises(TemplateError, match="finance_sentiment"):
        catalog.get("no_such_template")


def test_roles_table_matches_tasks(catalog):
    for spec in catalog:
        assert set(spec.columns) <= set(TASK_ROLES[spec.task.value])

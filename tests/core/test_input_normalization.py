"""New text at prediction time is cleaned exactly as the training text was."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import workbench
from workbench.core.cleaning import Recipe, input_normalization, normalize_record
from workbench.core.dataio import read_table
from workbench.core.mapping import apply_mapping, suggest_mapping
from workbench.core.templates import TemplateCatalog

CATALOG = TemplateCatalog()
TRICKY = ["  ＡＢＣ１２３，你好！  ", "a\u3000\u3000b\tc", "行一\r\n\r\n  行二", "（括号）：；？", "café ﬁ ½", "", " ",
          "\x08 信用卡怎么办理", "借\u200b呗\u200d\u2060到账\u00ad", "\ufeff头\x7f尾\x85", "\x0b分页\x0c"]


def _predict_module():
    path = Path(workbench.__file__).parent / "engine" / "bundle" / "bundle_runtime.py"
    spec = importlib.util.spec_from_file_location("bundle_predict", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("template_id", [t.id for t in CATALOG])
def test_bundle_normalisation_matches_the_recipe(template_id):
    predict = _predict_module()
    template = CATALOG.get(template_id)
    recipe = Recipe.from_template(template)
    fields = [r for r in template.roles if r not in ("label", "output")]
    specs = input_normalization(recipe, fields)
    assert specs[fields[0]]["trim"] and specs[fields[0]]["unicode_form"] == "NFKC"
    assert specs[fields[0]]["remove_invisible"]
    df, _ = read_table(template.sample_path)
    mapped = apply_mapping(df, template, suggest_mapping(template, list(df.columns)))
    for field in fields:
        values = [v for v in mapped[field].dropna().astype(str).head(300)] + TRICKY
        for v in values:
            expected = normalize_record({field: v}, recipe)[field]
            assert predict.normalize_text(v, specs[field]) == expected, repr(v)


def test_normalize_record_follows_the_recipe_switches():
    base = {"steps": [{"op": "trim_whitespace", "params": {"columns": None}},
                      {"op": "normalize_unicode", "params": {"columns": ["text"], "keep_cjk_punctuation": False}}]}
    assert normalize_record({"text": " ＡＢ，C "}, base) == {"text": "AB,C"}
    assert normalize_record({"other": " ＡＢ "}, base) == {"other": "ＡＢ"}  # NFKC was for 'text' only
    base["steps"][1]["enabled"] = False
    assert normalize_record({"text": " ＡＢ，C "}, base) == {"text": "ＡＢ，C"}
    assert input_normalization(None, ["text"]) == {"text": {"remove_invisible": False, "trim": False,
                                                            "unicode_form": None, "keep_cjk_punctuation": True}}

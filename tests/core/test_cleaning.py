"""The cleaning engine: every op on small hand-made frames, PII rules, recipes, errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from workbench.core.cleaning import (
    STEPS,
    Cancelled,
    Example,
    Recipe,
    Step,
    StepReport,
    apply_step,
    id_checksum_ok,
    is_id_number,
    luhn_ok,
)
from workbench.core.errors import DataError


def run(df, op, **params):
    return apply_step(df, Step(op=op, params=params))


def col(df, name="text"):
    """Column values as a plain list, NA as None."""
    return [None if pd.isna(v) else v for v in df[name].tolist()]


def frame(**cols):
    return pd.DataFrame(cols)


# ----- registry ----------------------------------------------------------------------


def test_registry_lists_every_op_with_title_and_schema():
    expected = {
        "trim_whitespace",
        "remove_invisible",
        "normalize_unicode",
        "drop_empty",
        "drop_duplicates",
        "drop_near_duplicates",
        "length_filter",
        "mask_pii",
        "sensitive_terms",
        "normalize_labels",
        "replace",
    }
    assert expected <= set(STEPS)
    for op, info in STEPS.items():
        assert info.op == op and info.title and info.title_zh
        assert "properties" in info.param_schema()
    assert STEPS["mask_pii"].title == "Mask personal data"
    assert STEPS["length_filter"].defaults() == {"min_chars": 0, "max_chars": None, "long_chars": None}


# ----- trim / unicode ----------------------------------------------------------------


def test_trim_whitespace():
    df = frame(text=["  a  b\t\tc ", "\u3000全角\u3000", "\u00a0x\u00a0", "l1 \r\n\r\n  l2\nl3", None, "", "ok"], n=range(7))
    out, rep = run(df, "trim_whitespace")
    assert col(out) == ["a b c", "全角", "x", "l1\nl2\nl3", None, "", "ok"]
    assert rep.op == "trim_whitespace" and rep.title == "Trim whitespace"
    assert (rep.rows_in, rep.rows_out, rep.cells_changed) == (7, 7, 4)
    assert rep.examples[0] == Example(row=0, column="text", before="  a  b\t\tc ", after="a b c")
    assert [e.row for e in rep.examples] == [0, 1, 2, 3]
    assert out["n"].tolist() == list(range(7))  # non-text column untouched


def test_trim_single_inner_spaces_kept_and_tab_becomes_space():
    out, rep = run(frame(text=["a b", "a\tb", "a\u3000b"]), "trim_whitespace", columns=["text"])
    assert col(out) == ["a b", "a b", "a b"]
    assert rep.cells_changed == 2


def test_remove_invisible_takes_control_and_zero_width_characters_and_keeps_line_breaks():
    df = frame(text=["\x08信用卡怎么办理", "借\u200b呗\u200d到账", "第一行\n第二行\t尾", "\ufeff房贷\u00ad提前还",
                     "\u202e反向\u202c", "正常的问题", None],
               label=["1", "0\x00", "1", "0", "1", "0", "1"])
    out, rep = run(df, "remove_invisible", columns=None)
    assert col(out) == ["信用卡怎么办理", "借呗到账", "第一行\n第二行\t尾", "房贷提前还", "反向", "正常的问题", None]
    assert col(out, "label") == ["1", "0", "1", "0", "1", "0", "1"]
    assert rep.cells_changed == 5 and rep.rows_out == 7
    assert rep.details["removed"] == {"U+0008": 1, "U+200B": 1, "U+200D": 1, "U+FEFF": 1, "U+00AD": 1,
                                      "U+202E": 1, "U+202C": 1, "U+0000": 1}
    assert [(e.row, e.column, e.before, e.after) for e in rep.examples][:2] == [
        (0, "text", "\x08信用卡怎么办理", "信用卡怎么办理"), (1, "text", "借\u200b呗\u200d到账", "借呗到账")]
    # only the named columns
    out, rep = run(df, "remove_invisible", columns=["label"])
    assert col(out) == col(df) and rep.cells_changed == 1


def test_the_default_recipe_leaves_no_control_character_in_the_bank_questions(tmp_path):
    from data_factory import bank_question_pairs

    from workbench.core.dataio import read_table
    from workbench.core.mapping import apply_mapping
    from workbench.core.templates import TemplateCatalog

    template = TemplateCatalog().get("finance_sentiment")
    df, _ = read_table(bank_question_pairs(tmp_path / "bank.data", n=120, controls=16))
    mapped = apply_mapping(df, template, {"text": "col1+col2", "label": "col3"})
    assert mapped["text"].str.contains("\x08").sum() == 16
    recipe = Recipe.from_template(template)
    recipe.steps = [s for s in recipe.steps if s.op != "normalize_labels"]  # 0/1 are not the template's labels
    out, reports = recipe.apply(mapped)
    assert not out["text"].str.contains("[\x00-\x08\x0e-\x1f]").any()
    assert out["text"].str.contains("\n").all()  # the two questions stay apart, one a line
    report = next(r for r in reports if r.op == "remove_invisible")
    assert report.cells_changed == 16 and report.details["removed"] == {"U+0008": 16}
    assert report.examples[0].before.startswith("\x08") and not report.examples[0].after.startswith("\x08")


def test_normalize_unicode_nfkc():
    df = frame(text=["ＡＢＣ１２３", "你好，世界！", "顿号、句号。", "a\u3000b", "plain", None])
    out, rep = run(df, "normalize_unicode")
    assert col(out) == ["ABC123", "你好，世界！", "顿号、句号。", "a b", "plain", None]
    assert rep.cells_changed == 2
    assert rep.examples[0].before == "ＡＢＣ１２３" and rep.examples[0].after == "ABC123"
    # Chinese punctuation stays unless asked otherwise; then it is plain NFKC
    out, rep = run(df, "normalize_unicode", keep_cjk_punctuation=False)
    assert col(out) == ["ABC123", "你好,世界!", "顿号、句号。", "a b", "plain", None]
    assert rep.cells_changed == 3
    out, _ = run(frame(text=["（全角）：Ｘ；？"]), "normalize_unicode")
    assert col(out) == ["（全角）：X；？"]


def test_normalize_unicode_other_form():
    out, rep = run(frame(text=["e\u0301"]), "normalize_unicode", form="NFC")
    assert col(out) == ["\u00e9"] and rep.cells_changed == 1


# ----- row filters -------------------------------------------------------------------


def test_drop_empty():
    df = frame(text=["a", None, "", "  \u3000", "b", "c"], label=["x", "y", "z", "w", None, "v"])
    df.index = [10, 11, 12, 13, 14, 15]
    out, rep = run(df, "drop_empty", columns=["text", "label"])
    assert out.index.tolist() == [10, 15]
    assert (rep.rows_in, rep.rows_out, rep.cells_changed) == (6, 2, 0)
    assert rep.details == {"rows_dropped": 4, "blank_by_column": {"text": 3, "label": 1}}
    assert rep.examples[0] == Example(row=11, column="text", before=None, after=None)
    assert [e.row for e in rep.examples] == [11, 12, 13, 14]


def test_drop_empty_needs_columns():
    with pytest.raises(DataError, match=r"drop_empty.*parameter 'columns' is required"):
        run(frame(text=["a"]), "drop_empty")


def test_drop_duplicates_subset_and_all_text_columns():
    df = frame(text=["a", "a", "b", "a"], label=["x", "y", "x", "x"])
    out, rep = run(df, "drop_duplicates")
    assert out.index.tolist() == [0, 1, 2]
    assert rep.details["rows_dropped"] == 1
    assert rep.examples == [Example(row=3, column="text", before="a", after=None)]
    out, rep = run(df, "drop_duplicates", columns=["text"])
    assert out.index.tolist() == [0, 2]
    assert rep.rows_out == 2


def test_drop_near_duplicates():
    df = frame(text=["你好，世界！", "你好 世界", "ＨＥＬＬＯ world", "hello, World.", "different", "你好、世界。"])
    out, rep = run(df, "drop_near_duplicates", columns=["text"])
    assert out.index.tolist() == [0, 2, 4]
    assert rep.details == {"rows_dropped": 3}
    assert [e.row for e in rep.examples] == [1, 3, 5]
    assert all(e.after is None for e in rep.examples)


def test_drop_near_duplicates_multiple_columns():
    df = frame(q=["A b", "ab", "ab"], a=["x", "y", "X!"])
    out, _ = run(df, "drop_near_duplicates", columns=["q", "a"])
    assert out.index.tolist() == [0, 1]


def test_length_filter():
    df = frame(text=["a", "abc", "abcd", "abcdefgh", None, "中文三字"])
    out, rep = run(df, "length_filter", column="text", min_chars=3, max_chars=4)
    assert col(out) == ["abc", "abcd", "中文三字"]
    assert out.index.tolist() == [1, 2, 5]
    assert rep.details == {"rows_dropped": 3, "too_short": 2, "too_long": 1}


def test_length_filter_bad_range():
    with pytest.raises(DataError, match="max_chars .*smaller than min_chars"):
        run(frame(text=["a"]), "length_filter", column="text", min_chars=5, max_chars=2)


# ----- PII ---------------------------------------------------------------------------

VALID_ID_X = "11010519491231002X"
VALID_ID = "320106198506121235"
BAD_ID = "110105194912310021"  # check character should be X; also fails Luhn
FUTURE_ID = "440301203001011233"  # valid check character, born in 2030; fails Luhn
CARD_16 = "4111111111111111"  # passes Luhn
CARD_19 = "6212261202011584340"  # passes Luhn
NOT_CARD = "4111111111111112"  # fails Luhn


def test_checksum_functions():
    assert id_checksum_ok(VALID_ID_X) and id_checksum_ok(VALID_ID.lower())
    assert is_id_number(VALID_ID_X) and is_id_number(VALID_ID)
    assert not id_checksum_ok(BAD_ID)
    assert id_checksum_ok(FUTURE_ID) and not is_id_number(FUTURE_ID)
    assert luhn_ok(CARD_16) and luhn_ok(CARD_19) and not luhn_ok(NOT_CARD)
    assert not luhn_ok(BAD_ID) and not luhn_ok(FUTURE_ID)


@pytest.mark.parametrize(
    "text, expected",
    [
        (f"身份证{VALID_ID_X}。", "身份证[身份证号]。"),
        (f"身份证{VALID_ID_X.lower()}", "身份证[身份证号]"),
        (f"证件 {VALID_ID} 已核", "证件 [身份证号] 已核"),
        (f"号码{BAD_ID}", f"号码{BAD_ID}"),
        (f"号码{FUTURE_ID}", f"号码{FUTURE_ID}"),
        (f"卡号{CARD_16}", "卡号[银行卡号]"),
        (f"卡号{CARD_19}结束", "卡号[银行卡号]结束"),
        ("卡号 4111 1111 1111 1111", "卡号 [银行卡号]"),
        (f"订单{NOT_CARD}", f"订单{NOT_CARD}"),
        ("电话13812345678", "电话[电话]"),
        ("电话 138-1234-5678，或 138 1234 5678", "电话 [电话]，或 [电话]"),
        ("+86 13912345678", "[电话]"),
        ("8613912345678", "[电话]"),
        ("流水号2013812345678901", "流水号2013812345678901"),  # phone-like run inside a longer run
        ("编号123456789012", "编号123456789012"),
        ("12345678901", "12345678901"),  # 11 digits but not a mobile prefix
        ("邮箱 zhang.san@example.com.cn 联系", "邮箱 [邮箱] 联系"),
        ("13812345678@163.com", "[邮箱]"),
        ("no pii here", "no pii here"),
    ],
)
def test_mask_pii_cases(text, expected):
    out, _ = run(frame(text=[text]), "mask_pii")
    assert col(out) == [expected]


def test_mask_pii_report_and_kinds():
    df = frame(
        text=[f"张三 13812345678 {VALID_ID_X}", f"卡{CARD_16} a@b.cn", "nothing", f"假{BAD_ID}", None],
        other=["x@y.com", "13900000000", "", None, "z"],
    )
    out, rep = run(df, "mask_pii", columns=["text"])
    assert col(out) == ["张三 [电话] [身份证号]", "卡[银行卡号] [邮箱]", "nothing", f"假{BAD_ID}", None]
    assert col(out, "other") == ["x@y.com", "13900000000", "", None, "z"]
    assert rep.cells_changed == 2
    assert rep.details == {"masked": {"phone": 1, "id_card": 1, "bank_card": 1, "email": 1}}
    assert [e.row for e in rep.examples] == [0, 1]

    out, rep = run(df, "mask_pii", kinds=["email"], replacement={"email": "<EMAIL>"})
    assert col(out) == [f"张三 13812345678 {VALID_ID_X}", f"卡{CARD_16} <EMAIL>", "nothing", f"假{BAD_ID}", None]
    assert col(out, "other") == ["<EMAIL>", "13900000000", "", None, "z"]
    assert rep.details == {"masked": {"email": 2}}


def test_mask_pii_bad_kind():
    with pytest.raises(DataError, match=r"Cleaning step 'mask_pii': parameter 'kinds.0' is invalid.*'passport'.*Expected"):
        run(frame(text=["a"]), "mask_pii", kinds=["passport"])


# ----- sensitive terms ---------------------------------------------------------------


def test_sensitive_terms_mask():
    df = frame(text=["内部资料，内部使用", "机密文件", "公开", None], label=["内部", "a", "b", "c"])
    out, rep = run(df, "sensitive_terms", columns=["text"], terms=["内部", "机密文件", "机密"])
    assert col(out) == ["**资料，**使用", "****", "公开", None]
    assert col(out, "label") == ["内部", "a", "b", "c"]
    assert rep.cells_changed == 2
    assert rep.details == {"terms": {"内部": 2, "机密文件": 1, "机密": 0}}


def test_sensitive_terms_mask_char_special_chars_and_case():
    df = frame(text=["a.b (x) A.B", "no"])
    out, rep = run(df, "sensitive_terms", terms=["a.b", "(x)"], mask_char="#", ignore_case=True)
    assert col(out) == ["### ### ###", "no"]
    assert rep.details == {"terms": {"a.b": 2, "(x)": 1}}


def test_sensitive_terms_drop():
    df = frame(text=["ok", "含机密", "内部", "fine"])
    out, rep = run(df, "sensitive_terms", terms=["机密", "内部"], action="drop")
    assert out.index.tolist() == [0, 3]
    assert rep.details == {"rows_dropped": 2, "terms": {"机密": 1, "内部": 1}}
    assert rep.examples[0] == Example(row=1, column="text", before="含机密", after=None)


def test_sensitive_terms_flag_reports_rows_and_keeps_the_text():
    df = frame(text=["能根治吗", "祖传秘方，药到病除", "普通问题", "又一个祖传秘方"], label=list("abcd"))
    out, rep = run(df, "sensitive_terms", terms=["祖传秘方", "药到病除"], action="flag")
    assert col(out) == col(df) and out.index.tolist() == [0, 1, 2, 3] and rep.cells_changed == 0
    assert rep.details == {"terms": {"祖传秘方": 2, "药到病除": 1}, "rows_flagged": 2}
    assert rep.examples == [Example(row=1, column="text", before="祖传秘方，药到病除", after="祖传秘方，药到病除"),
                            Example(row=3, column="text", before="又一个祖传秘方", after="又一个祖传秘方")]


def test_length_filter_counts_long_rows_it_keeps():
    df = frame(text=["短", "正常长度的文本", "很" * 30])
    out, rep = run(df, "length_filter", column="text", min_chars=2, long_chars=20)
    assert out.index.tolist() == [1, 2]
    assert rep.details["long"] == 1 and rep.details["too_long"] == 0 and rep.details["long_chars"] == 20


def test_sensitive_terms_empty_list_is_a_no_op():
    df = frame(text=["a"])
    out, rep = run(df, "sensitive_terms", terms=[])
    assert col(out) == ["a"] and rep.cells_changed == 0


# ----- labels ------------------------------------------------------------------------

LABELS = dict(labels=["正面", "负面", "中性"], aliases={"正面": ["positive", "好评"], "负面": ["negative"]})


def test_normalize_labels_maps_variants_and_reports_unknown():
    df = frame(label=["正面", " 正面 ", "好评", "POSITIVE", "Ｎｅｇａｔｉｖｅ", "负面", "垃圾", "垃圾", None, "", "中性"])
    out, rep = run(df, "normalize_labels", column="label", **LABELS)
    assert col(out, "label") == ["正面", "正面", "正面", "正面", "负面", "负面", "垃圾", "垃圾", None, "", "中性"]
    assert rep.rows_out == 11
    assert rep.cells_changed == 4
    assert rep.details["unknown"] == {"垃圾": 2}
    assert rep.details["blank"] == 2
    assert rep.details["mapped"] == {" 正面 ": "正面", "好评": "正面", "POSITIVE": "正面", "Ｎｅｇａｔｉｖｅ": "负面"}
    assert rep.details["label_counts"] == {"正面": 4, "负面": 2, "中性": 1}


def test_normalize_labels_drop_unknown():
    df = frame(label=["正面", "垃圾", None, "negative"], text=["a", "b", "c", "d"])
    out, rep = run(df, "normalize_labels", column="label", drop_unknown=True, **LABELS)
    assert out.index.tolist() == [0, 3]
    assert col(out, "label") == ["正面", "负面"]
    assert rep.rows_out == 2
    assert rep.details["rows_dropped"] == 2
    assert rep.details["unknown"] == {"垃圾": 1}


def test_normalize_labels_numeric_column():
    df = frame(label=[0, 1, 1, 2])
    out, rep = run(df, "normalize_labels", column="label", labels=["0", "1"])
    assert rep.details["unknown"] == {"2": 1}
    assert rep.cells_changed == 0
    assert out["label"].tolist() == [0, 1, 1, 2]


def test_normalize_labels_alias_outside_label_set():
    with pytest.raises(DataError, match="aliases names \\['坏'\\]"):
        run(frame(label=["a"]), "normalize_labels", column="label", labels=["正面", "负面"], aliases={"坏": ["x"]})


# ----- replace -----------------------------------------------------------------------


def test_replace_literal_and_regex():
    df = frame(text=["a.b.c", "abc", None])
    out, rep = run(df, "replace", column="text", find=".", replace="-")
    assert col(out) == ["a-b-c", "abc", None] and rep.cells_changed == 1
    out, rep = run(df, "replace", column="text", find=r"(\w)\.", replace=r"\1!", regex=True)
    assert col(out) == ["a!b!c", "abc", None]
    out, _ = run(frame(text=["Foo foo"]), "replace", find="FOO", replace="x", ignore_case=True)
    assert col(out) == ["x x"]


def test_replace_bad_regex():
    with pytest.raises(DataError, match="'replace'.*not a valid regular expression"):
        run(frame(text=["a"]), "replace", column="text", find="(", regex=True)


# ----- purity, index labels, disabled steps ------------------------------------------


def default_steps():
    return [
        Step(op="trim_whitespace"),
        Step(op="normalize_unicode"),
        Step(op="drop_empty", params={"columns": ["text", "label"]}),
        Step(op="drop_duplicates"),
        Step(op="drop_near_duplicates", params={"columns": ["text"]}),
        Step(op="length_filter", params={"column": "text", "min_chars": 2, "max_chars": 40}),
        Step(op="mask_pii"),
        Step(op="sensitive_terms", params={"terms": ["机密"]}),
        Step(op="normalize_labels", params={"column": "label", **LABELS}),
    ]


def sample():
    df = frame(
        text=[
            "  手机 13812345678 ",
            "ＡＢＣ 很好",
            "ABC很好",
            "",
            "机密：卡号 4111111111111111",
            "x",
            "  手机 13812345678 ",
            "正常文本 一",
        ],
        label=["好评", "positive", "正面", "负面", "NEGATIVE", "中性", "好评", "其他"],
    )
    df.index = [100, 101, 102, 103, 104, 105, 106, 107]
    return df


def test_steps_do_not_modify_input_and_keep_index_labels():
    df = sample()
    before = df.copy(deep=True)
    out, reports = Recipe(steps=default_steps()).apply(df)
    pd.testing.assert_frame_equal(df, before)
    assert out.index.tolist() == [100, 101, 104, 107]
    assert col(out) == ["手机 [电话]", "ABC 很好", "**：卡号 [银行卡号]", "正常文本 一"]
    assert col(out, "label") == ["正面", "正面", "负面", "其他"]
    assert [r.op for r in reports] == [s.op for s in default_steps()]
    assert [r.rows_out for r in reports] == [8, 8, 7, 6, 5, 4, 4, 4, 4]
    assert reports[-1].details["unknown"] == {"其他": 1}
    # every step's output is another frame; mutating it does not reach the input
    for step in default_steps():
        out1, _ = apply_step(df, step)
        assert out1 is not df
        out1.iloc[0, 0] = "changed"
        pd.testing.assert_frame_equal(df, before)


def test_disabled_step_is_skipped_and_reported():
    df = frame(text=["  a  "])
    out, reports = Recipe(steps=[Step(op="trim_whitespace", enabled=False), Step(op="normalize_unicode")]).apply(df)
    assert col(out) == ["  a  "]
    assert reports[0].skipped and reports[0].rows_in == reports[0].rows_out == 1 and reports[0].cells_changed == 0
    assert not reports[1].skipped


def test_disabled_step_params_still_validated():
    with pytest.raises(DataError, match="unknown parameter 'colums'"):
        apply_step(frame(text=["a"]), Step(op="trim_whitespace", params={"colums": ["text"]}, enabled=False))


def test_empty_frame_and_object_dtype():
    empty = pd.DataFrame({"text": pd.Series([], dtype="str"), "label": pd.Series([], dtype="str")})
    out, reports = Recipe(steps=default_steps()).apply(empty)
    assert len(out) == 0 and all(r.rows_out == 0 for r in reports)
    obj = pd.DataFrame({"text": pd.Series([" a ", None], dtype=object)})
    out, rep = run(obj, "trim_whitespace")
    assert col(out) == ["a", None] and rep.cells_changed == 1


def test_examples_capped_at_five():
    out, rep = run(frame(text=[f" {i} " for i in range(20)]), "trim_whitespace")
    assert rep.cells_changed == 20 and len(rep.examples) == 5
    assert [e.row for e in rep.examples] == [0, 1, 2, 3, 4]


# ----- errors ------------------------------------------------------------------------


def test_unknown_op_lists_known_ops():
    with pytest.raises(DataError) as err:
        apply_step(frame(text=["a"]), Step(op="frobnicate"))
    msg = str(err.value)
    assert "'frobnicate'" in msg and "trim_whitespace" in msg and "mask_pii" in msg


def test_bad_param_names_step_param_and_expectation():
    recipe = Recipe(steps=[Step(op="trim_whitespace"), Step(op="length_filter", params={"column": "text", "min_chars": "many"})])
    with pytest.raises(DataError) as err:
        recipe.apply(frame(text=["a"]))
    msg = str(err.value)
    assert "step 2 'length_filter'" in msg and "'min_chars'" in msg and "'many'" in msg
    assert "whole number" in msg


def test_missing_column_names_step_column_and_available():
    with pytest.raises(DataError) as err:
        Recipe(steps=[Step(op="mask_pii", params={"columns": ["body"]})]).apply(frame(text=["a"], label=["x"]))
    msg = str(err.value)
    assert "step 1 'mask_pii'" in msg and "'body'" in msg and "'text', 'label'" in msg
    with pytest.raises(DataError, match="column 'lbl' does not exist"):
        run(frame(label=["a"]), "normalize_labels", column="lbl", labels=["a", "b"])
    with pytest.raises(DataError, match="column 'body' does not exist"):
        Recipe(steps=[Step(op="length_filter", params={"column": "body"})]).check(columns=["text"])


# ----- recipes -----------------------------------------------------------------------


def test_recipe_json_round_trip_and_replay(tmp_path):
    recipe = Recipe(steps=default_steps() + [Step(op="replace", params={"column": "text", "find": "很好", "replace": "good"}, enabled=False)])
    text = recipe.to_json()
    assert json.loads(text)["version"] == 1
    assert "好评" in text  # readable, not \\u-escaped
    again = Recipe.from_json(text)
    assert again == recipe
    path = recipe.save(tmp_path / "sub" / "recipe.json")
    loaded = Recipe.load(path)
    assert loaded == recipe
    out1, rep1 = recipe.apply(sample())
    out2, rep2 = loaded.apply(sample())
    pd.testing.assert_frame_equal(out1, out2)
    assert [r.model_dump() for r in rep1] == [r.model_dump() for r in rep2]
    assert list(tmp_path.joinpath("sub").iterdir()) == [path]  # no temporary file left


def test_recipe_from_json_errors(tmp_path):
    with pytest.raises(DataError, match="not valid JSON"):
        Recipe.from_json("{nope")
    with pytest.raises(DataError, match="unknown operation 'nope'"):
        Recipe.from_json('{"version": 1, "steps": [{"op": "nope"}]}')
    with pytest.raises(DataError, match="version 9"):
        Recipe.from_json('{"version": 9, "steps": []}')
    with pytest.raises(DataError, match="field 'steps'"):
        Recipe.from_json('{"steps": 3}')
    with pytest.raises(DataError, match="Cannot read"):
        Recipe.load(tmp_path / "missing.json")


def test_recipe_from_template():
    from workbench.core.templates import TemplateSpec

    spec = TemplateSpec.model_validate(
        {
            "id": "t",
            "vertical": "finance",
            "name": {"zh": "测", "en": "T"},
            "description": {"zh": "测", "en": "T"},
            "task": "classification",
            "columns": {"text": "text", "label": "label"},
            "labels": ["正面", "负面", "中性"],
            "label_aliases": {"正面": ["好评", "positive"]},
            "prompt": {"system": {"zh": "分类", "en": "Classify"}, "user": "{text}"},
            "cleaning": [
                {"op": "trim_whitespace"},
                {"op": "sensitive_terms", "params": {"columns": ["text"]}},
                {"op": "normalize_labels", "params": {"column": "label"}},
            ],
            "sensitive_terms": ["机密"],
            "hyperparameters": {"epochs": {"default": 1}},
            "metrics": ["accuracy"],
            "sample_data": "sample.csv",
        }
    )
    recipe = Recipe.from_template(spec)
    assert [s.op for s in recipe.steps] == ["trim_whitespace", "sensitive_terms", "normalize_labels"]
    assert recipe.steps[1].params["terms"] == ["机密"]
    assert recipe.steps[2].params["labels"] == ["正面", "负面", "中性"]
    out, _ = recipe.apply(frame(text=[" 机密 "], label=["positive"]))
    assert col(out) == ["**"] and col(out, "label") == ["正面"]


def test_progress_and_cancel():
    calls = []
    Recipe(steps=default_steps()).apply(sample(), progress=lambda d, t: calls.append((d, t)))
    assert calls == [(i, 9) for i in range(10)]

    seen = []

    def cancelled():
        return len(seen) >= 2

    with pytest.raises(Cancelled, match="before step 3 of 9"):
        Recipe(steps=default_steps()).apply(sample(), progress=lambda d, t: seen.append(d) if d else None, cancelled=cancelled)
    assert seen == [1, 2]


def test_reports_are_json_serialisable():
    _, reports = Recipe(steps=default_steps()).apply(sample())
    for r in reports:
        assert StepReport.model_validate_json(r.model_dump_json()) == r


def test_normalize_matches_unicodedata_on_mixed_text():
    import unicodedata

    texts = ["ＡＢＣ１２３，", "café", "cafe\u0301", "한국어 텍스트", "\u1100\u1161\u11a8", "ﬁ①½", "ｶﾞｷﾞ", "Å\u212b", "中文。", "x\u0323\u0307"]
    for form in ("NFKC", "NFC", "NFD", "NFKD"):
        out, _ = run(frame(text=texts), "normalize_unicode", form=form, keep_cjk_punctuation=False)
        assert col(out) == [unicodedata.normalize(form, t) for t in texts], form

"""Files shaped like the organisations' own exports, for the tests of every layer: a hospital's
departments, case facts in nested GB18030 JSONL, coded rows, sentences with several labels."""

from __future__ import annotations

import csv
import json

import pandas as pd


# a hospital's own departments: eleven, none of them one of the template's eight
DEPARTMENTS = ["肝病科", "消化科", "心血管科", "呼吸科", "神经内科", "内分泌科", "肾内科", "风湿免疫科",
               "血液科", "感染科", "老年病科"]


COMPLAINTS = ["反复{0}不适{1}天，伴乏力", "{0}相关症状持续{1}周，夜间加重", "体检发现{0}指标异常{1}个月",
              "{0}方面的老毛病又犯了，这{1}天明显加重", "近{1}天出现{0}症状，门诊就诊咨询"]


def hospital_export(path, per_label=14, three_row_label="老年病科", spellings=("消化科", "消化科 ", "消化 科")):
    """A hospital's export: its own departments, one with only 3 rows, one spelled three ways."""
    rows = []
    for d in DEPARTMENTS:
        n = 3 if d == three_row_label else per_label
        for i in range(n):
            label = spellings[i % len(spellings)] if d == "消化科" else d
            rows.append({"就诊号": f"MZ{len(rows):05d}", "主诉内容": COMPLAINTS[i % 5].format(d[:2], i + 2),
                         "科别": label})
    pd.DataFrame(rows).to_csv(path, index=False, encoding="utf-8-sig")
    return path


CHARGES = ["盗窃", "故意伤害", "[走私、贩卖、运输、制造]毒品", "诈骗"]


def cail_like(path, n=48, one_line=True):
    """A GB18030 JSONL of case facts: the charge sits in meta.accusation, a list; some cases have two."""
    lines = []
    for i in range(n):
        charge = CHARGES[i % len(CHARGES)]
        accusation = [charge] if i % 12 else [charge, "寻衅滋事"]
        rec = {"fact": f"某市人民检察院指控：被告人张×{i}于2016年{i % 12 + 1}月实施了{charge}行为，案值{i * 100}元。",
               "meta": {"relevant_articles": [264 + i % 4], "accusation": accusation, "punish_of_money": i * 100,
                        "criminals": [f"张×{i}"],
                        "term_of_imprisonment": {"death_penalty": False, "imprisonment": i % 36}}}
        lines.append(json.dumps(rec, ensure_ascii=False) if one_line else json.dumps(rec, ensure_ascii=False, indent=2))
    path.write_bytes(("\n".join(lines) + "\n").encode("gb18030"))
    return path


def coded_rows(path, n=60, wrap=False, pretty=False):
    """A JSON array of [text, code] rows, the codes' names in a README elsewhere."""
    words = {0: "大跌", 1: "横盘", 2: "大涨"}
    rows = [[f"今天这只股票第{i}次{words[i % 3]}，{'真难受' if i % 3 == 0 else '继续观察'}", i % 3] for i in range(n)]
    if wrap:
        rows = [[r] for r in rows]
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=2 if pretty else None), encoding="utf-8")
    return path


def sentences_jsonl(path, n=90, fields=("sentence", "labels")):
    """Sentences of divorce cases, most naming no article: ``labels`` an empty list on two rows of three."""
    tags = ["婚后有子女", "限制行为能力子女抚养", "有夫妻共同财产", "支付抚养费"]
    lines = []
    for i in range(n):
        labs = [] if i % 3 else [tags[i % 4]] + ([tags[(i + 1) % 4]] if i % 12 == 0 else [])
        text = f"第{i}句：原告与被告于{2000 + i % 20}年登记结婚，{'、'.join(labs) or '庭审中'}，双方陈述{i * 7 % 13}项事实。"
        lines.append(json.dumps({fields[0]: text, fields[1]: labs}, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


MULTI_CHARGES = ["盗窃", "故意伤害", "诈骗", "寻衅滋事", "抢劫"]


def charges_jsonl(path, n=80):
    """GB18030 JSONL, meta.accusation a list; every fourth case has two charges, one a rare third."""
    lines = []
    for i in range(n):
        first = MULTI_CHARGES[i % 3]
        acc = [first] if i % 4 else [first, "寻衅滋事"]
        if i % 20 == 7:
            acc = acc + ["抢劫"]
        rec = {"fact": f"某市人民检察院指控：被告人王×{i}于2016年实施了{'、'.join(acc)}行为，案值{i * 37}元。",
               "meta": {"accusation": acc, "term": i % 30}}
        lines.append(json.dumps(rec, ensure_ascii=False))
    path.write_bytes(("\n".join(lines) + "\n").encode("gb18030"))
    return path


TAGS = ["公司", "外国", "金融市场", "宏观", "行业"]


def tags_csv(path, n=70, sep=" "):
    """A news export: one column of text, one of space-separated topic tags (one to three)."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["新闻", "标签"])
        for i in range(n):
            tags = [TAGS[i % 5]] + ([TAGS[(i + 2) % 5]] if i % 3 == 0 else []) + (["行业"] if i % 7 == 0 else []) \
                + (["港股"] if i % 10 == 3 else [])
            w.writerow([f"第{i}条：{'、'.join(tags)}相关消息，市场关注度上升{i % 9}个百分点。",
                        sep.join(dict.fromkeys(tags))])
    return path

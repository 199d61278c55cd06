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


# A bank's customer-service question pairs: two ways of asking the same thing (1) or two
# different questions (0), as a paraphrase set is exported: tab-separated, no header line, the
# suffix .data, and a backspace (\x08) left before some questions by the system they came from.
BANK_ASKS = ["{0}怎么办理", "我的{0}为什么还没到账", "{0}需要带什么证件", "怎么查询{0}的进度", "{0}可以提前还吗",
             "为什么我的{0}被冻结了", "{0}的额度怎么提高", "{0}手续费是多少", "在手机上能办{0}吗", "{0}逾期了会怎样"]
BANK_REPHRASED = ["{0}要怎么办理", "{0}一直没有到账是什么原因", "办{0}要准备哪些证件", "{0}办到哪一步了在哪里查",
                  "{0}能不能提前还款", "{0}怎么突然冻结了", "怎样提升{0}额度", "办理{0}收多少手续费",
                  "{0}能在手机银行办吗", "{0}过了还款日会有什么影响"]
BANK_THINGS = ["借呗", "信用卡", "房贷", "转账", "分期", "储蓄卡", "贷款", "理财", "车贷", "临时额度"]
BANK_OPENINGS = ["", "请问", "你好，", "麻烦问下，"]


def bank_question_pairs(path, n=300, controls=16):
    """``n`` rows of question, question, 0/1 (half of each), tab-separated without a header, in
    UTF-8; ``controls`` of the first questions start with a backspace."""
    lines = []
    for i in range(n):
        thing, ask = BANK_THINGS[i % len(BANK_THINGS)], i // len(BANK_THINGS) % len(BANK_ASKS)
        block = i // (len(BANK_THINGS) * len(BANK_ASKS))
        first = BANK_OPENINGS[block % len(BANK_OPENINGS)] + BANK_ASKS[ask].format(thing)
        same = i % 2 == 0
        other = (BANK_OPENINGS[(block + 1) % len(BANK_OPENINGS)]
                 + BANK_REPHRASED[ask if same else (ask + 3) % len(BANK_ASKS)].format(thing))
        lines.append(("\x08" if i < controls else "") + f"{first}\t{other}\t{1 if same else 0}")
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write("\n".join(lines) + "\n")
    return path


# A bank's complaint log with its own categories (none of them a template's), as a service desk
# exports it: free text around a category's own words, odd spacing and full-width digits, a junk
# row, and some rows filed under the wrong category (the label review's tests find them).
COMPLAINT_WORDS = {
    "信用卡年费": ["信用卡年费", "年费扣款", "免年费政策", "白金卡年费"],
    "贷款利率": ["房贷利率", "贷款利息", "利率上浮", "LPR调整"],
    "网点服务": ["柜台排队", "网点大堂经理", "柜员态度", "营业厅等候"],
    "手机银行故障": ["手机银行闪退", "APP登录失败", "验证码收不到", "手机银行转圈"],
    "理财亏损": ["理财产品净值", "基金亏损", "理财到期收益", "保本理财"],
    "转账延迟": ["跨行转账", "汇款没到账", "转账延迟", "对方未收到款"],
}
COMPLAINT_FRAMES = ["客户来电反映{0}的问题，{1}，要求尽快处理", "{1}，客户对{0}非常不满，已登记工单",
                    "关于{0}：客户称{1}，希望给个说法", "客户在{2}反映{0}，{1}", "投诉{0}，{1}，这是第{3}次反映"]
COMPLAINT_DETAILS = ["已经等了{3}天", "前后打了{3}次客服电话", "金额约{3}00元", "涉及{3}个账户", "上周{3}号开始出现"]
COMPLAINT_PLACES = ["电话客服", "微信公众号", "网点现场", "12378热线"]


def complaint_log(path, per_label=40, flips=12, seed=7):
    """A CSV (工单内容, 投诉类别) of ``per_label`` complaints per category, ``flips`` of them filed
    under another category; returns ``{text: true category}`` of the misfiled rows."""
    import random

    rng = random.Random(seed)
    rows = []
    for label, words in COMPLAINT_WORDS.items():
        for i in range(per_label):
            detail = COMPLAINT_DETAILS[rng.randrange(5)].format(0, 0, 0, rng.randint(2, 9))
            text = COMPLAINT_FRAMES[i % 5].format(words[i % 4], detail, COMPLAINT_PLACES[rng.randrange(4)],
                                                  rng.randint(2, 5))
            text = f"{i:03d}号工单 " + text
            if i % 9 == 0:  # an agent who types full-width digits and doubled spaces
                text = text.replace("号工单 ", "号工单  ").translate(str.maketrans("0123456789", "０１２３４５６７８９"))
            rows.append([text, label if i % 11 else label + " "])
    misfiled = {}
    labels = list(COMPLAINT_WORDS)
    for k in rng.sample(range(len(rows)), flips):
        true = rows[k][1].strip()
        rows[k][1] = rng.choice([x for x in labels if x != true])
        misfiled[rows[k][0]] = true
    rows.append(["？？", "网点服务"])  # junk: too short, dropped by the recipe
    rng.shuffle(rows)
    with open(path, "w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["工单内容", "投诉类别"])
        w.writerows(rows)
    return misfiled

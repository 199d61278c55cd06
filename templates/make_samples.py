"""Regenerate the sample datasets of the built-in templates.

    python templates/make_samples.py            # rewrite the files beside each template.yaml
    python templates/make_samples.py OUT_DIR    # write OUT_DIR/<template id>/<file> instead

The data is synthetic and deterministic (every template has its own fixed seed), so a
run reproduces the committed files byte for byte. Standard library only.

Each file is built in two passes:

1. clean rows, composed from fragment lists so that the label (or the answer) follows
   systematically from the text (or the question's entities) without being a copy of it;
2. dirt like a real export: exact and near duplicates, blank cells, mobile numbers,
   18-digit ID numbers with valid check digits, bank card numbers that pass the Luhn
   check, e-mail addresses, full-width characters, stray whitespace, a few over-long
   rows, label spelling variants, labels outside the set and a few sensitive terms.

The encodings differ on purpose, as they do in the field: finance_sentiment is UTF-8
with a BOM (an Excel export), medical_triage is GB18030, the others are plain UTF-8.
"""

from __future__ import annotations

import csv
import io
import random
import sys
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------
# Dirt helpers
# ---------------------------------------------------------------------------------

ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
ID_CODES = "10X98765432"
AREA_CODES = ("110101", "110105", "310104", "310115", "440106", "440305", "330106",
              "320102", "510107", "420111", "610113", "370202", "500103", "120101")


def id_check_digit(first17: str) -> str:
    """GB 11643-1999: ISO 7064 MOD 11-2 check character."""
    return ID_CODES[sum(int(c) * w for c, w in zip(first17, ID_WEIGHTS)) % 11]


def make_id_number(rng: random.Random) -> str:
    born = date(1950, 1, 1) + timedelta(days=rng.randrange(0, 365 * 55))
    first17 = rng.choice(AREA_CODES) + born.strftime("%Y%m%d") + f"{rng.randrange(0, 1000):03d}"
    return first17 + id_check_digit(first17)


def make_phone(rng: random.Random) -> str:
    return "1" + rng.choice("3456789") + "".join(rng.choice("0123456789") for _ in range(9))


def luhn_check_digit(body: str) -> str:
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c)
        if i % 2 == 0:  # these positions are doubled once the check digit is appended
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return str((10 - total % 10) % 10)


def make_bank_card(rng: random.Random) -> str:
    prefix = rng.choice(("622848", "621700", "622202", "621226", "622588", "623668"))
    length = rng.choice((16, 19))
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + luhn_check_digit(body)


def make_email(rng: random.Random) -> str:
    user = rng.choice(("zhang", "wang", "li", "chen", "liu", "yang", "zhao", "huang", "zhou", "wu"))
    user += rng.choice(("", ".", "_")) + rng.choice(("wei", "fang", "na", "min", "jing", "lei", "qiang"))
    user += str(rng.randrange(1, 999)) if rng.random() < 0.6 else ""
    return user + "@" + rng.choice(("qq.com", "163.com", "126.com", "sina.com", "foxmail.com", "outlook.com"))


def to_fullwidth(text: str) -> str:
    """ASCII letters, digits and punctuation to their full-width forms, spaces to U+3000."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch == " ":
            out.append("\u3000")
        elif 0x21 <= o <= 0x7E:
            out.append(chr(o + 0xFEE0))
        else:
            out.append(ch)
    return "".join(out)


def near_variant(rng: random.Random, text: str) -> str:
    """The same text as typed again: other spaces, other punctuation widths."""
    kind = rng.randrange(4)
    if kind == 0:
        return text.replace("，", ", ").replace("。", ". ", 1)
    if kind == 1:
        cut = rng.randrange(1, max(2, len(text) - 1))
        return text[:cut] + " " + text[cut:]
    if kind == 2:
        return to_fullwidth(text).replace("，", "，\u3000", 1)
    return text.replace("，", " ，", 1) + " "


def pad_whitespace(rng: random.Random, text: str) -> str:
    return rng.choice(("  ", " ", "\u3000", "\t", "")) + text + rng.choice((" ", "   ", "\u3000", " \t", "  "))


def pick(rng: random.Random, seq):
    return seq[rng.randrange(len(seq))]


def fill(rng: random.Random, pattern: str, slots: dict) -> str:
    """Format ``pattern``, drawing each named slot from ``slots`` (a list or a callable)."""
    values = {}
    for name, src in slots.items():
        if "{" + name + "}" in pattern:
            values[name] = src(rng) if callable(src) else pick(rng, src)
    return pattern.format(**values)


def sample_indices(rng: random.Random, n: int, frac: float, minimum: int = 2) -> list[int]:
    k = max(minimum, round(n * frac))
    return sorted(rng.sample(range(n), k))


# ---------------------------------------------------------------------------------
# Generic dirt pass
# ---------------------------------------------------------------------------------


def dirty(rng: random.Random, rows: list[dict], text_col: str, *, label_col: str | None = None,
          blank_cols: tuple[str, ...] = (), aliases: dict[str, list[str]] | None = None,
          unknown_labels: tuple[str, ...] = (), pii_phrases: dict | None = None,
          sensitive: tuple[str, ...] = (), long_maker=None, long_col: str | None = None) -> list[dict]:
    """Make a clean list of row dicts look like a real export. Returns a new list."""
    n = len(rows)
    rows = [dict(r) for r in rows]
    pii_phrases = pii_phrases or {}

    def append(i: int, col: str, extra: str) -> None:
        base = rows[i][col].rstrip("。")
        if base and extra[0] not in "，（；。？":
            base += "，"
        rows[i][col] = base + extra

    # over-long rows (a whole document pasted into one cell)
    if long_maker:
        for i in sample_indices(rng, n, 0.0, minimum=3):
            rows[i][long_col or text_col] = long_maker(rng, rows[i])

    # label spelling variants and labels outside the set
    if label_col and aliases:
        for i in sample_indices(rng, n, 0.05):
            canon = rows[i][label_col]
            rows[i][label_col] = pick(rng, aliases[canon])
        for i in sample_indices(rng, n, 0.01):
            rows[i][label_col] = pick(rng, unknown_labels)
    # personal data typed into the free text
    for kind, frac, maker in (("phone", 0.025, make_phone), ("id_card", 0.012, make_id_number),
                              ("bank_card", 0.006, make_bank_card), ("email", 0.008, make_email)):
        col, phrases = pii_phrases.get(kind, (text_col, ["，联系方式：{}。"]))
        for i in sample_indices(rng, n, frac):
            append(i, col, pick(rng, phrases).format(maker(rng)))
    # sensitive terms
    for i in sample_indices(rng, n, 0.015):
        append(i, text_col, pick(rng, sensitive))
    # full-width characters and stray whitespace
    cols = [c for c in rows[0] if c in (text_col, *blank_cols)] or [text_col]
    for i in sample_indices(rng, n, 0.025):
        col = pick(rng, cols)
        rows[i][col] = to_fullwidth(rows[i][col])
    for i in sample_indices(rng, n, 0.03):
        col = pick(rng, cols)
        rows[i][col] = pad_whitespace(rng, rows[i][col])
    # blank cells (some only whitespace, as spreadsheets leave them)
    for col in blank_cols:
        for i in sample_indices(rng, n, 0.012):
            rows[i][col] = pick(rng, ("", "", "", " ", "\u3000"))
    # near duplicates and exact duplicates
    extra = []
    for i in sample_indices(rng, n, 0.02):
        twin = dict(rows[i])
        twin[text_col] = near_variant(rng, twin[text_col])
        extra.append(twin)
    for i in sample_indices(rng, n, 0.04):
        extra.append(dict(rows[i]))
    for r in extra:
        rows.insert(rng.randrange(len(rows) + 1), r)
    return rows


def write_csv(path: Path, header: list[str], rows: list[dict], encoding: str) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(header)
    for r in rows:
        w.writerow([r.get(h, "") for h in header])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue().encode(encoding))


def unique_rows(rng: random.Random, n: int, make_row, key) -> list[dict]:
    """Draw ``n`` rows whose ``key`` differs (the dirt pass adds the duplicates)."""
    seen, rows, tries = set(), [], 0
    while len(rows) < n:
        tries += 1
        if tries > n * 50:
            raise RuntimeError("fragment lists too small for the requested row count")
        r = make_row(rng)
        k = key(r)
        if k in seen:
            continue
        seen.add(k)
        rows.append(r)
    return rows


# ---------------------------------------------------------------------------------
# finance_sentiment: financial news sentiment (classification)
# ---------------------------------------------------------------------------------

FIN_PREFIX = ["华信", "东方", "远航", "中科", "宏达", "金桥", "瑞丰", "海润", "天合", "恒通", "鼎盛", "新元",
              "博远", "长江", "星辰", "万盛", "嘉禾", "凯旋", "广源", "北辰", "南洋", "齐鲁", "蓝海", "安泰"]
FIN_INDUSTRY = ["科技", "银行", "证券", "药业", "新能源", "汽车", "食品", "地产", "电子", "化工", "保险",
                "物流", "传媒", "钢铁", "半导体", "光伏", "医疗", "农业"]
FIN_SUFFIX = ["股份", "集团", "", "控股"]
FIN_PERIOD = ["2023年", "2024年一季度", "2024年上半年", "前三季度", "2023年度", "第二季度", "去年全年", "本季度"]
FIN_METRIC = ["净利润", "营业收入", "扣非净利润", "经营性现金流", "订单金额", "销量", "保费收入",
              "手续费收入", "归母净利润", "海外收入"]
FIN_PRODUCT = ["新型电池", "创新药", "智能座舱系统", "储能设备", "车规级芯片", "疫苗", "工业机器人",
               "高端光刻胶", "乳制品", "医疗影像设备"]
FIN_PROJECT = ["城市轨道交通", "数据中心", "海上风电", "智慧医院", "特高压输电", "光伏电站", "港口物流"]
FIN_SOURCE = ["证券时报", "上海证券报", "财联社", "中国证券报", "新华财经", "第一财经", "经济参考报", "公司公告"]
FIN_MEETING = ["2023年度股东大会", "临时股东大会", "业绩说明会", "董事会会议", "投资者开放日活动"]
FIN_PERSON = ["张某", "王某", "李某", "陈某", "刘某", "赵某"]


def fin_company(rng):
    return pick(rng, FIN_PREFIX) + pick(rng, FIN_INDUSTRY) + pick(rng, FIN_SUFFIX)


FIN_SLOTS = {
    "c": fin_company, "c2": fin_company, "partner": fin_company,
    "period": FIN_PERIOD, "metric": FIN_METRIC, "product": FIN_PRODUCT, "project": FIN_PROJECT,
    "meeting": FIN_MEETING, "person": FIN_PERSON, "src": FIN_SOURCE,
    "pct": lambda r: str(r.randrange(12, 180)), "pct2": lambda r: str(r.randrange(85, 99)),
    "pct3": lambda r: str(r.choice((1, 2, 3, 5))), "amt": lambda r: str(r.choice((1.2, 2, 3.5, 5, 8, 12, 20, 36, 50))),
    "div": lambda r: str(r.choice((1.5, 2, 3, 4.2, 5, 6))), "n": lambda r: str(r.randrange(3, 12)),
    "date2": lambda r: f"{r.randrange(1, 13)}月{r.randrange(1, 29)}日",
}

FIN_OPENER = ["", "", "", "据{src}报道，", "公告显示，", "记者从交易所获悉，", "{date2}晚间，", "最新消息，",
              "盘后公告称，", "据{src}消息，"]

FIN_EVENTS = {
    "正面": [
        "{c}{period}{metric}同比增长{pct}%，超出市场预期",
        "{c}{period}{metric}同比大增{pct}%，创历史新高",
        "{c}中标{amt}亿元{project}项目",
        "{c}拟以不超过{amt}亿元回购公司股份，彰显发展信心",
        "{c}获{n}家券商上调评级至“买入”",
        "{c}自主研发的{product}正式获批上市",
        "{c}与{partner}签署战略合作协议，合同金额约{amt}亿元",
        "{c}控股股东计划增持公司股份，金额不低于{amt}亿元",
        "{c}宣布每10股派发现金红利{div}元，分红比例大幅提升",
        "{c}股价放量大涨，盘中一度涨停",
        "{c}{product}订单持续放量，产能利用率提升至{pct2}%",
        "{c}成功发行{amt}亿元债券，融资成本显著下降",
        "{c}扭亏为盈，{period}实现{metric}{amt}亿元",
    ],
    "负面": [
        "{c}{period}{metric}同比下降{pct}%，低于市场预期",
        "{c}{period}由盈转亏，亏损{amt}亿元",
        "{c}因涉嫌信息披露违规被证监会立案调查",
        "{c}控股股东拟减持不超过{pct3}%公司股份",
        "{c}出现{amt}亿元债务逾期，多个银行账户被冻结",
        "{c}收到交易所警示函，相关责任人被通报批评",
        "{c}旗下{product}因质量问题被全面召回",
        "{c}多名高管集体辞职，公司治理引发担忧",
        "{c}股价连续跌停，市值蒸发{amt}亿元",
        "{c}年报被会计师出具无法表示意见的审计报告",
        "{c}主要生产基地发生安全事故，已停产整顿",
        "{c}核心客户流失，{period}{metric}大幅下滑",
        "{c}被列为失信被执行人，涉及金额{amt}亿元",
    ],
    "中性": [
        "{c}将于{date2}召开{meeting}",
        "{c}发布关于变更办公地址的公告",
        "{c}公告董事会完成换届选举",
        "{c}{period}{metric}与上年同期基本持平",
        "{c}披露{period}报告，业绩与市场预期一致",
        "{c}回复交易所问询函，就相关事项作出说明",
        "{c}拟更名为{c2}，主营业务保持不变",
        "{c}聘任{person}为公司证券事务代表",
        "{c}股票将于{date2}起正常交易",
        "{c}召开{meeting}，介绍公司{period}经营情况",
        "{c}完成工商变更登记，注册资本不变",
        "{c}股价窄幅震荡，成交量与前一交易日相当",
        "{c}公告{person}因个人原因辞去独立董事职务，不影响董事会正常运作",
    ],
}
FIN_TAILS = {
    "正面": ["，业内人士普遍看好其后续增长。", "，公司表示将继续扩大产能。", "，多家机构认为业绩拐点已现。",
           "，消息公布后股价应声上涨。", "。", "，前景向好。", "，市场情绪明显改善。"],
    "负面": ["，投资者需警惕相关风险。", "，股价应声下跌。", "，市场对此反应悲观。", "，公司面临较大经营压力。",
           "。", "，后续影响仍存不确定性。", "，多家机构下调其盈利预测。"],
    "中性": ["，具体以公司后续公告为准。", "。", "，对公司经营无重大影响。", "，公司日常经营正常。",
           "，详情请见交易所网站。", "，公司表示各项业务平稳推进。"],
}
FIN_LABELS = ["正面", "中性", "负面"]
FIN_ALIASES = {
    "正面": ["积极", "利好", "正面 ", "positive", "Positive", "正向"],
    "中性": ["中立", "一般", "中性 ", "neutral", "Neutral"],
    "负面": ["消极", "利空", "负面 ", "negative", "Negative", "负向"],
}


def make_finance_sentiment(rng: random.Random) -> tuple[list[str], list[dict]]:
    start = date(2023, 1, 3)

    def row(r):
        label = pick(r, FIN_LABELS)
        text = fill(r, pick(r, FIN_OPENER), FIN_SLOTS) + fill(r, pick(r, FIN_EVENTS[label]), FIN_SLOTS)
        if label != "中性" and r.random() < 0.2:  # a routine item in the same dispatch
            text += "；同时，" + fill(r, pick(r, FIN_EVENTS["中性"]), FIN_SLOTS).split("，")[0]
        text += pick(r, FIN_TAILS[label])
        day = start + timedelta(days=r.randrange(0, 600))
        shown = day.isoformat() if r.random() < 0.9 else f"{day.year}/{day.month}/{day.day}"
        return {"发布日期": shown, "来源": pick(r, FIN_SOURCE), "新闻内容": text, "情感倾向": label}

    rows = unique_rows(rng, 820, row, key=lambda x: x["新闻内容"])

    def long_text(r, base):
        parts = [base["新闻内容"].rstrip("。"), "。以下为公告全文："]
        k = 1
        while sum(map(len, parts)) < 1100:
            parts.append(f"{k}、" + fill(r, pick(r, FIN_EVENTS[base["情感倾向"]]), FIN_SLOTS) + "；"
                         "本公司及董事会全体成员保证信息披露的内容真实、准确、完整，没有虚假记载、误导性陈述或重大遗漏。")
            k += 1
        return "".join(parts)

    rows = dirty(
        rng, rows, "新闻内容", label_col="情感倾向", blank_cols=("新闻内容", "情感倾向"),
        aliases=FIN_ALIASES, unknown_labels=("待定", "未知", "混合", "无法判断"),
        pii_phrases={"phone": ("新闻内容", ["，投资者热线{}。", "（联系人电话：{}）", "，咨询电话{}。"]),
                     "id_card": ("新闻内容", ["，举报人身份证号{}。", "（经办人身份证号：{}）"]),
                     "bank_card": ("新闻内容", ["，认购款请汇入账号{}。"]),
                     "email": ("新闻内容", ["，投资者邮箱{}。", "（来稿邮箱：{}）"])},
        sensitive=("，群里有人称这是内幕消息。", "，有营销号宣称稳赚不赔。", "，有人借机推销保本保息产品。",
                   "，股吧流传翻倍股名单。"),
        long_maker=long_text,
    )
    return ["发布日期", "来源", "新闻内容", "情感倾向"], rows


# ---------------------------------------------------------------------------------
# medical_triage: patient complaint -> department (classification)
# ---------------------------------------------------------------------------------

MED_DURATION = ["三天", "一周", "两天", "半个月", "一个多月", "，昨天开始的", "，今天早上开始", "反复半年", "十来天", "两三天"]
MED_SHARED = ["吃了药没见好转", "晚上加重", "以前没有这种情况", "有高血压病史", "自己在家观察了几天",
              "不知道挂什么科", "想尽快看一下", "工作忙一直拖着", "没有药物过敏史", ""]
MED_SYMPTOMS = {
    "内科": ["发热咳嗽", "胸闷气短", "反复胃痛反酸", "腹泻不止", "头晕乏力", "血压一直偏高", "心慌心悸",
           "恶心呕吐", "空腹血糖偏高", "上腹胀痛", "咳痰带血丝", "口干多饮多尿", "活动后喘不上气"],
    "外科": ["摔伤后手腕肿痛", "右下腹持续疼痛", "被刀割伤手指流血不止", "搬东西扭伤了腰", "膝盖撞伤后肿胀",
           "脚踝扭伤不能走路", "肛门疼痛便血", "脖子上摸到一个包块", "被开水烫伤手臂起泡", "骑车摔倒小腿擦伤化脓",
           "腹股沟有个鼓包站着明显", "背上长了个脓包红肿"],
    "儿科": ["发烧到{t}度", "咳嗽有痰", "拉肚子一天好几次", "不爱吃饭", "夜里哭闹睡不好", "身上出疹子还发烧",
           "吃奶后吐奶", "流鼻涕打喷嚏", "嗓子红肿不肯吃东西", "肚子疼一阵一阵的"],
    "妇产科": ["月经不规律", "下腹坠痛", "白带异常有异味", "停经{w}天查出怀孕", "怀孕{w}周有少量出血", "痛经严重",
            "想做孕早期产检", "同房后出血", "经量突然变多", "产后恶露一直不干净"],
    "皮肤科": ["皮肤起红疹很痒", "脸上反复长痘", "脚趾缝脱皮发痒", "手肘有湿疹", "头发大把脱落", "全身起风团瘙痒",
            "手上长了几个疣", "晒后皮肤发红脱皮", "脸上长斑", "腰上起了一串水疱很疼"],
    "眼科": ["眼睛红痒有分泌物", "视力下降看不清", "眼前有黑影飘动", "眼睛干涩发酸", "眼皮长了个硬结",
           "铁屑溅进眼睛", "看东西重影", "眼睛胀痛伴头痛", "迎风流泪"],
    "耳鼻喉科": ["耳鸣", "听力下降", "鼻塞流涕", "喉咙痛吞咽困难", "反复流鼻血", "声音嘶哑", "耳朵流脓",
              "睡觉打鼾憋气", "总觉得喉咙里有异物", "鼻子闻不到味道"],
    "口腔科": ["牙疼", "刷牙时牙龈出血", "智齿发炎脸都肿了", "口腔溃疡反复发作", "牙齿松动", "想补牙",
            "想洗牙", "吃冷热东西牙齿酸痛", "嘴张不开一张嘴就响", "假牙戴着磨得疼"],
}
MED_WHO = {
    "儿科": ["孩子{a}岁，", "宝宝{m}个月，", "我家小孩{a}岁，", "儿子{a}岁，", "女儿{a}岁，"],
    "妇产科": ["女，{adult}岁，", "本人女性，", "我是女生，{adult}岁，", ""],
    "_": ["", "本人{adult}岁，", "男，{adult}岁，", "女，{adult}岁，", "我妈{old}岁了，", "我爸{old}岁，", "患者，"],
}
MED_ASK = ["请问挂什么科？", "应该看哪个科？", "", "需要去医院吗？", "挂号挂哪个科室？", ""]
MED_SLOTS = {"a": lambda r: str(r.randrange(1, 13)), "m": lambda r: str(r.randrange(2, 12)),
             "adult": lambda r: str(r.randrange(18, 60)), "old": lambda r: str(r.randrange(60, 86)),
             "t": lambda r: r.choice(("38.5", "39", "39.2", "38", "40")), "w": lambda r: str(r.randrange(6, 30))}
MED_LABELS = list(MED_SYMPTOMS)
MED_ALIASES = {
    "内科": ["普通内科", "内科门诊", "内科 ", "internal medicine"],
    "外科": ["普外科", "外科门诊", "外科 ", "surgery"],
    "儿科": ["小儿科", "儿科门诊", "儿科 ", "pediatrics"],
    "妇产科": ["妇科", "产科", "妇产科 ", "gynecology"],
    "皮肤科": ["皮肤性病科", "皮肤科 ", "dermatology"],
    "眼科": ["眼科门诊", "眼科 ", "ophthalmology"],
    "耳鼻喉科": ["耳鼻咽喉科", "耳鼻喉", "ENT"],
    "口腔科": ["牙科", "口腔", "口腔科 ", "dental"],
}


def make_medical_triage(rng: random.Random) -> tuple[list[str], list[dict]]:
    def row(r):
        dept = pick(r, MED_LABELS)
        who = fill(r, pick(r, MED_WHO.get(dept, MED_WHO["_"])), MED_SLOTS)
        symptoms = r.sample(MED_SYMPTOMS[dept], 2 if r.random() < 0.3 else 1)
        text = who + fill(r, "，".join(symptoms), MED_SLOTS)
        if not symptoms[-1].startswith("想"):  # a wish has no duration
            text += pick(r, MED_DURATION)
        shared = pick(r, MED_SHARED)
        text += ("，" + shared if shared else "") + "。" + pick(r, MED_ASK)
        return {"主诉": text, "科室": dept}

    rows = unique_rows(rng, 860, row, key=lambda x: x["主诉"])
    for k, r in enumerate(rows, start=1):  # a register number, as a hospital export has
        r["序号"] = f"MZ{240000 + k:06d}"

    def long_text(r, base):
        parts = [base["主诉"], "既往情况补充如下："]
        while sum(map(len, parts)) < 1050:
            parts.append(fill(r, pick(r, MED_SYMPTOMS[base["科室"]]), MED_SLOTS) + pick(r, MED_DURATION) + "，"
                         + "在社区医院看过，做过血常规，医生开了药，按时吃了，但效果不明显，家里人很担心，"
                         "这段时间饮食睡眠都受到影响，也在网上查了很多资料，越看越紧张。")
        return "".join(parts)

    rows = dirty(
        rng, rows, "主诉", label_col="科室", blank_cols=("主诉", "科室"),
        aliases=MED_ALIASES, unknown_labels=("急诊科", "中医科", "不确定", "全科"),
        pii_phrases={"phone": ("主诉", ["，我的电话{}。", "，家属手机{}，麻烦回电。", "（联系电话：{}）"]),
                     "id_card": ("主诉", ["，身份证号{}。", "（就诊人身份证：{}）"]),
                     "bank_card": ("主诉", ["，医保关联卡号{}。"]),
                     "email": ("主诉", ["，检查报告请发到{}。"])},
        sensitive=("，网上说有祖传秘方能根治。", "，有诊所说包治，可信吗？", "，朋友推荐的神医说药到病除。",
                   "，广告说百分百治愈。"),
        long_maker=long_text,
    )
    return ["序号", "主诉", "科室"], rows


# ---------------------------------------------------------------------------------
# legal_case_type: case description -> cause of action (classification)
# ---------------------------------------------------------------------------------

LAW_SURNAME = ["张", "王", "李", "赵", "刘", "陈", "杨", "黄", "周", "吴", "徐", "孙", "马", "朱", "胡", "郭", "何",
               "林", "罗", "高", "郑", "梁", "谢", "宋"]
LAW_CITY = ["北京市朝阳区", "上海市浦东新区", "广州市天河区", "深圳市南山区", "杭州市西湖区", "成都市武侯区",
            "武汉市洪山区", "南京市鼓楼区", "西安市雁塔区", "重庆市渝中区"]
LAW_SLOTS = {
    "p1": lambda r: pick(r, LAW_SURNAME) + "某", "p2": lambda r: pick(r, LAW_SURNAME) + "某某",
    "city": LAW_CITY, "amt": lambda r: str(r.choice((3, 5, 8, 12, 15, 20, 30, 50, 80, 120)) * 10000),
    "wan": lambda r: str(r.choice((80, 120, 150, 230, 310, 460))),
    "y": lambda r: str(r.randrange(2012, 2024)), "mo": lambda r: str(r.randrange(1, 13)),
    "months": lambda r: str(r.choice((3, 6, 12, 24))), "days": lambda r: str(r.randrange(5, 60)),
    "rate": lambda r: str(r.choice((4, 6, 8, 10, 12))),
    "kids": ["婚生一子", "婚生一女", "育有两个孩子", "未生育子女"],
    "co": lambda r: pick(r, ("某科技有限公司", "某物流公司", "某餐饮管理公司", "某建筑工程公司", "某电子厂", "某商贸公司")),
    "road": ["某路口", "某高速公路", "某小区门口", "某国道", "某十字路口"],
    "vehicle": ["小型轿车", "电动自行车", "货车", "摩托车", "出租车"],
    "item": ["手机一部", "电动车一辆", "现金若干", "笔记本电脑一台", "金项链一条", "电缆线若干"],
    "value": lambda r: str(r.choice((2300, 3600, 4800, 6500, 9800, 15000, 26000))),
    "injury": ["轻伤一级", "轻伤二级", "重伤二级", "轻伤"],
    "tool": ["木棍", "啤酒瓶", "拳头", "铁棍", "砖块"],
}
LAW_FACTS = {
    "借款合同纠纷": [
        "原告{p1}诉称，被告{p2}于{y}年{mo}月向其借款{amt}元，约定{months}个月内归还，并出具借条一张，到期后经多次催要未还",
        "{p1}通过银行转账借给{p2}{amt}元，双方约定年利率{rate}%，借款到期后{p2}仅归还部分利息，本金至今未还",
        "被告{p2}向原告某银行{city}支行借款{amt}元用于经营，逾期未按合同约定偿还本息，原告诉请解除借款合同",
        "{p2}以资金周转为由向朋友{p1}借款{amt}元，有微信聊天记录和转账凭证为证，后{p2}拒接电话拒不还款",
        "原告{p1}要求被告{p2}归还借款本金{amt}元及逾期利息，被告辩称已还清但无法提供还款凭证",
    ],
    "离婚纠纷": [
        "原告{p1}与被告{p2}于{y}年登记结婚，{kids}，婚后因性格不合经常争吵，现已分居{months}个月，原告起诉离婚",
        "{p1}称丈夫{p2}婚后长期酗酒并有家庭暴力行为，感情确已破裂，请求判决离婚并由其抚养孩子",
        "原告{p1}与被告{p2}系自由恋爱结婚，{kids}，因被告沉迷赌博，夫妻感情破裂，原告请求离婚并分割夫妻共同财产",
        "{p1}与{p2}婚后在{city}购房一套，现双方感情不和，就离婚后房屋归属及子女抚养权无法达成一致",
        "原告{p1}第二次起诉要求与被告{p2}离婚，双方自上次判决不准离婚后仍分居满一年",
    ],
    "劳动争议": [
        "申请人{p1}于{y}年入职{city}{co}，公司拖欠其{months}个月工资共计{amt}元，且未缴纳社会保险",
        "{p1}在{co}工作期间被公司以业绩不达标为由单方解除劳动合同，{p1}认为属于违法解除，要求支付赔偿金",
        "劳动者{p1}入职{co}后公司一直未与其签订书面劳动合同，{p1}要求支付未签劳动合同的二倍工资差额",
        "{p1}长期在{co}加班，公司未支付加班费，离职后{p1}申请劳动仲裁要求支付加班工资{amt}元",
        "{p1}在{co}上班途中受伤，公司拒绝配合工伤认定并将其辞退，{p1}要求确认劳动关系并支付工伤待遇",
    ],
    "交通事故责任纠纷": [
        "{y}年{mo}月，被告{p2}驾驶{vehicle}在{city}{road}与原告{p1}骑行的电动自行车相撞，致原告受伤，交警认定被告负主要责任",
        "原告{p1}步行通过{road}时被{p2}驾驶的{vehicle}撞伤，住院治疗{days}天，要求被告及保险公司赔偿医疗费误工费",
        "{p2}驾驶{vehicle}追尾{p1}的车辆，造成车辆损坏，交警出具事故认定书认定{p2}负全部责任，双方就维修费赔偿协商不成",
        "被告{p2}酒后驾驶{vehicle}在{road}发生碰撞，致原告{p1}伤残，原告请求赔偿残疾赔偿金、护理费等共计{amt}元",
        "原告{p1}乘坐的{vehicle}与{p2}驾驶的货车发生交通事故，原告要求承保交强险和商业险的保险公司在保险限额内赔偿",
    ],
    "房屋买卖合同纠纷": [
        "原告{p1}与被告{p2}签订房屋买卖合同，约定以{wan}万元购买其位于{city}的住房一套，原告支付定金后被告拒绝过户",
        "{p1}购买{p2}名下房屋并已付清房款{wan}万元，{p2}以房价上涨为由要求加价，拒不配合办理不动产转移登记",
        "买方{p1}因贷款未获批无法按期支付房款，卖方{p2}主张解除房屋买卖合同并没收定金",
        "原告{p1}通过中介购买二手房，入住后发现房屋严重漏水且卖方{p2}隐瞒了该情况，原告要求减少价款并赔偿损失",
        "{p1}与开发商{co}签订商品房买卖合同，开发商逾期交房{months}个月，{p1}要求支付逾期交房违约金",
    ],
    "盗窃罪": [
        "被告人{p2}于{y}年{mo}月趁夜间无人之机，潜入{city}某居民家中，窃得{item}，价值人民币{value}元",
        "被告人{p2}在{city}某商场内趁被害人{p1}不备，从其背包中扒窃{item}，经鉴定价值{value}元",
        "被告人{p2}多次在{city}某小区撬锁盗窃电动车，共窃得财物价值{value}元，后被公安机关抓获",
        "被告人{p2}在某工地秘密窃取{item}，销赃后得款挥霍，案发后退赔被害单位损失{value}元",
        "被告人{p2}利用在{co}工作之便，趁夜间值班时窃取仓库内{item}，价值{value}元",
    ],
    "故意伤害罪": [
        "被告人{p2}因琐事与被害人{p1}发生争执，持{tool}击打{p1}头部，经鉴定{p1}的损伤程度为{injury}",
        "{y}年{mo}月，被告人{p2}在{city}某烧烤店与邻桌{p1}发生口角，用{tool}将其打伤，经法医鉴定为{injury}",
        "被告人{p2}因邻里纠纷对被害人{p1}拳打脚踢，致其肋骨骨折，损伤程度构成{injury}",
        "被告人{p2}酒后在{road}与{p1}发生冲突，持{tool}殴打对方致{injury}，案发后主动投案",
        "被告人{p2}为泄愤纠集他人持{tool}殴打被害人{p1}，致其鼻骨骨折，经鉴定为{injury}",
    ],
    "诈骗罪": [
        "被告人{p2}冒充客服人员以退款为由诱骗被害人{p1}转账，骗取人民币{value}元",
        "被告人{p2}谎称能帮被害人{p1}的子女安排工作，先后收取{p1}“活动经费”{amt}元后失联",
        "被告人{p2}通过网络交友平台虚构身份与被害人{p1}谈恋爱，以投资理财为由骗取其{amt}元",
        "被告人{p2}冒充公检法工作人员，以{p1}涉嫌洗钱为由要求其将存款转入“安全账户”，骗得{amt}元",
        "被告人{p2}虚构出售演唱会门票的事实，收款{value}元后将被害人{p1}拉黑",
    ],
}
LAW_TAILS = {
    "civil": ["，现诉至法院。", "。", "，请求法院依法判决。", "，双方协商未果。", "，原告为此诉至本院。"],
    "criminal": ["，公诉机关指控其行为构成犯罪。", "。", "，案发后被告人如实供述。", "，被害人报警后案发。",
                 "，现由检察院提起公诉。"],
}
LAW_LABELS = list(LAW_FACTS)
LAW_CRIMINAL = ("盗窃罪", "故意伤害罪", "诈骗罪")
LAW_ALIASES = {
    "借款合同纠纷": ["借款纠纷", "借贷纠纷", "借款合同纠纷 "],
    "离婚纠纷": ["离婚", "离婚案件", "离婚纠纷 "],
    "劳动争议": ["劳动纠纷", "劳动争议纠纷", "劳动争议 "],
    "交通事故责任纠纷": ["机动车交通事故责任纠纷", "交通事故纠纷", "交通事故"],
    "房屋买卖合同纠纷": ["房屋买卖纠纷", "房产买卖合同纠纷", "房屋买卖合同纠纷 "],
    "盗窃罪": ["盗窃", "盗窃案", "theft"],
    "故意伤害罪": ["故意伤害", "伤害案", "intentional injury"],
    "诈骗罪": ["诈骗", "诈骗案", "fraud"],
}


def make_legal_case_type(rng: random.Random) -> tuple[list[str], list[dict]]:
    court = ["京0105", "沪0115", "粤0106", "粤0305", "浙0106", "川0107", "鄂0111", "苏0106", "陕0113", "渝0103"]

    def row(r):
        label = pick(r, LAW_LABELS)
        kind = "criminal" if label in LAW_CRIMINAL else "civil"
        text = fill(r, pick(r, LAW_FACTS[label]), LAW_SLOTS) + pick(r, LAW_TAILS[kind])
        year = r.randrange(2019, 2025)
        case_no = f"（{year}）{pick(r, court)}{'刑初' if kind == 'criminal' else '民初'}{r.randrange(100, 30000)}号"
        return {"案号": case_no, "案情描述": text, "案由": label}

    rows = unique_rows(rng, 840, row, key=lambda x: x["案情描述"])

    def long_text(r, base):
        parts = [base["案情描述"].rstrip("。"), "。经审理查明："]
        while sum(map(len, parts)) < 1100:
            parts.append(fill(r, pick(r, LAW_FACTS[base["案由"]]), LAW_SLOTS) + "。上述事实，有当事人陈述、"
                         "书证、证人证言及庭审笔录等证据在案佐证，经庭审质证，本院予以确认。")
        return "".join(parts)

    rows = dirty(
        rng, rows, "案情描述", label_col="案由", blank_cols=("案情描述", "案由"),
        aliases=LAW_ALIASES, unknown_labels=("合同纠纷", "其他", "待定", "民间纠纷"),
        pii_phrases={"phone": ("案情描述", ["，原告联系电话{}。", "（被告手机号：{}）"]),
                     "id_card": ("案情描述", ["，原告公民身份号码{}。", "（被告人身份证号：{}）"]),
                     "bank_card": ("案情描述", ["，款项转入尾号账户{}。", "，涉案银行卡号{}。"]),
                     "email": ("案情描述", ["，送达邮箱{}。"])},
        sensitive=("，当事人称找了关系户能包赢。", "，有人声称可以疏通关系。", "，中介称认识法院内部人员。"),
        long_maker=long_text,
    )
    return ["案号", "案情描述", "案由"], rows


# ---------------------------------------------------------------------------------
# legal_case_type_multi: criminal case facts -> the charges (multi-label classification)
# ---------------------------------------------------------------------------------

CHARGE_FACTS = {
    "盗窃罪": LAW_FACTS["盗窃罪"],
    "诈骗罪": LAW_FACTS["诈骗罪"],
    "故意伤害罪": LAW_FACTS["故意伤害罪"],
    "寻衅滋事罪": [
        "被告人{p2}酒后在{city}某KTV门口无故拦截过往行人，并用{tool}随意殴打路人{p1}",
        "被告人{p2}伙同他人在{city}某夜市强拿硬要摊主财物，并多次辱骂、恐吓摊主{p1}",
        "被告人{p2}因不满被害人{p1}按喇叭，驾车将其逼停后追逐、拦截，并砸坏其车辆",
        "{y}年{mo}月，被告人{p2}在{city}某网吧借故生非，掀翻桌椅、摔砸电脑，致网吧停业",
        "被告人{p2}在{road}纠集多人起哄闹事，随意殴打他人，造成公共场所秩序严重混乱",
    ],
    "抢劫罪": [
        "被告人{p2}持{tool}在{city}某小巷拦住被害人{p1}，以暴力相威胁劫取其{item}",
        "被告人{p2}尾随被害人{p1}至{city}某楼道内，采用捂嘴、推倒等手段抢走其背包，内有现金{value}元",
        "被告人{p2}以介绍工作为名将{p1}骗至出租屋，持刀威逼其交出银行卡并说出密码，取走{value}元",
        "被告人{p2}驾驶摩托车在{road}从被害人{p1}身后强行夺走其挎包，致{p1}摔倒受伤",
    ],
    "危险驾驶罪": [
        "被告人{p2}饮酒后驾驶{vehicle}行驶至{city}{road}时被民警查获，经检测其血液中乙醇含量为{bac}mg/100ml",
        "{y}年{mo}月，被告人{p2}醉酒驾驶{vehicle}在{road}被交警拦停，血液酒精含量{bac}mg/100ml",
        "被告人{p2}在{city}城区道路上驾驶机动车追逐竞驶，车速远超限速，情节恶劣",
        "被告人{p2}酒后驾驶无号牌{vehicle}，在{road}遇民警检查时调头逃跑，后被截获，经鉴定血液酒精含量{bac}mg/100ml",
    ],
    "交通肇事罪": [
        "被告人{p2}驾驶{vehicle}在{city}{road}未按规定让行，与行人{p1}相撞，致{p1}经抢救无效死亡，交警认定被告人负事故全部责任",
        "被告人{p2}驾驶{vehicle}超速行驶至{road}时撞倒骑电动车的{p1}，致其重伤，肇事后弃车逃逸",
        "{y}年{mo}月，被告人{p2}驾驶货车在{road}违章变道，与{p1}驾驶的小型轿车相撞，造成一人死亡、两人受伤",
        "被告人{p2}驾驶{vehicle}闯红灯通过{road}，撞伤正在过人行横道的{p1}，经鉴定{p1}构成重伤二级",
    ],
    "非法拘禁罪": [
        "被告人{p2}因{p1}欠其{amt}元借款未还，伙同他人将{p1}强行带至{city}某宾馆房间看管{days}小时",
        "被告人{p2}为索要赌债，将被害人{p1}关押在某出租屋内，限制其人身自由长达{days}小时",
        "被告人{p2}怀疑员工{p1}偷拿货款，将其锁在{co}仓库内不准离开，直至家属报警",
        "被告人{p2}以讨要工程款为由，将{p1}强行控制在车内并没收其手机，非法拘禁{days}小时",
    ],
    "掩饰、隐瞒犯罪所得、犯罪所得收益罪": [
        "被告人{p2}明知是他人盗窃所得的{item}，仍以明显低于市场的价格收购并转卖牟利",
        "被告人{p2}明知他人实施电信网络诈骗，仍将本人银行卡提供给对方使用并帮助取现{amt}元",
        "被告人{p2}在{city}经营二手手机店，明知来路不明仍多次收购被盗手机，共计价值{value}元",
        "被告人{p2}帮助他人将抢劫所得的{item}转移藏匿，并代为销售，获利{value}元",
    ],
}
CHARGES = list(CHARGE_FACTS)
# charges that come together in real judgements, each with its weight among the rows of several
CHARGE_COMBOS = [
    (("故意伤害罪", "寻衅滋事罪"), 6), (("盗窃罪", "诈骗罪"), 5), (("非法拘禁罪", "故意伤害罪"), 3),
    (("危险驾驶罪", "交通肇事罪"), 3), (("盗窃罪", "掩饰、隐瞒犯罪所得、犯罪所得收益罪"), 3),
    (("抢劫罪", "故意伤害罪"), 2), (("寻衅滋事罪", "非法拘禁罪"), 2), (("诈骗罪", "掩饰、隐瞒犯罪所得、犯罪所得收益罪"), 2),
    (("故意伤害罪", "寻衅滋事罪", "非法拘禁罪"), 2), (("盗窃罪", "诈骗罪", "掩饰、隐瞒犯罪所得、犯罪所得收益罪"), 1),
    (("抢劫罪", "盗窃罪", "故意伤害罪"), 1), (("抢劫罪", "盗窃罪", "诈骗罪", "掩饰、隐瞒犯罪所得、犯罪所得收益罪"), 1),
]
CHARGE_SLOTS = {**LAW_SLOTS, "bac": lambda r: str(r.randrange(81, 240)),
                "days": lambda r: str(r.choice((8, 12, 20, 26, 36, 48)))}
# the names courts and exports use besides the full charge (CAIL-style data drops the 罪)
CHARGE_ALIASES = {
    "盗窃罪": ["盗窃", "theft"],
    "诈骗罪": ["诈骗", "fraud"],
    "故意伤害罪": ["故意伤害", "intentional injury"],
    "寻衅滋事罪": ["寻衅滋事"],
    "抢劫罪": ["抢劫", "robbery"],
    "危险驾驶罪": ["危险驾驶", "醉驾"],
    "交通肇事罪": ["交通肇事"],
    "非法拘禁罪": ["非法拘禁"],
    "掩饰、隐瞒犯罪所得、犯罪所得收益罪": ["掩饰、隐瞒犯罪所得、犯罪所得收益", "掩饰、隐瞒犯罪所得罪"],
}
CHARGE_SEP = ";"  # a charge's name may hold 、 and commas, so the export separates charges with ;
CHARGE_JOINS = ["；同年", "。另查明，", "；此后，", "。案发前，", "；其间，"]


def make_legal_case_type_multi(rng: random.Random) -> tuple[list[str], list[dict]]:
    """About 11 % of the cases carry two to four charges, as in published criminal case facts."""
    court = ["京0105", "沪0115", "粤0106", "粤0305", "浙0106", "川0107", "鄂0111", "苏0106", "陕0113", "渝0103"]
    combos = [c for c, w in CHARGE_COMBOS for _ in range(w)]

    def facts(r, charge, slots):
        return fill(r, pick(r, CHARGE_FACTS[charge]), slots)

    def row(r):
        charges = list(pick(r, combos)) if r.random() < 0.11 else [pick(r, CHARGES)]
        slots = {**CHARGE_SLOTS, "p2": [CHARGE_SLOTS["p2"](r)]}  # one defendant across the facts
        text = facts(r, charges[0], slots)
        for c in charges[1:]:
            text += pick(r, CHARGE_JOINS) + facts(r, c, slots).removeprefix("被告人")
        text += pick(r, LAW_TAILS["criminal"])
        case_no = f"（{r.randrange(2019, 2025)}）{pick(r, court)}刑初{r.randrange(100, 30000)}号"
        return {"案号": case_no, "案情描述": text, "charges": charges}

    rows = unique_rows(rng, 860, row, key=lambda x: x["案情描述"])
    # the label cell as exported: charges in any order, some under another name, a few outside the set
    for i in sample_indices(rng, len(rows), 0.06):
        c = rows[i]["charges"]
        j = rng.randrange(len(c))
        c[j] = pick(rng, CHARGE_ALIASES[c[j]])
    for i in sample_indices(rng, len(rows), 0.01):
        rows[i]["charges"].append(pick(rng, ("其他", "待定", "妨害公务罪")))
    for r in rows:
        if len(r["charges"]) > 1 and rng.random() < 0.3:
            rng.shuffle(r["charges"])
        r["罪名"] = pick(rng, (CHARGE_SEP, CHARGE_SEP, "; ", " ; ")).join(r.pop("charges"))

    def long_text(r, base):
        parts = [base["案情描述"].rstrip("。"), "。经审理查明："]
        while sum(map(len, parts)) < 1100:
            parts.append(fill(r, pick(r, CHARGE_FACTS[pick(r, CHARGES)]), CHARGE_SLOTS) + "。上述事实，有被害人陈述、"
                         "证人证言、鉴定意见及被告人供述等证据在案佐证，本院予以确认。")
        return "".join(parts)

    rows = dirty(
        rng, rows, "案情描述", blank_cols=("案情描述", "罪名"),
        pii_phrases={"phone": ("案情描述", ["（被告人手机号：{}）", "，被害人联系电话{}。"]),
                     "id_card": ("案情描述", ["（被告人身份证号：{}）", "，被告人公民身份号码{}。"]),
                     "bank_card": ("案情描述", ["，涉案银行卡号{}。", "，赃款转入尾号账户{}。"]),
                     "email": ("案情描述", ["，送达邮箱{}。"])},
        sensitive=("，家属称找了关系户能包赢。", "，有人声称花钱摆平此事。", "，辩护人称可以搞定法官。"),
        long_maker=long_text,
    )
    return ["案号", "案情描述", "罪名"], rows


# ---------------------------------------------------------------------------------
# Instruction Q&A helpers
# ---------------------------------------------------------------------------------


def qa_rows(rng: random.Random, n: int, topics: dict, aspects: dict, inputs: list, greet: list) -> list[dict]:
    """Questions over (topic, aspect); the answer is built from the topic's facts for that aspect,
    plus a sentence that follows from the optional supplementary note."""
    names = list(topics)

    def row(r):
        topic = pick(r, names)
        aspect = pick(r, list(aspects))
        q_pattern, a_pattern = aspects[aspect]
        facts = topics[topic]
        question = pick(r, greet) + pick(r, q_pattern).format(t=topic)
        answer = a_pattern.format(t=topic, v=facts[aspect])
        note, extra = ("", "") if r.random() < 0.45 else pick(r, inputs)
        if callable(extra):
            extra = extra(topic)
        return {"问题": question, "补充说明": note, "回答": answer + extra}

    return unique_rows(rng, n, row, key=lambda x: (x["问题"], x["补充说明"]))


def long_answer_maker(topics: dict, aspects: dict, intro: str, disclaimer: str, numbered: bool = False):
    """A builder of over-long answers (> 1,100 characters): the row's answer followed by
    more of the template's own answers, as a pasted-in handbook would look."""

    def long_answer(r, base):
        parts = [base["回答"], intro]
        k = 1
        while sum(map(len, parts)) < 1100:
            t = pick(r, list(topics))
            a = pick(r, list(aspects))
            prefix = f"{k}. " if numbered else ""
            parts.append(prefix + aspects[a][1].format(t=t, v=topics[t][a]) + disclaimer)
            k += 1
        return "".join(parts)

    return long_answer


def qa_dirty(rng, rows, sensitive, pii, long_maker):
    return dirty(rng, rows, "问题", blank_cols=("问题", "回答"), pii_phrases=pii,
                 sensitive=sensitive, long_maker=long_maker, long_col="回答")


# ---------------------------------------------------------------------------------
# finance_service_qa: bank / brokerage customer service (instruction)
# ---------------------------------------------------------------------------------

FQA_TOPICS = {
    # topic: materials, how, fee, time
    "借记卡开户": {"材料": "本人有效身份证件原件和本人实名登记的手机号", "办理": "携带证件到任一网点填写开户申请，现场设置密码即可",
              "费用": "开户免费，部分卡种收取小额年费，可申请减免", "时效": "资料齐全当场即可领卡"},
    "银行卡挂失": {"材料": "本人身份证件，正式挂失需到柜台办理", "办理": "先拨打客服电话或在手机银行口头挂失，再到网点办理正式挂失",
              "费用": "挂失手续费10元，补卡工本费另计", "时效": "口头挂失立即生效，正式挂失7天后可领新卡"},
    "跨行转账": {"材料": "收款人姓名、账号和开户行", "办理": "登录手机银行选择转账汇款，填写收款信息并验证即可",
             "费用": "手机银行跨行转账免手续费，柜台按金额收费", "时效": "5万元以下一般实时到账，大额可能次日到账"},
    "信用卡申请": {"材料": "身份证件、工作证明或收入证明", "办理": "可在手机银行在线申请，也可到网点填写申请表",
              "费用": "普卡首年免年费，刷卡满一定次数次年免年费", "时效": "审核一般需要7到15个工作日"},
    "信用卡还款": {"材料": "无需额外材料，准备好本人借记卡即可", "办理": "可设置自动还款，或在手机银行选择信用卡还款",
              "费用": "本行借记卡还款免费", "时效": "本行渠道还款实时入账，他行渠道需1到3个工作日"},
    "大额存单": {"材料": "本人身份证件和本行账户", "办理": "在手机银行理财频道或网点购买，20万元起存",
             "费用": "购买和持有不收手续费", "时效": "购买当日起息，可按规定提前支取或转让"},
    "理财产品赎回": {"材料": "无需额外材料", "办理": "在手机银行“我的理财”中选择产品并提交赎回",
               "费用": "部分产品持有未满期限收取赎回费，以产品说明书为准", "时效": "赎回资金一般1到3个工作日到账"},
    "修改交易密码": {"材料": "本人身份证件和银行卡", "办理": "知道原密码可在手机银行修改，忘记密码须到柜台重置",
               "费用": "修改和重置密码均免费", "时效": "修改后立即生效"},
    "销户": {"材料": "本人身份证件和需要注销的卡", "办理": "结清余额、解除各类绑定和代扣后到柜台申请销户",
           "费用": "销户免费", "时效": "无未结业务的当场办结"},
    "证券开户": {"材料": "本人二代身份证和本人名下的银行卡", "办理": "下载券商APP，按提示上传证件、视频认证并签署协议",
             "费用": "开户免费", "时效": "审核通过后一般1个交易日内可交易"},
    "创业板权限开通": {"材料": "证券账户和风险测评结果", "办理": "在交易软件业务办理中申请，完成知识测试和风险揭示书签署",
                "费用": "开通权限不收费", "时效": "满足条件的次个交易日生效"},
    "融资融券开户": {"材料": "身份证件和资产证明", "办理": "需前20个交易日日均资产不低于50万元且交易满半年，到营业部或线上申请",
               "费用": "开户免费，融资按约定年利率计息", "时效": "审核通过后1到2个交易日开通"},
    "股票交易佣金": {"材料": "无需材料", "办理": "可联系客户经理或在APP中查询当前佣金费率",
               "费用": "佣金按成交金额的约定费率收取，另有印花税和过户费", "时效": "调整佣金一般次个交易日生效"},
    "基金定投": {"材料": "本人银行卡或证券账户", "办理": "在APP基金频道选择产品，设置每期金额和扣款日期",
             "费用": "按基金申购费率收取，线上渠道常有折扣", "时效": "扣款当日按净值确认份额，T+1可查看"},
    "外汇购汇": {"材料": "本人身份证件，部分用途需提供证明材料", "办理": "在手机银行结售汇功能中填写用途和金额",
             "费用": "按当时牌价结算，不另收手续费", "时效": "提交后实时完成，每人每年便利化额度5万美元"},
    "个人住房贷款提前还款": {"材料": "借款人身份证件和还款账户", "办理": "提前在手机银行或向经办网点预约，按约定日期扣款",
                    "费用": "多数合同不收违约金，以借款合同约定为准", "时效": "预约后一般在下一个还款日前办结"},
}
FQA_ASPECTS = {
    "材料": (["办理{t}需要带什么材料？", "{t}要准备哪些资料？", "去办{t}要带啥？", "{t}需要哪些证件？"],
           "办理{t}需要准备：{v}。"),
    "办理": (["{t}怎么办理？", "{t}的流程是什么？", "{t}在哪里办？", "我想办{t}，该怎么操作？"],
           "{t}的办理方式：{v}。"),
    "费用": (["{t}收费吗？", "{t}要多少手续费？", "{t}会不会扣钱？", "办{t}有费用吗？"],
           "关于{t}的费用：{v}。"),
    "时效": (["{t}多久能办好？", "{t}需要多长时间？", "{t}什么时候生效？", "{t}要等几天？"],
           "{t}的时效：{v}。"),
}
FQA_INPUTS = [
    ("我人在外地", "异地客户可在我行全国任一网点或手机银行办理。"),
    ("帮家里老人代办", "他人代办须另带代办人身份证件和经公证的授权委托书。"),
    ("我用的是手机银行", "手机银行操作中如遇问题，可拨打客服热线转人工。"),
    ("我还没满18岁", "未成年人须由监护人陪同，并携带户口簿等关系证明。"),
    ("我是外籍人士", "外籍客户请携带有效护照及居留证明。"),
    ("之前办过一次没成功", "如再次失败，请记录页面提示并联系客服核实原因。"),
    ("周末能办吗", "手机银行全天可办，部分网点周末营业，请提前查询。"),
]
FQA_GREET = ["", "", "您好，", "你好，", "请问", "麻烦问一下，", "客服你好，"]


def make_finance_service_qa(rng: random.Random) -> tuple[list[str], list[dict]]:
    rows = qa_rows(rng, 620, FQA_TOPICS, FQA_ASPECTS, FQA_INPUTS, FQA_GREET)

    long_answer = long_answer_maker(FQA_TOPICS, FQA_ASPECTS, "以下为相关业务须知：", "具体以网点公告为准。", numbered=True)

    rows = qa_dirty(
        rng, rows,
        sensitive=("听说你们有保本保息的理财？", "客户经理说这款稳赚不赔，是真的吗？", "有人说能提供内幕消息荐股。",
                   "你们有没有刚性兑付的产品？"),
        pii={"phone": ("补充说明", ["我的手机号{}", "预留手机{}，请回电", "电话{}"]),
             "id_card": ("补充说明", ["身份证号{}", "开户证件号{}"]),
             "bank_card": ("补充说明", ["卡号{}", "我的银行卡是{}"]),
             "email": ("补充说明", ["邮箱{}", "对账单发{}"])},
        long_maker=long_answer,
    )
    return ["问题", "补充说明", "回答"], rows


# ---------------------------------------------------------------------------------
# medical_qa: patient questions (instruction)
# ---------------------------------------------------------------------------------

MQA_TOPICS = {
    "感冒": {"饮食": "多喝温水，吃清淡易消化的食物，少吃辛辣油腻", "科室": "呼吸内科或全科门诊，儿童看儿科",
           "检查": "一般无需特殊检查，发热较高时可查血常规", "注意": "注意休息和保暖，不要自行滥用抗生素",
           "就医": "高热超过三天、呼吸困难或精神很差时应及时就医"},
    "高血压": {"饮食": "低盐饮食，每天食盐不超过5克，少吃腌制食品", "科室": "心血管内科",
            "检查": "规律测量血压，定期查血脂、血糖、肾功能和心电图", "注意": "按时服药，不要自行停药，控制体重并戒烟限酒",
            "就医": "血压突然升高并伴剧烈头痛、胸痛或肢体无力时立即就医"},
    "糖尿病": {"饮食": "控制总热量，主食定时定量，少吃甜食和含糖饮料", "科室": "内分泌科",
            "检查": "监测空腹和餐后血糖，定期查糖化血红蛋白、眼底和尿微量白蛋白", "注意": "坚持运动，注意足部护理，随身带糖防低血糖",
            "就医": "出现心慌出汗等低血糖表现或血糖持续很高时及时就医"},
    "胃炎": {"饮食": "规律进食，少吃辛辣、生冷和刺激性食物，戒烟戒酒", "科室": "消化内科",
           "检查": "可做胃镜和幽门螺杆菌检测", "注意": "避免空腹服用止痛药，保持情绪稳定",
           "就医": "出现黑便、呕血或体重明显下降时尽快就医"},
    "痛风": {"饮食": "少吃动物内脏、海鲜和浓肉汤，不喝啤酒，多饮水", "科室": "风湿免疫科或内分泌科",
           "检查": "查血尿酸、肾功能，必要时做关节超声", "注意": "控制体重，发作期抬高患肢休息",
           "就医": "关节红肿剧痛反复发作或出现肾结石时就医"},
    "过敏性鼻炎": {"饮食": "饮食一般无特殊限制，避免已知过敏食物", "科室": "耳鼻喉科或变态反应科",
              "检查": "可做过敏原检测和鼻内镜检查", "注意": "尽量避开过敏原，花粉季外出戴口罩",
              "就医": "症状影响睡眠或伴有喘息时就医"},
    "失眠": {"饮食": "晚餐不宜过饱，下午后少喝咖啡和浓茶", "科室": "睡眠门诊、神经内科或心理科",
           "检查": "必要时做睡眠监测和情绪评估", "注意": "固定作息时间，睡前少看手机",
           "就医": "失眠超过一个月并影响白天工作生活时就医"},
    "缺铁性贫血": {"饮食": "适量吃红肉、动物肝脏和血制品，搭配富含维生素C的蔬果", "科室": "血液科",
              "检查": "查血常规、血清铁蛋白，必要时查找出血原因", "注意": "补铁药物饭后服用，不要与浓茶同服",
              "就医": "头晕心慌明显或有便血、月经量过多时就医"},
    "甲状腺结节": {"饮食": "一般正常饮食，是否限碘遵医嘱", "科室": "甲状腺外科或内分泌科",
              "检查": "做甲状腺超声和甲状腺功能检查，必要时穿刺活检", "注意": "多数结节是良性的，按医嘱定期复查超声",
              "就医": "结节短期内明显增大或出现声音嘶哑时就医"},
    "颈椎病": {"饮食": "饮食无特殊要求，注意补充钙质", "科室": "骨科或康复科",
            "检查": "可做颈椎X线或磁共振检查", "注意": "避免长时间低头，选择合适高度的枕头",
            "就医": "出现手臂麻木无力或走路不稳时及时就医"},
    "湿疹": {"饮食": "避免已知过敏食物，少吃辛辣刺激食物", "科室": "皮肤科",
           "检查": "一般根据皮损诊断，必要时查过敏原", "注意": "坚持使用保湿霜，洗澡水温不宜过高，避免搔抓",
           "就医": "皮损大面积渗液或继发感染时就医"},
    "便秘": {"饮食": "多吃蔬菜水果和粗粮，每天饮水1500毫升以上", "科室": "消化内科或肛肠科",
           "检查": "长期便秘或40岁以上者建议做肠镜", "注意": "养成定时排便习惯，适当运动，不要长期依赖泻药",
           "就医": "便中带血、大便变细或体重下降时就医"},
    "脂肪肝": {"饮食": "控制总热量，少吃油炸食品和甜食，戒酒", "科室": "消化内科或肝病科",
            "检查": "查肝功能、血脂和腹部超声", "注意": "每周至少150分钟中等强度运动，逐步减重",
            "就医": "转氨酶持续升高或出现乏力黄疸时就医"},
    "骨质疏松": {"饮食": "多吃奶制品、豆制品等富钙食物", "科室": "骨科或内分泌科",
             "检查": "做骨密度检查", "注意": "适当晒太阳和负重运动，老年人注意防跌倒",
             "就医": "轻微外力后出现骨痛或身高明显变矮时就医"},
}
MQA_ASPECTS = {
    "饮食": (["{t}饮食上要注意什么？", "得了{t}能吃什么？", "{t}患者有哪些忌口？"], "{t}的饮食建议：{v}。"),
    "科室": (["{t}应该挂什么科？", "{t}去医院看哪个科？", "{t}挂号挂哪里？"], "{t}建议就诊{v}。"),
    "检查": (["{t}需要做哪些检查？", "怀疑{t}要查什么？", "{t}要做什么检查确诊？"], "{t}的常用检查：{v}。"),
    "注意": (["{t}平时要注意什么？", "{t}日常生活怎么调理？", "{t}在家怎么护理？"], "{t}的日常注意：{v}。"),
    "就医": (["{t}什么情况下要去医院？", "{t}严重吗，什么时候必须就医？", "{t}有哪些危险信号？"], "{t}的就医提示：{v}。"),
}
MQA_INPUTS = [
    ("患者是孕妇", "孕期用药须先咨询产科医生。"),
    ("患者今年70多岁", "老年人病情变化快，建议家属陪同定期复诊。"),
    ("孩子5岁", "儿童用药剂量须按体重计算，请遵儿科医生医嘱。"),
    ("已经在吃药了", "请按医嘱服药，不要自行加减药量。"),
    ("有糖尿病史", "合并糖尿病者须同时控制好血糖。"),
    ("最近工作压力很大", "注意劳逸结合，保持规律作息。"),
    ("对青霉素过敏", "就诊时请主动告知医生过敏史。"),
]
MQA_GREET = ["", "", "医生您好，", "大夫，", "请问", "想咨询一下，", "您好，"]


def make_medical_qa(rng: random.Random) -> tuple[list[str], list[dict]]:
    rows = qa_rows(rng, 640, MQA_TOPICS, MQA_ASPECTS, MQA_INPUTS, MQA_GREET)

    long_answer = long_answer_maker(MQA_TOPICS, MQA_ASPECTS, "附健康宣教资料：", "以上内容仅供参考，不能代替医生面诊。")

    rows = qa_dirty(
        rng, rows,
        sensitive=("网上有祖传秘方说能根治，靠谱吗？", "有诊所说包治，能去吗？", "广告说药到病除、无效退款。"),
        pii={"phone": ("补充说明", ["我的电话{}", "家属电话{}", "联系手机{}"]),
             "id_card": ("补充说明", ["就诊人身份证{}", "身份证号{}"]),
             "bank_card": ("补充说明", ["医保卡关联银行卡{}"]),
             "email": ("补充说明", ["报告发我邮箱{}", "邮箱{}"])},
        long_maker=long_answer,
    )
    return ["问题", "补充说明", "回答"], rows


# ---------------------------------------------------------------------------------
# legal_consult_qa: legal consultation (instruction)
# ---------------------------------------------------------------------------------

LQA_TOPICS = {
    "朋友借钱不还": {"怎么办": "先保留借条和转账记录，书面催告，协商不成可向法院起诉",
               "证据": "借条或欠条、转账记录、聊天记录和催款记录", "时效": "诉讼时效一般为三年，自约定还款期限届满之日起算",
               "机构": "向被告住所地或合同履行地的基层人民法院起诉"},
    "公司拖欠工资": {"怎么办": "先与公司协商，也可向劳动监察大队投诉或申请劳动仲裁",
               "证据": "劳动合同、工资条、考勤记录和银行流水", "时效": "劳动仲裁时效为一年，劳动关系存续期间拖欠工资不受此限",
               "机构": "向用人单位所在地或劳动合同履行地的劳动人事争议仲裁委员会申请"},
    "试用期被辞退": {"怎么办": "要求公司书面说明不符合录用条件的理由，无正当理由可主张违法解除赔偿",
               "证据": "录用通知、劳动合同、解除通知和考核记录", "时效": "劳动仲裁时效为一年，自知道权利被侵害之日起算",
               "机构": "向劳动人事争议仲裁委员会申请仲裁"},
    "工伤认定": {"怎么办": "受伤后及时就医并告知单位，由单位或本人申请工伤认定",
             "证据": "劳动关系证明、医疗诊断证明和事故经过证明", "时效": "单位应在30日内申请，单位未申请的本人可在1年内申请",
             "机构": "向统筹地区的人力资源和社会保障行政部门申请"},
    "离婚财产分割": {"怎么办": "先协商签订离婚协议，协商不成可起诉离婚并请求分割共同财产",
               "证据": "结婚证、房产证、存款及车辆等财产凭证", "时效": "离婚后发现对方隐藏财产的，可在发现之次日起三年内请求再次分割",
               "机构": "向被告住所地人民法院起诉，协议离婚到婚姻登记机关办理"},
    "子女抚养权": {"怎么办": "双方先协商，协商不成由法院按最有利于未成年子女的原则判决",
              "证据": "收入证明、住房条件、照顾子女的记录", "时效": "抚养权变更没有固定时效，情况变化时可随时提出",
              "机构": "向人民法院提起诉讼"},
    "交通事故赔偿": {"怎么办": "报警并取得事故认定书，先由交强险赔付，不足部分按责任比例赔偿",
               "证据": "事故认定书、医疗票据、误工证明和车辆维修单", "时效": "人身损害赔偿诉讼时效为三年",
               "机构": "可申请交警调解，也可向事故发生地或被告住所地法院起诉"},
    "租房押金不退": {"怎么办": "对照租赁合同核对扣款理由，保留交房记录，协商不成可起诉",
               "证据": "租赁合同、押金收据、退房交接照片和聊天记录", "时效": "诉讼时效一般为三年",
               "机构": "可向街道调解组织申请调解或向房屋所在地法院起诉"},
    "网购收到假货": {"怎么办": "保留商品和订单，先向平台投诉，经营者有欺诈的可主张退一赔三",
               "证据": "订单截图、商品照片、鉴定报告和聊天记录", "时效": "诉讼时效一般为三年",
               "机构": "可向平台、12315或市场监管部门投诉，也可起诉"},
    "遗产继承": {"怎么办": "有遗嘱按遗嘱继承，没有遗嘱按法定继承顺序分配",
             "证据": "死亡证明、亲属关系证明、遗嘱和遗产权属证明", "时效": "继承纠纷诉讼时效为三年，自知道权利受侵害之日起算",
             "机构": "可到公证处办理继承公证，有争议向法院起诉"},
    "买房卖方违约": {"怎么办": "书面催告对方履行，对方拒不履行可要求继续履行或解除合同并主张违约金",
               "证据": "房屋买卖合同、付款凭证和催告记录", "时效": "诉讼时效一般为三年",
               "机构": "向房屋所在地人民法院起诉"},
    "被网络诈骗": {"怎么办": "立即拨打110报警并联系银行冻结相关账户，不要再继续转账",
              "证据": "转账记录、聊天记录、对方账号和网页截图", "时效": "应尽快报警，越早越有利于追回资金",
              "机构": "向公安机关报案，可拨打96110咨询"},
    "签订劳动合同": {"怎么办": "入职一个月内应签书面劳动合同，仔细核对岗位、工资和试用期条款",
               "证据": "劳动合同文本、入职通知和社保缴纳记录", "时效": "超过一个月不满一年未签的，可主张二倍工资，仲裁时效一年",
               "机构": "有争议向劳动人事争议仲裁委员会申请仲裁"},
    "邻居噪音扰民": {"怎么办": "先友好沟通，再请物业或居委会协调，严重的可报警",
               "证据": "噪音录音录像、分贝测量记录和投诉记录", "时效": "侵权纠纷诉讼时效为三年",
               "机构": "可找物业、居委会调解，向公安机关反映或向法院起诉"},
}
LQA_ASPECTS = {
    "怎么办": (["{t}怎么办？", "遇到{t}该怎么处理？", "{t}，我该怎么维权？", "{t}有什么办法？"], "{t}的处理建议：{v}。"),
    "证据": (["{t}需要准备哪些证据？", "{t}要收集什么材料？", "{t}打官司要什么证据？"], "{t}需要的证据：{v}。"),
    "时效": (["{t}有时间限制吗？", "{t}的时效是多久？", "{t}过了很久还能追究吗？"], "关于{t}的时效：{v}。"),
    "机构": (["{t}去哪里申请？", "{t}找哪个部门？", "{t}应该向哪里起诉或投诉？"], "{t}的受理机构：{v}。"),
}
LQA_INPUTS = [
    ("金额大约2万元", "金额不大的案件，可申请适用简易程序，审理较快。"),
    ("对方在外地", "对方在外地的，一般可在对方住所地起诉，合同另有约定的从其约定。"),
    ("没有书面合同", "没有书面合同的，聊天记录、转账记录等也可以作为证据。"),
    ("已经过去两年了", "请注意时效期间，尽快主张权利，书面催告可以中断诉讼时效。"),
    ("请不起律师", "经济困难的可向当地法律援助中心申请法律援助。"),
    ("对方态度很差", "协商时注意保留录音录像，避免发生肢体冲突。"),
    ("想先私了", "和解时应签订书面协议，写明金额、履行期限和违约责任。"),
]
LQA_GREET = ["", "", "律师您好，", "你好，", "请问", "咨询一下，", "律师，"]


def make_legal_consult_qa(rng: random.Random) -> tuple[list[str], list[dict]]:
    rows = qa_rows(rng, 620, LQA_TOPICS, LQA_ASPECTS, LQA_INPUTS, LQA_GREET)

    long_answer = long_answer_maker(LQA_TOPICS, LQA_ASPECTS, "另附相关说明：",
                                    "以上意见仅供参考，具体以法律规定和法院认定为准。")

    rows = qa_dirty(
        rng, rows,
        sensitive=("朋友说找关系户能包赢。", "有人说可以疏通关系搞定法官。", "中介说能花钱摆平，包胜诉。"),
        pii={"phone": ("补充说明", ["我的电话{}", "对方手机号{}", "联系电话{}"]),
             "id_card": ("补充说明", ["对方身份证号{}", "我的身份证{}"]),
             "bank_card": ("补充说明", ["转账的卡号是{}", "对方收款账号{}"]),
             "email": ("补充说明", ["邮箱{}", "材料发到{}"])},
        long_maker=long_answer,
    )
    return ["问题", "补充说明", "回答"], rows


# ---------------------------------------------------------------------------------

# template id -> (file name, encoding, seed, maker)
SAMPLES = {
    "finance_sentiment": ("finance_sentiment_sample.csv", "utf-8-sig", 20240101, make_finance_sentiment),
    "finance_service_qa": ("finance_service_qa_sample.csv", "utf-8", 20240102, make_finance_service_qa),
    "medical_triage": ("medical_triage_sample.csv", "gb18030", 20240201, make_medical_triage),
    "medical_qa": ("medical_qa_sample.csv", "utf-8", 20240202, make_medical_qa),
    "legal_case_type": ("legal_case_type_sample.csv", "utf-8", 20240301, make_legal_case_type),
    "legal_case_type_multi": ("legal_case_type_multi_sample.csv", "utf-8", 20240303, make_legal_case_type_multi),
    "legal_consult_qa": ("legal_consult_qa_sample.csv", "utf-8", 20240302, make_legal_consult_qa),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1 or (argv and argv[0] in ("-h", "--help")):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    out = Path(argv[0]) if argv else HERE
    for tid, (name, encoding, seed, maker) in SAMPLES.items():
        header, rows = maker(random.Random(seed))
        path = out / tid / name
        write_csv(path, header, rows, encoding)
        print(f"{tid}: {len(rows)} rows -> {path.relative_to(out)} ({encoding})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

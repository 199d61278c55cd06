"""Every note a reader writes about a file has a code, so that the window can say it in the
interface language (a note without one stayed English in the Chinese window:
"recognised alpaca format: mapped to instruction/input/output")."""

from __future__ import annotations

import json

import pandas as pd

from workbench.core.dataio import read_table
from workbench.core.io.base import NOTE_PATTERNS, note_code


def _notes(path, **kw) -> list[str]:
    _, info = read_table(path, **kw)
    return list(info.notes)


def test_every_note_of_these_files_has_a_code(tmp_path):
    files = {}
    files["alpaca.json"] = json.dumps([{"instruction": "问", "input": "", "output": "答", "system": "s"}] * 3)
    files["chat.json"] = json.dumps([{"conversations": [{"from": "human", "value": "问"}, {"from": "gpt", "value": "答"}]},
                                     {"conversations": [{"from": "human", "value": "问"}]}])
    files["msgs.jsonl"] = "\n".join(json.dumps({"messages": [{"role": "user", "content": "问"},
                                                             {"role": "assistant", "content": "答"}]})
                                    for _ in range(3))
    files["pairs.json"] = json.dumps([{"src": "问", "tgt": "答"}] * 3)
    files["nameless.json"] = json.dumps([["文本一", "正面"], ["文本二", "负面"]])
    files["wrapped.json"] = json.dumps([[{"text": "文本", "label": "正面"}], [{"text": "文本", "label": "负面"}]])
    files["keyed.json"] = json.dumps({"data": [{"text": "文本", "label": "正面"}, {"text": "文", "label": "负面"}]})
    files["semicolons.csv"] = "text;label\n文本一;正面\n文本二;负面\n"
    files["trailing.csv"] = "text,label\n文本一,正面,\n文本二,负面,\n"
    files["same.csv"] = "text,text,label\n一,二,正面\n三,四,负面\n"
    files["blank.csv"] = "text,,label\n一,二,正面\n三,四,负面\n"
    codes: dict[str, list[str]] = {}
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        for note in _notes(path):
            found = note_code(note)
            codes.setdefault(found[0] if found else "?", []).append(f"{name}: {note}")
    path = tmp_path / "book.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"text": ["一", "二"], "label": ["正面", "负面"]}).to_excel(writer, sheet_name="新闻", index=False)
        pd.DataFrame({"x": [1]}).to_excel(writer, sheet_name="说明", index=False)
    for note in _notes(path):
        found = note_code(note)
        codes.setdefault(found[0] if found else "?", []).append(f"book.xlsx: {note}")
    assert "?" not in codes, codes["?"]
    for code in ("finetune_alpaca", "finetune_chat", "finetune_src_tgt", "unanswered", "nameless_fields",
                 "unwrapped", "records_key", "delimiter", "trailing_delimiter", "renamed_columns",
                 "unnamed_columns", "sheet"):
        assert code in codes, (code, sorted(codes))
    assert note_code("recognised alpaca format: mapped to instruction/input/output/system") == (
        "finetune_alpaca", {"columns": "instruction/input/output/system"})
    assert set(NOTE_PATTERNS) >= set(codes) - {"?"}

"""Fine-tuning formats (alpaca, ShareGPT, OpenAI-style messages, src/tgt) flattened into columns."""

from __future__ import annotations

import json
from typing import Any

from ..errors import DataError
from .base import _records_to_columns, _text

_ROLE_ALIASES = {
    "human": "user", "user": "user",
    "gpt": "assistant", "assistant": "assistant", "model": "assistant", "bot": "assistant",
    "chatgpt": "assistant", "bing": "assistant", "bard": "assistant",
    "system": "system",
}


def _content_text(content: Any) -> str:
    """Message content: a string, or OpenAI-style parts [{"type": "text", "text": ...}]."""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return _text(content)


def _normalise_records(name: str, records: list[dict], notes: list[str], plain=_records_to_columns
                       ) -> tuple[str | None, dict[str, list[str]]]:
    """A recognised fine-tuning format's columns, else ``plain(records)``."""
    first = records[0]
    if isinstance(first.get("messages"), list):
        return "messages", _conversations(name, records, "messages", notes)
    if isinstance(first.get("conversations"), list):
        return "sharegpt", _conversations(name, records, "conversations", notes)
    if "instruction" in first and "output" in first:
        return "alpaca", _alpaca(records, notes)
    if "src" in first and "tgt" in first:
        return "src_tgt", _src_tgt(records, notes)
    return None, plain(records)


def _conversations(name: str, records: list[dict], key: str, notes: list[str]) -> dict[str, list[str]]:
    columns: dict[str, list[str]] = {c: [] for c in ("system", "instruction", "input", "output", "history")}
    unanswered = 0
    for number, record in enumerate(records, 1):
        turns = record.get(key)
        if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
            raise DataError(
                f"'{name}': record {number} has no '{key}' list of turns like the other records. "
                "Fix or remove that record and import the file again.",
                code="record_without_turns", name=name, record=number, key=key,
            )
        system_parts: list[str] = []
        rest: list[dict[str, str]] = []
        for turn in turns:
            raw_role = turn.get("role", turn.get("from"))
            role = _ROLE_ALIASES.get(str(raw_role).lower(), str(raw_role))
            content = _content_text(turn.get("content", turn.get("value")))
            if role == "system":
                system_parts.append(content)
            else:
                rest.append({"role": role, "content": content})
        if not system_parts and record.get("system"):
            system_parts.append(_text(record["system"]))
        output = ""
        if rest and rest[-1]["role"] == "assistant":
            output = rest.pop()["content"]
        else:
            unanswered += 1
        last_user = max((i for i, t in enumerate(rest) if t["role"] == "user"), default=None)
        if last_user is None:
            instruction, history = "", rest
        else:
            # Turns after the last user turn (tool calls and results) stay in the history.
            instruction = rest[last_user]["content"]
            history = rest[:last_user] + rest[last_user + 1:]
        columns["system"].append("\n".join(system_parts))
        columns["instruction"].append(instruction)
        columns["input"].append("")
        columns["output"].append(output)
        columns["history"].append(json.dumps(history, ensure_ascii=False) if history else "")
    extra = _records_to_columns(records, skip=(key, "system", *columns))
    columns.update(extra)
    label = "OpenAI messages" if key == "messages" else "ShareGPT"
    notes.append(
        f"recognised {label} format: one row per conversation, mapped to "
        "system/instruction/input/output/history (the last user turn is the instruction, "
        "the final assistant turn the output, earlier turns are kept as JSON in history)"
    )
    if unanswered:
        notes.append(f"{unanswered} conversation(s) do not end with an assistant turn: their output is empty")
    return columns


def _pairs_to_history(pairs: Any) -> str:
    """LLaMA-Factory alpaca history [[question, answer], ...] as role/content JSON."""
    if not isinstance(pairs, list) or not pairs:
        return "" if not pairs else _text(pairs)
    turns = []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            turns.append({"role": "user", "content": _text(pair[0])})
            turns.append({"role": "assistant", "content": _text(pair[1])})
        else:
            return _text(pairs)
    return json.dumps(turns, ensure_ascii=False)


def _alpaca(records: list[dict], notes: list[str]) -> dict[str, list[str]]:
    columns = {c: [_text(r.get(c)) for r in records] for c in ("instruction", "input", "output")}
    if any(r.get("system") for r in records):
        columns["system"] = [_text(r.get("system")) for r in records]
    if any(r.get("history") for r in records):
        columns["history"] = [_pairs_to_history(r.get("history")) for r in records]
    columns.update(_records_to_columns(records, skip=("instruction", "input", "output", "system", "history")))
    notes.append("recognised alpaca format: mapped to instruction/input/output"
                 + ("/system" if "system" in columns else "") + ("/history" if "history" in columns else ""))
    return columns


def _src_tgt(records: list[dict], notes: list[str]) -> dict[str, list[str]]:
    src, tgt, history = [], [], []
    for record in records:
        s, t = record.get("src"), record.get("tgt")
        if isinstance(s, list) and isinstance(t, list) and s and len(s) == len(t):
            # Multi-turn: the last pair is the sample, earlier pairs its history.
            history.append(_pairs_to_history([[a, b] for a, b in zip(s[:-1], t[:-1])]))
            s, t = s[-1], t[-1]
        else:
            history.append("")
        src.append(_text(s))
        tgt.append(_text(t))
    columns = {"src": src, "tgt": tgt}
    if any(history):
        columns["history"] = history
    columns.update(_records_to_columns(records, skip=("src", "tgt", "history")))
    notes.append("recognised PaddleNLP src/tgt format: mapped to src/tgt"
                 + ("/history (multi-turn records)" if "history" in columns else ""))
    return columns

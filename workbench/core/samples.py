"""The user's own text of an evaluated row, read back from the prompt the model was given.

An evaluation writes each row's user turn as the model read it: a language model's the task's
prompt filled with the row's fields (e.g. "请判断以下财经新闻的情感倾向：\\n<the news>"), a
classification head's the fields alone; a reviewer wants to read the news, not the prompt's
fixed words above every row.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from .task import TaskSpec


def _format_pattern(user_format: str) -> tuple[re.Pattern | None, list[str]]:
    """A pattern matching what ``user_format`` writes, one group per placeholder (None when
    the format's fixed words cannot tell the fields apart), and the roles."""
    parts, roles, literals = [], [], []
    for literal, field, _spec, _conv in string.Formatter().parse(user_format):
        literals.append(literal)
        # the filled prompt was stripped, and a field may be empty: whitespace is flexible
        parts.append(r"\s*".join(re.escape(w) for w in re.split(r"\s+", literal)))
        if field is not None:
            parts.append(f"(?P<f{len(roles)}>.*?)")
            roles.append(field)
    # no fixed words (an instruction's "{instruction}\n{input}"): the text is the user's own;
    # fields apart by blanks alone: where one ends is not known
    if not any(lit.strip() for lit in literals) or any(not lit.strip() for lit in literals[1:len(roles)]):
        return None, roles
    return re.compile(r"\A\s*" + "".join(parts) + r"\s*\Z", re.DOTALL), roles


def input_fields(task: TaskSpec, user_texts: Sequence[str], holds: str = "prompt") -> dict[str, list[str]] | None:
    """The input roles' values of each user turn ``task``'s prompt wrote (role -> one value
    per text), or None when a text is not one the prompt wrote (another prompt, a hand-made
    file): then the texts are shown as they are. ``holds``: what an evaluation says its inputs
    hold (engine/evaluation: "prompt", or "fields" for a classification head, which reads the
    fields alone, one a line: a single field's text is its own)."""
    if holds == "fields":
        roles = task.input_roles
        return {roles[0]: [str(t) for t in user_texts]} if len(roles) == 1 else None
    try:
        pattern, roles = _format_pattern(task.user_format)
    except ValueError:  # a format string Python cannot parse
        return None
    wanted = [r for r in task.input_roles if r in roles]
    if pattern is None or not wanted:
        return None
    out: dict[str, list[str]] = {r: [] for r in wanted}
    for text in user_texts:
        m = pattern.match(str(text))
        if m is None:
            return None
        for role in wanted:
            out[role].append(m.group(f"f{roles.index(role)}").strip())
    return out

"""An answer ends where the model writes the fallback format's next turn marker (``<user>``),
as text: the piece that may begin a marker is held back while streaming, and the shown text
never holds any of it. The engine (evaluation, playground) and the bundle use this one class."""

from __future__ import annotations

from workbench.engine.bundle.bundle_runtime import AnswerText
from workbench.engine.examples import FALLBACK_MARKERS, FALLBACK_USER

# a vocabulary of text pieces, as a byte-level tokenizer may cut a marker
PIECES = ["根据", "规定", "，", "应当", "赔偿", "。", "\n<", "us", "er", ">\n", "下一个", "问题", "a<b", "<", "系统"]


def decode(ids):
    return "".join(PIECES[i] for i in ids)


def stream(tokens, stops=FALLBACK_MARKERS):
    answer, pieces = AnswerText(decode, stops), []
    for token in tokens:
        pieces.append(answer.add(token))
        if answer.stopped:
            break
    pieces.append(answer.finish())
    return answer, [p for p in pieces if p]


def test_the_answer_ends_at_a_marker_cut_over_several_tokens():
    tokens = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]  # 根据规定，应当赔偿。\n<user>\n下一个问题
    answer, pieces = stream(tokens)
    assert answer.stopped and answer.text == "根据规定，应当赔偿。\n"
    assert "".join(pieces) == answer.text and not any("<" in p for p in pieces)
    assert len(answer.ids) == 10  # generation stopped at the token that completed "<user>"
    assert answer.cut(tokens) == ("根据规定，应当赔偿。\n", True)


def test_a_held_back_angle_bracket_is_shown_once_it_is_no_marker():
    answer, pieces = stream([0, 13, 12, 14])  # 根据 < a<b 系统
    assert not answer.stopped and answer.text == "根据<a<b系统" and "".join(pieces) == answer.text
    answer, pieces = stream([0, 13])  # the answer's last token is a lone "<": shown at the end
    assert answer.text == "根据<" and pieces == ["根据", "<"]


def test_without_stop_texts_the_answer_is_the_decoded_text():
    tokens = [0, 6, 7, 8, 9, 10]
    answer, pieces = stream(tokens, stops=())
    assert not answer.stopped and answer.text == decode(tokens) and "".join(pieces) == decode(tokens)


def test_the_markers_are_those_the_fallback_prompt_writes():
    assert all(m in FALLBACK_USER or m == "<system>" for m in FALLBACK_MARKERS)

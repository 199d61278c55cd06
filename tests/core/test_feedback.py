"""Feedback records: append-only judgements under a lock, undo lines, torn lines skipped, and
the preference pairs, held-out share and data formats made from them."""

from __future__ import annotations

import json
import threading

import pytest

from workbench.core import feedback, preference
from workbench.core.errors import DataError, WorkbenchError
from workbench.core.feedback import AnswerPair, Judgement


def choice(prompt, a, b, pick, run="run-1"):
    return Judgement(kind="choice", prompt=prompt, answers=[a, b], choice=pick, run=run, checkpoint="final",
                     generation={"mode": "sample", "temperature": 0.9})


def rating(prompt, answer, value, rewrite=None, run="run-1"):
    return Judgement(kind="rating", prompt=prompt, answers=[answer], rating=value, rewrite=rewrite, run=run)


def test_judgements_are_appended_and_an_undo_is_one_more_line(tmp_path):
    first = feedback.append(tmp_path, [choice("什么是利率？", "借款的价格", "不知道", "a")])[0]
    feedback.append(tmp_path, [rating("什么是利率？", "不知道", -1, rewrite="利率是借款的价格。"),
                               choice("红色英文？", "red", "blue", "tie", run="run-2")])
    lines = feedback.feedback_path(tmp_path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["run"] == "run-1" and "借款" in lines[0], "UTF-8, one a line"
    assert feedback.counts(feedback.load(tmp_path)) == {
        "run-1": {"choices": 1, "ties": 0, "good": 0, "bad": 1, "rewrites": 1},
        "run-2": {"choices": 0, "ties": 1, "good": 0, "bad": 0, "rewrites": 0}}
    feedback.undo(tmp_path, first.id)
    after = feedback.feedback_path(tmp_path).read_text(encoding="utf-8").splitlines()
    assert after[:3] == lines and json.loads(after[3])["undoes"] == first.id, "nothing written is rewritten"
    assert first.id not in {j.id for j in feedback.load(tmp_path)}
    with pytest.raises(WorkbenchError) as again:
        feedback.undo(tmp_path, first.id)
    assert again.value.code == "feedback_already_undone"
    with pytest.raises(WorkbenchError) as unknown:
        feedback.undo(tmp_path, "j-nope")
    assert unknown.value.code == "feedback_unknown_id"


def test_a_torn_last_line_is_skipped_and_the_next_write_starts_a_line_of_its_own(tmp_path):
    feedback.append(tmp_path, [choice("问一", "甲", "乙", "a")])
    path = feedback.feedback_path(tmp_path)
    with open(path, "ab") as fh:  # a crash mid-write: half a line, no newline
        fh.write('{"v": 1, "id": "j-torn", "kind": "choice", "prompt": "问'.encode("utf-8")[:-1])
    assert [j.prompt for j in feedback.load(tmp_path)] == ["问一"]
    feedback.append(tmp_path, [choice("问二", "丙", "丁", "b")])
    assert [j.prompt for j in feedback.load(tmp_path)] == ["问一", "问二"]
    assert feedback.read_lines(path)[1] == 1, "the torn line is counted as skipped, not glued to the next"


def test_writers_at_once_lose_no_line(tmp_path):
    def write(n):
        for i in range(10):
            feedback.append(tmp_path, [choice(f"问{n}-{i}", "甲", "乙", "a")])

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(feedback.load(tmp_path)) == 40 and feedback.read_lines(feedback.feedback_path(tmp_path))[1] == 0


def test_a_file_with_bad_lines_is_refused_whole_naming_the_lines(tmp_path):
    pair = AnswerPair(prompt="什么是利率？", a="借款的价格", b="不知道", run="run-1", checkpoint="final")
    feedback.remember_pairs(tmp_path, [pair])
    pairs = feedback.load_pairs(tmp_path)
    lines = [json.dumps({"pair_id": pair.pair_id, "choice": "a"}),
             json.dumps({"pair_id": "p-unknown", "choice": "a"}),
             "not json",
             json.dumps({"prompt": "问", "answer": "答", "rating": 2}),
             json.dumps({"prompt": "问", "answer": "答", "rating": 1, "rewrite": "更好的答"}),
             json.dumps({"pair_id": pair.pair_id, "choice": "c"})]
    with pytest.raises(DataError) as bad:
        feedback.parse_lines(lines, pairs, where="f.jsonl")
    assert bad.value.code == "feedback_bad_lines" and bad.value.fields["lines"] == [2, 3, 4, 6]
    assert "lines 2, 3, 4, 6" in str(bad.value) and "line 2: pair_id" in str(bad.value)
    good = feedback.parse_lines([lines[0], "", lines[4]], pairs)
    assert good[0].answers == ["借款的价格", "不知道"] and good[0].run == "run-1", "the pair's id brings its answers"
    assert good[1].rewrite == "更好的答" and good[1].rating == 1
    with pytest.raises(DataError):
        feedback.parse_lines(["", " "], pairs)


def test_pairs_from_choices_rewrites_and_thumbs():
    items = [choice("问一", "甲", "乙", "b"), choice("问一", "同", "同", "a"), choice("问二", "甲", "乙", "tie"),
             rating("问三", "坏答", -1, rewrite="好答"),
             rating("问四", "好1", 1), rating("问四", "坏1", -1), rating("问四", "坏2", -1),
             rating("问五", "孤好", 1), rating("问六", "孤坏", -1)]
    pairs, counts = preference.preference_pairs(items)
    assert [(p.prompt, p.chosen, p.rejected, p.origin) for p in pairs] == [
        ("问一", "乙", "甲", "choice"), ("问三", "好答", "坏答", "rewrite"),
        ("问四", "好1", "坏1", "ratings"), ("问四", "好1", "坏2", "ratings")]
    assert (counts.ties, counts.identical, counts.unpaired_good, counts.unpaired_bad) == (1, 1, 1, 1)
    # pairs of thumbs alone get the loss measured for them; any choice or rewrite, the DPO paper's
    assert preference.recommended_loss(counts) == "sigmoid"
    _, thumbs = preference.preference_pairs(items[4:7])
    assert thumbs.pairs == thumbs.from_ratings == 2
    assert preference.recommended_loss(thumbs) == preference.THUMBS_LOSS
    assert preference.recommended_loss(preference.PairCounts()) == "sigmoid"


def test_the_held_out_share_is_seeded_whole_questions_and_at_least_a_fifth():
    pairs = [preference.PreferencePair(f"问{i // 2}", f"好{i}", f"坏{i}", "choice") for i in range(20)]
    split = preference.hold_out(pairs, seed=7)
    held = [p for p in split if p.split == "heldout"]
    assert len(held) >= 4 and len(held) < 20
    by_q = {}
    for p in split:
        by_q.setdefault(p.prompt, set()).add(p.split)
    assert all(len(s) == 1 for s in by_q.values()), "a question's pairs stay on one side"
    assert [p.split for p in preference.hold_out(pairs, seed=7)] == [p.split for p in split]
    assert [p.split for p in preference.hold_out(pairs, seed=8)] != [p.split for p in split]
    one = preference.hold_out(pairs[:2], seed=1)
    assert all(p.split == "train" for p in one), "one question cannot be split"


@pytest.mark.parametrize("fmt", preference.FORMATS)
def test_each_format_reads_back(fmt):
    pair = preference.PreferencePair("什么是利率？", "利率是借款的价格。", "不知道", "choice")
    line = json.loads(json.dumps(preference.to_format(pair, fmt, system="你是银行客服。"), ensure_ascii=False))
    assert preference.from_format(line, fmt) == (pair.prompt, pair.chosen, pair.rejected)
    if fmt == "erniekit":  # the reader's own checks (paddleformers convert_dpo_txt_data)
        assert len(line["src"]) == len(line["tgt"]) + 1 and line["sort"][0] != line["sort"][1]
    else:
        assert line["messages"][0] == {"role": "system", "content": "你是银行客服。"}


def test_run_pairs_round_trip(tmp_path):
    pairs = preference.hold_out([preference.PreferencePair(f"问{i}", "好", "坏", "choice", [f"j-{i}"])
                                 for i in range(5)], seed=1)
    preference.write_run_pairs(tmp_path, pairs)
    assert preference.read_run_pairs(tmp_path) == pairs
    with pytest.raises(DataError):
        preference.read_run_pairs(tmp_path / "none")


def test_recommendation_follows_the_number_of_pairs():
    few = preference.recommend_preference(30, 200, 400)
    many = preference.recommend_preference(3000, 200, 400)
    assert few.epochs > many.epochs and few.beta > many.beta
    assert few.est_seconds is None, "no model config, no estimate"
    cfg = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
           "intermediate_size": 160, "vocab_size": 512}
    assert preference.recommend_preference(30, 200, 400, cfg=cfg).est_seconds > 0


def test_a_dpo_job_names_the_run_it_tunes():
    from pydantic import ValidationError

    from workbench.core.jobs import JobSpec

    base = dict(project="p", template="t", task="instruction")
    assert JobSpec(**base, method="dpo", from_run="run-1").dpo_loss == "sigmoid"
    for bad in (dict(method="dpo"), dict(method="lora", from_run="run-1"),
                dict(method="dpo", from_run="run-1", task="classification")):
        with pytest.raises(ValidationError):
            JobSpec(**{**base, **bad})


def test_a_choice_and_a_better_answer_for_a_pair_keep_what_wrote_it():
    pair = AnswerPair(prompt="什么是利率？", a="借款的价格", b="不知道", reference="利率是借款的价格。", run="run-1",
                      checkpoint="final", generation={"mode": "sample", "seed_a": 0, "seed_b": 1})
    chosen = feedback.choose(pair, "b", source="window")
    assert (chosen.kind, chosen.choice, chosen.answers, chosen.pair_id) == ("choice", "b", ["借款的价格", "不知道"],
                                                                            pair.pair_id)
    assert (chosen.run, chosen.checkpoint, chosen.generation["seed_b"], chosen.source) == ("run-1", "final", 1, "window")
    # a better answer than both: each answer rated bad with it, so it is chosen against each of them
    rewritten = feedback.rewrite_pair(pair, "利率是借款的价格，按年计。", source="window")
    assert [(j.kind, j.rating, j.answers[0], j.rewrite) for j in rewritten] == [
        ("rating", -1, "借款的价格", "利率是借款的价格，按年计。"), ("rating", -1, "不知道", "利率是借款的价格，按年计。")]
    assert all(j.pair_id == pair.pair_id and j.reference == pair.reference and j.run == "run-1" for j in rewritten)
    pairs, counts = preference.preference_pairs(rewritten)
    assert [(p.chosen, p.rejected, p.origin) for p in pairs] == [
        ("利率是借款的价格，按年计。", "借款的价格", "rewrite"), ("利率是借款的价格，按年计。", "不知道", "rewrite")]
    assert counts.unpaired_bad == 0
    same = AnswerPair(prompt="问", a="同一个答案", b="同一个答案 ", identical=True)
    assert [j.answers for j in feedback.rewrite_pair(same, "更好的答案")] == [["同一个答案"]]


def test_the_rating_in_force_of_an_answer_is_its_latest():
    first = rating("问", "答", 1)
    second = rating("问", "答", -1, rewrite="更好的答")
    other = rating("问", "答", 1, run="run-2")
    found = feedback.ratings_in_force([first, choice("问", "甲", "乙", "a"), second, other])
    assert found == {("run-1", "问", "答"): second, ("run-2", "问", "答"): other}

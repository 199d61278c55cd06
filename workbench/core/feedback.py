"""Feedback: the person's judgements of a run's answers, kept as project records.

For instruction projects. A judgement is a choice between two answers to one question ("a",
"b" or "tie"), or a rating of one answer (1 good, -1 bad) with an optional rewrite, together
with the run and checkpoint that wrote the answers, the generation settings and the time.
``judgements/feedback.jsonl`` holds them append-only, one JSON object a line; an undo is one
more line naming the judgement it takes back, so nothing written is ever rewritten.
``judgements/pairs.jsonl`` remembers the answer pairs ``feedback pairs`` made, so a choice
given later by a pair's id finds its question and answers.

Writes happen under a file lock and append whole lines, flushed and synced: a crash mid-write
leaves at most a torn last line, which reading skips (and the next write starts on a line of
its own).
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import DataError, WorkbenchError

JUDGEMENTS_DIR = "judgements"
FEEDBACK_FILE = "feedback.jsonl"
PAIRS_FILE = "pairs.jsonl"
SHOWN_LINES = 10  # bad line numbers named in a message; the rest are counted

Choice = Literal["a", "b", "tie"]


class Judgement(BaseModel):
    """One line of feedback.jsonl: a choice, a rating, or the undo of an earlier one."""

    model_config = ConfigDict(extra="ignore")

    v: int = 1
    id: str = Field(default_factory=lambda: new_id("j"))
    kind: Literal["choice", "rating", "undo"]
    prompt: str | None = None  # the question as the model's user turn reads it
    answers: list[str] = Field(default_factory=list)  # choice: [a, b]; rating: [answer]
    choice: Choice | None = None
    rating: Literal[1, -1] | None = None
    rewrite: str | None = None  # the person's own better answer
    reference: str | None = None  # the row's reference answer, where the question came from a split
    pair_id: str | None = None
    run: str | None = None  # the run whose model wrote the answers
    checkpoint: str | None = None  # final, or the checkpoint folder it answered from
    generation: dict[str, Any] | None = None  # mode, temperature, top_p, seeds, max_new_tokens
    source: str = "command line"
    undoes: str | None = None  # kind "undo": the judgement taken back
    at: float = Field(default_factory=time.time)

    @model_validator(mode="after")
    def _check(self) -> "Judgement":
        if self.kind == "undo":
            if not self.undoes:
                raise ValueError("an undo names the judgement it takes back ('undoes')")
            return self
        if not (self.prompt or "").strip():
            raise ValueError("'prompt' is empty")
        if any(not isinstance(a, str) for a in self.answers):
            raise ValueError("answers must be texts")
        if self.kind == "choice":
            if len(self.answers) != 2:
                raise ValueError("a choice is between two answers")
            if self.choice is None:
                raise ValueError("'choice' must be \"a\", \"b\" or \"tie\"")
        else:
            if len(self.answers) != 1 or not self.answers[0].strip():
                raise ValueError("a rating judges one answer, which must not be empty")
            if self.rating is None:
                raise ValueError("'rating' must be 1 (good) or -1 (bad)")
            if self.rewrite is not None and not self.rewrite.strip():
                self.rewrite = None
        return self


class AnswerPair(BaseModel):
    """Two sampled answers to one question, as ``feedback pairs`` made them."""

    model_config = ConfigDict(extra="ignore")

    pair_id: str = Field(default_factory=lambda: new_id("p"))
    prompt: str
    a: str
    b: str
    reference: str | None = None
    identical: bool = False
    run: str | None = None
    checkpoint: str | None = None
    generation: dict[str, Any] | None = None
    row_id: str | None = None
    at: float = Field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        out = {"pair_id": self.pair_id, "prompt": self.prompt, "a": self.a, "b": self.b}
        if self.reference is not None:
            out["reference"] = self.reference
        if self.identical:
            out["identical"] = True
        return out


def new_id(prefix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d%H%M%S')}-{secrets.token_hex(3)}"


def judgements_dir(root: str | os.PathLike) -> Path:
    return Path(root) / JUDGEMENTS_DIR


def feedback_path(root: str | os.PathLike) -> Path:
    return judgements_dir(root) / FEEDBACK_FILE


def pairs_path(root: str | os.PathLike) -> Path:
    return judgements_dir(root) / PAIRS_FILE


def _lock(root: str | os.PathLike):
    from filelock import FileLock

    folder = judgements_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    return FileLock(str(folder / f".{FEEDBACK_FILE}.lock"), timeout=30)


# ----- append-only JSON lines ----------------------------------------------------------------


def append_lines(path: Path, objects: Iterable[Mapping[str, Any]]) -> None:
    """Append one JSON line per object, whole, flushed and synced. The caller holds the lock. A
    torn last line (a crash mid-write) is closed first, so the new lines stay lines of their own."""
    data = "".join(json.dumps(dict(o), ensure_ascii=False) + "\n" for o in objects).encode("utf-8")
    if not data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab+") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                data = b"\n" + data
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def read_lines(path: Path) -> tuple[list[dict[str, Any]], int]:
    """The objects of a JSON-lines file and how many lines were skipped: a line torn by a crash
    (the last one, or one an append after the crash closed) is not an object and is left out."""
    if not path.is_file():
        return [], 0
    out, skipped = [], 0
    for line in path.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            skipped += 1
            continue
        if isinstance(obj, dict):
            out.append(obj)
        else:
            skipped += 1
    return out, skipped


# ----- judgements ----------------------------------------------------------------------------


def read_all(root: str | os.PathLike) -> list[Judgement]:
    """Every line of feedback.jsonl as written, undos included (unreadable lines left out)."""
    items = []
    for obj in read_lines(feedback_path(root))[0]:
        try:
            items.append(Judgement.model_validate(obj))
        except ValidationError:
            continue  # a line of a later schema version, or hand-edited: not ours to judge
    return items


def active(items: Sequence[Judgement]) -> list[Judgement]:
    """The judgements in force: all choices and ratings not taken back by an undo line."""
    undone = {j.undoes for j in items if j.kind == "undo"}
    return [j for j in items if j.kind != "undo" and j.id not in undone]


def load(root: str | os.PathLike) -> list[Judgement]:
    return active(read_all(root))


def append(root: str | os.PathLike, new: Iterable[Judgement]) -> list[Judgement]:
    """Record ``new`` judgements under the lock; returns them."""
    new = list(new)
    with _lock(root):
        append_lines(feedback_path(root), (j.model_dump(exclude_none=True) for j in new))
    return new


def undo(root: str | os.PathLike, judgement_id: str) -> Judgement:
    """Take back a judgement: one more line naming it. An unknown id, or one already taken
    back, is refused."""
    with _lock(root):
        items = read_all(root)
        by_id = {j.id: j for j in items if j.kind != "undo"}
        if judgement_id not in by_id:
            raise WorkbenchError(f"No judgement has the id '{judgement_id}'. 'workbench feedback list' shows the ids.",
                                 code="feedback_unknown_id", id=judgement_id)
        if any(j.kind == "undo" and j.undoes == judgement_id for j in items):
            raise WorkbenchError(f"Judgement '{judgement_id}' was already taken back.", code="feedback_already_undone",
                                 id=judgement_id)
        line = Judgement(kind="undo", undoes=judgement_id)
        append_lines(feedback_path(root), [line.model_dump(exclude_none=True)])
    return line


def counts(items: Sequence[Judgement]) -> dict[str, dict[str, int]]:
    """Judgements in force per run: choices, ties, good and bad ratings, rewrites."""
    out: dict[str, dict[str, int]] = {}
    for j in items:
        c = out.setdefault(j.run or "", {"choices": 0, "ties": 0, "good": 0, "bad": 0, "rewrites": 0})
        if j.kind == "choice":
            c["ties" if j.choice == "tie" else "choices"] += 1
        else:
            c["good" if j.rating == 1 else "bad"] += 1
            c["rewrites"] += j.rewrite is not None
    return out


def ratings_in_force(items: Sequence[Judgement]) -> dict[tuple[str, str, str], Judgement]:
    """The rating in force of each answer, by (run, question, answer): the latest, where one
    answer was rated more than once."""
    return {(j.run or "", j.prompt or "", j.answers[0]): j for j in items if j.kind == "rating"}


# ----- answer pairs --------------------------------------------------------------------------


def choose(pair: AnswerPair, choice: Choice, source: str = "command line") -> Judgement:
    """A choice between the two answers of a pair ``feedback pairs`` made."""
    return Judgement(kind="choice", prompt=pair.prompt, answers=[pair.a, pair.b], choice=choice,
                     reference=pair.reference, pair_id=pair.pair_id, run=pair.run, checkpoint=pair.checkpoint,
                     generation=pair.generation, source=source)


def rewrite_pair(pair: AnswerPair, rewrite: str, source: str = "command line") -> list[Judgement]:
    """A better answer the person wrote in place of both answers of a pair: each answer rated bad
    with the rewrite, so the rewrite is the chosen answer against each of them
    (core.preference: a rewrite is chosen against the answer it rewrote). Two answers that are
    the same text are one."""
    answers = [pair.a] if pair.a.strip() == pair.b.strip() else [pair.a, pair.b]
    return [Judgement(kind="rating", prompt=pair.prompt, answers=[a], rating=-1, rewrite=rewrite,
                      reference=pair.reference, pair_id=pair.pair_id, run=pair.run, checkpoint=pair.checkpoint,
                      generation=pair.generation, source=source) for a in answers if a.strip()]


def remember_pairs(root: str | os.PathLike, pairs: Iterable[AnswerPair]) -> None:
    with _lock(root):
        append_lines(pairs_path(root), (p.model_dump(exclude_none=True) for p in pairs))


def load_pairs(root: str | os.PathLike) -> dict[str, AnswerPair]:
    out = {}
    for obj in read_lines(pairs_path(root))[0]:
        try:
            p = AnswerPair.model_validate(obj)
        except ValidationError:
            continue
        out[p.pair_id] = p
    return out


# ----- what a person gives in a file ---------------------------------------------------------


def _short(numbers: Sequence[int]) -> str:
    shown = ", ".join(map(str, numbers[:SHOWN_LINES]))
    return shown + (f" and {len(numbers) - SHOWN_LINES} more" if len(numbers) > SHOWN_LINES else "")


def parse_lines(lines: Sequence[str], pairs: Mapping[str, AnswerPair], *, source: str = "command line",
                where: str = "the file") -> list[Judgement]:
    """Judgements from JSON lines: ``{"pair_id", "choice": "a"|"b"|"tie"}`` (a pair ``feedback
    pairs`` made) or ``{"prompt", "answer", "rating": 1|-1, "rewrite"?}``. Every bad line is
    refused at once, with its number and what is wrong, and nothing is returned."""
    out: list[Judgement] = []
    bad: list[tuple[int, str]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad.append((n, "not a JSON object"))
            continue
        if not isinstance(obj, dict):
            bad.append((n, "not a JSON object"))
            continue
        try:
            out.append(_judgement(obj, pairs, source))
        except (ValueError, ValidationError) as exc:
            text = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            bad.append((n, text.removeprefix("Value error, ")))
    if bad:
        numbers = [n for n, _ in bad]
        first = "; ".join(f"line {n}: {why}" for n, why in bad[:3])
        raise DataError(f"{len(bad)} line(s) of {where} cannot be recorded (lines {_short(numbers)}), so nothing was "
                        f"recorded: {first}. Each line is {{\"pair_id\": ..., \"choice\": \"a\"|\"b\"|\"tie\"}} or "
                        "{\"prompt\": ..., \"answer\": ..., \"rating\": 1|-1, \"rewrite\": ...}.",
                        code="feedback_bad_lines", lines=numbers, first=first)
    if not out:
        raise DataError(f"{where} holds no judgements.", code="feedback_empty")
    return out


def _judgement(obj: Mapping[str, Any], pairs: Mapping[str, AnswerPair], source: str) -> Judgement:
    if "pair_id" in obj or "choice" in obj:
        choice = obj.get("choice")
        if choice not in ("a", "b", "tie"):
            raise ValueError(f"'choice' must be \"a\", \"b\" or \"tie\", not {json.dumps(choice, ensure_ascii=False)}")
        pid = obj.get("pair_id")
        if not isinstance(pid, str) or pid not in pairs:
            raise ValueError(f"pair_id {json.dumps(pid, ensure_ascii=False)} is not a pair 'workbench feedback pairs' "
                             "made for this project")
        return choose(pairs[pid], choice, source)
    if "rating" in obj or "answer" in obj:
        rating = obj.get("rating")
        if rating not in (1, -1) or isinstance(rating, bool):
            raise ValueError(f"'rating' must be 1 or -1, not {json.dumps(rating, ensure_ascii=False)}")
        for key in ("prompt", "answer"):
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise ValueError(f"'{key}' must be a text that is not empty")
        rewrite = obj.get("rewrite")
        if rewrite is not None and not isinstance(rewrite, str):
            raise ValueError("'rewrite' must be a text")
        # where the answer came from, when the caller knows (the window's playground does)
        run, checkpoint, generation = obj.get("run"), obj.get("checkpoint"), obj.get("generation")
        return Judgement(kind="rating", prompt=obj["prompt"], answers=[obj["answer"]], rating=rating, rewrite=rewrite,
                         run=run if isinstance(run, str) else None,
                         checkpoint=checkpoint if isinstance(checkpoint, str) else None,
                         generation=generation if isinstance(generation, dict) else None, source=source)
    raise ValueError("it has neither 'pair_id' and 'choice' nor 'prompt', 'answer' and 'rating'")


def read_file(path: str | os.PathLike, pairs: Mapping[str, AnswerPair], *, source: str = "command line") -> list[Judgement]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise DataError(f"{path} is not UTF-8 text; save it as UTF-8 JSON lines.", code="feedback_not_utf8",
                        path=str(path)) from None
    return parse_lines(text.splitlines(), pairs, source=source, where=str(path))

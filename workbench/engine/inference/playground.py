"""The playground: generate from a user's text in the project's prompt format.

In-process: ``Playground(project, run).stream({"prompt": "..."})`` yields event dicts.
As a worker for the GUI: ``python -m workbench.engine.inference.playground --project DIR --run RUN``
reads one JSON request per line on stdin and writes JSON-lines events on stdout::

    -> {"id": 1, "prompt": "客户问：转账限额是多少？", "mode": "sample", "temperature": 0.8,
        "top_p": 0.9, "max_new_tokens": 64, "seed": 7}
    <- {"event": "ready", "run": "...", "task": "instruction", "source": "final", "labels": []}
    <- {"event": "token", "id": 1, "text": "您好"}
    <- ... one "token" event per text piece ...
    <- {"event": "done", "id": 1, "text": "...", "tokens": 12, "seconds": 0.4, "user": "...",
        "run": "...", "checkpoint": "final", "generation": {"mode": "sample", ...}}

``prompt`` fills the template's main field ("text" or "instruction"); ``fields`` gives
several (``{"instruction": ..., "input": ...}``). ``repetition_penalty`` (1 = none) and
``no_repeat_ngram`` (0 = none) override the repetition guards, which are on by default
(see engine/inference/generate.py). For classification templates a
``labels`` event with the probability of each label comes before ``done``. A bad request
gets ``{"event": "error", "id": ..., "message": ...}`` and the worker keeps serving; end
of input or ``{"cmd": "quit"}`` ends it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from workbench.core.cleaning import normalize_record
from workbench.core.errors import WorkbenchError
from workbench.core.project import Project
from workbench.core.trained import resolve_trained_run
from workbench.engine import examples
from workbench.engine.inference.generate import GenerationSettings, stream_ids

MAX_NEW_TOKENS_LIMIT = 2048


class Playground:
    def __init__(self, project_dir, run_id: str, *, device: str = "cpu", base: bool = False):
        from workbench.engine.inference.trained import load_base, load_trained, system_prompt
        from workbench.engine.models import loading

        loading.set_library_log_level("ERROR")
        project = Project.open(project_dir)
        self.recipe = project.config.recipe
        self.trained = resolve_trained_run(project, run_id)
        self.spec = self.trained.spec  # the run's own labels and prompt
        self.base = base
        loader = load_base if base else load_trained
        self.model, self.tokenizer = loader(self.trained, device=device)
        self.system, self.user_format = examples.prompt_spec(self.model, system_prompt(self.spec), self.spec.user_format,
                                                      self.spec.input_roles)
        self.main_field = self.spec.input_roles[0]

    @property
    def task(self) -> str:
        return self.spec.task.value

    def ready_event(self) -> dict[str, Any]:
        return {"event": "ready", "run": self.trained.run_id, "task": self.task, "source": self.trained.source,
                "labels": list(self.spec.labels), "fields": self.spec.input_roles,
                "note": self.trained.note}

    def user_text(self, request: dict[str, Any]) -> str:
        """The user turn the request makes, as the model reads it (the question a judgement of
        the answer records: core/feedback.py)."""
        fields = request.get("fields")
        if fields is None:
            prompt = request.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                raise WorkbenchError("The request has no 'prompt' text (or 'fields').")
            fields = {self.main_field: prompt}
        if not isinstance(fields, dict):
            raise WorkbenchError("'fields' must be an object such as {\"instruction\": \"...\"}.")
        # new text is cleaned as the training text was, or the model meets characters it never saw
        fields = normalize_record(fields, self.recipe)
        return examples.format_user(self.user_format, fields)

    def stream(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Events for one request: token pieces, (labels), done."""
        rid = request.get("id")
        try:
            settings = GenerationSettings.from_request(request)
        except (TypeError, ValueError) as exc:
            raise WorkbenchError(f"Bad generation settings: {exc}.") from None
        settings.max_new_tokens = min(settings.max_new_tokens, MAX_NEW_TOKENS_LIMIT)
        user = self.user_text(request)
        prompt = examples.build_prompt(self.tokenizer, self.system, user)
        max_length = self.trained.job.max_length
        ids = examples.encode_prompt(self.tokenizer, prompt)
        asked = settings.max_new_tokens
        if self.task == "instruction":  # the evaluation's and the bundle's budget (bundle_runtime.answer_budget)
            from workbench.engine.bundle.bundle_runtime import answer_budget

            keep, settings.max_new_tokens = answer_budget(len(ids), max_length, asked)
            ids = examples._shrink_prompt(ids, keep)
        elif getattr(self.model.config, "max_position_embeddings", None):
            ids = examples._shrink_prompt(ids, max(8, int(self.model.config.max_position_embeddings) - asked))
        start = time.perf_counter()
        from workbench.engine.inference.generate import answer_text, eos_ids
        from workbench.engine.models.char_classifier import is_classifier

        answer = answer_text(self.tokenizer)
        generated = answer.ids
        # a classification head generates nothing: its answer is the label below
        tokens = [] if is_classifier(self.model) else \
            stream_ids(self.model, ids, settings, stop_ids=eos_ids(self.tokenizer, self.model))
        for token in tokens:
            piece = answer.add(token)
            if piece:
                yield {"event": "token", "id": rid, "text": piece}
            if answer.stopped:
                break
        piece = answer.finish()
        if piece:
            yield {"event": "token", "id": rid, "text": piece}
        final = answer.text
        seconds = time.perf_counter() - start
        if self.task == "classification":
            from workbench.engine.inference.classify import classify_with_probs

            labels = list(self.spec.labels)
            probs = classify_with_probs(self.model, self.tokenizer, [prompt], labels, max_length=max_length)[0]
            label = labels[max(range(len(labels)), key=probs.__getitem__)]
            yield {"event": "labels", "id": rid, "probabilities": dict(zip(labels, probs)), "label": label}
            if is_classifier(self.model):
                final = label
                yield {"event": "token", "id": rid, "text": label}
        generation = {"mode": settings.mode, "max_new_tokens": settings.max_new_tokens, **settings.guard()}
        if settings.mode == "sample":
            generation.update(temperature=settings.temperature, top_p=settings.top_p, seed=settings.seed)
        yield {"event": "done", "id": rid, "text": final, "tokens": len(generated), "seconds": round(seconds, 3),
               "tokens_per_s": round(len(generated) / seconds, 1) if seconds > 0 else None,
               "prompt_tokens": len(ids), "max_new_tokens": settings.max_new_tokens,
               # what wrote the answer, for a judgement of it (core/feedback.py)
               "user": user, "run": self.trained.run_id, "checkpoint": "base" if self.base else self.trained.source,
               "generation": generation,
               **({"note": f"Answers are at most {settings.max_new_tokens} tokens here, not {asked}: the model was "
                           f"trained on {max_length} tokens, question and answer together."}
                  if settings.max_new_tokens < asked else {})}


def serve(playground: Playground, stdin=None, stdout=None) -> int:
    """The JSON-lines loop (see the module docstring)."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout

    def send(event: dict[str, Any]) -> None:
        stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
        stdout.flush()

    send(playground.ready_event())
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as exc:
            send({"event": "error", "id": None, "message": f"Not a JSON request: {exc}"})
            continue
        if request.get("cmd") == "quit":
            break
        try:
            for event in playground.stream(request):
                send(event)
        except WorkbenchError as exc:
            send({"event": "error", "id": request.get("id"), "message": str(exc)})
        except Exception as exc:  # keep serving; the GUI shows the message
            send({"event": "error", "id": request.get("id"), "message": f"{type(exc).__name__}: {exc}"})
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m workbench.engine.inference.playground")
    p.add_argument("--project", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--device", default="cpu")
    p.add_argument("--base", action="store_true", help="use the base model instead of the fine-tuned one")
    args = p.parse_args(argv)
    # the events get their own copy of stdout; whatever else prints (Python or Paddle's
    # C++ code) goes to stderr, so it cannot break the event stream
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8")
    try:
        playground = Playground(args.project, args.run, device=args.device, base=args.base)
    except WorkbenchError as exc:
        out.write(json.dumps({"event": "error", "id": None, "message": str(exc)}, ensure_ascii=False) + "\n")
        out.flush()
        return 2
    return serve(playground, stdin=stdin, stdout=out)


if __name__ == "__main__":
    raise SystemExit(main())

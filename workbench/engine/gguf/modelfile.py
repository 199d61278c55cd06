"""An ollama Modelfile for an exported GGUF file, and the model card's section on running it.

The TEMPLATE is not a family's stock template typed in by hand: it is cut from the prompt
the engine itself builds with the model's chat template (Gemma's ``<start_of_turn>`` turns,
Qwen's ChatML, Llama 3's headers, the built-in model's ``<|user|>`` lines, or the plain
fallback), with ``{{ .System }}`` and ``{{ .Prompt }}`` where the system prompt and the
user's text go. So ollama feeds the model the text it was trained on, and the export
checks that by rendering the template for real test inputs.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.core.errors import WorkbenchError
from workbench.core.licence_text import licence_notice

_SYSTEM = "\u27e6WORKBENCH_SYSTEM\u27e7"
_USER = "\u27e6WORKBENCH_USER\u27e7"
_ANSWER = "\u27e6WORKBENCH_ANSWER\u27e7"
# ollama keeps a whole context in memory; a long-context base (Gemma: 32k) is capped here
MAX_NUM_CTX = 8192


class ModelfileError(WorkbenchError):
    """The prompt format cannot be written as an ollama template; the message says why."""


@dataclass
class ChatTemplate:
    """The prompt as pieces around the system prompt and the user's text.

    ``with_system`` is (before system, between system and user, after user) and
    ``without_system`` is (before user, after user); ``turn_end`` follows an answer.
    """

    with_system: tuple[str, str, str] | None
    without_system: tuple[str, str]
    turn_end: str

    def render(self, system: str | None, user: str) -> str:
        """The prompt as ollama renders the template (what the check compares with the engine's)."""
        if system and self.with_system:
            a, b, c = self.with_system
            return a + system + b + user + c
        a, b = self.without_system
        return a + user + b

    def go_template(self) -> str:
        """The ollama (Go text/template) TEMPLATE."""
        a, b = (_go_literal(x) for x in self.without_system)
        plain = f"{a}{{{{ .Prompt }}}}{b}"
        if self.with_system:
            sa, sb, sc = (_go_literal(x) for x in self.with_system)
            body = f"{{{{ if .System }}}}{sa}{{{{ .System }}}}{sb}{{{{ .Prompt }}}}{sc}{{{{ else }}}}{plain}{{{{ end }}}}"
        else:
            body = plain
        return body + "{{ .Response }}" + _go_literal(self.turn_end)


def _go_literal(text: str) -> str:
    # "{{" would open an action: write it as a string constant
    return text.replace("{{", '{{ "{{" }}')


def _split(text: str, *markers: str) -> list[str]:
    parts, rest = [], text
    for m in markers:
        if rest.count(m) != 1:
            raise ModelfileError("The model's chat template repeats or drops the user's text, so it cannot be "
                                 "written as an ollama template.", code="modelfile_template_unusable")
        head, rest = rest.split(m)
        parts.append(head)
    return parts + [rest]


def chat_template(build_prompt: Callable[[str | None, str], str], *, bos_text: str | None,
                  answer_turn: Callable[[str | None, str, str], str] | None = None,
                  eos_text: str | None = None) -> ChatTemplate:
    """Cut the engine's prompt into a :class:`ChatTemplate`.

    ``build_prompt(system, user)`` is the engine's prompt; ``bos_text`` is dropped from its
    start, since llama.cpp puts the BOS token first itself. ``answer_turn(system, user, answer)``
    renders a conversation with an answer (to find what ends a turn); without it the turn
    ends with ``eos_text``.
    """
    def strip(text: str) -> str:
        return text[len(bos_text):] if bos_text and text.startswith(bos_text) else text

    plain = _split(strip(build_prompt(None, _USER)), _USER)
    full = strip(build_prompt(_SYSTEM, _USER))
    with_system = None
    if _SYSTEM in full:
        a, b, c = _split(full, _SYSTEM, _USER)
        with_system = (a, b, c)
    turn_end = eos_text or ""
    if answer_turn is not None:
        try:
            convo = strip(answer_turn(None, _USER, _ANSWER))
            prompt = strip(build_prompt(None, _USER))
            if convo.count(_ANSWER) == 1:
                head, tail = convo.split(_ANSWER)
                # the answer turn must continue the generation prompt for its ending to mean anything
                if head == prompt:
                    turn_end = tail
        except Exception:  # a template that cannot render an answer turn: end with the EOS token
            pass
    return ChatTemplate(with_system=with_system, without_system=(plain[0], plain[1]), turn_end=turn_end)


def _quoted(text: str) -> str:
    if '"""' in text:
        raise ModelfileError('The text holds three double quotes in a row ("""), which a Modelfile cannot quote.',
                             code="modelfile_triple_quotes")
    return f'"""{text}"""'


def licence_text(name: str | None, file: str | Path | None, url: str | None = None) -> str | None:
    """The licence's name, its source and, when a file was kept, its own text (an HTML page
    reduced to its terms by its structure, core/licence_text.py): the bundle's LICENSE file."""
    text = licence_notice(name, file, url)
    return text.strip().replace('"""', '" " "') if text else None


def modelfile(gguf_file: str, template: ChatTemplate, *, system: str | None, stops: Sequence[str],
              parameters: Mapping[str, Any], licence: str | None = None) -> str:
    """The Modelfile text: FROM, TEMPLATE, SYSTEM, PARAMETER lines and LICENSE."""
    lines = ["# ollama: ollama create NAME -f Modelfile, then ollama run NAME",
             f"FROM ./{gguf_file}", f"TEMPLATE {_quoted(template.go_template())}"]
    if system:
        lines.append(f"SYSTEM {_quoted(system)}")
    for stop in dict.fromkeys(s for s in stops if s):
        lines.append(f"PARAMETER stop {_stop_value(stop)}")
    for key, value in parameters.items():
        if value is not None:
            lines.append(f"PARAMETER {key} {value}")
    if licence:
        lines.append(f"LICENSE {_quoted(licence)}")
    return "\n".join(lines) + "\n"


def _stop_value(text: str) -> str:
    # ollama takes a quoted value as written, with no escapes: "..." unless a quote or a line break
    # inside could end it early, then """..."""
    return _quoted(text) if '"' in text or "\n" in text or "\r" in text else f'"{text}"'


def parameters(generation: Mapping[str, Any]) -> dict[str, Any]:
    """ollama's PARAMETER values from the export's one set of generation settings (bundle.json's
    ``generation``, engine/inference/generate.py ``export_generation``): greedy (temperature 0), the same
    repetition penalty, the training length as the context and the same answer length.
    What ollama cannot take (no-repeat n-grams) is said in the model card (:func:`ollama_differences`)."""
    context = generation.get("context")
    return {"temperature": 0 if generation.get("mode", "greedy") == "greedy" else generation.get("temperature"),
            "repeat_penalty": generation.get("repetition_penalty"),
            "num_ctx": min(int(context), MAX_NUM_CTX) if context else None,
            "num_predict": generation.get("max_new_tokens")}


def ollama_differences(generation: Mapping[str, Any]) -> list[str]:
    """Where ollama generates differently from predict.py and serve.py with these settings."""
    out = []
    if generation.get("no_repeat_ngram"):
        out.append(f"predict.py and serve.py never repeat a {generation['no_repeat_ngram']}-token sequence of the "
                   "answer (no-repeat n-grams); ollama and llama.cpp have no such setting, so their answers may "
                   "repeat where the bundle's do not.")
    if generation.get("repetition_penalty", 1.0) != 1.0:
        out.append(f"The repetition penalty ({generation['repetition_penalty']:g}) is the same number, but ollama "
                   "applies it to the last 64 tokens of prompt and answer (repeat_last_n), the bundle to every token "
                   "of the answer alone.")
    if generation.get("context"):
        out.append(f"num_ctx is the training length ({generation['context']} tokens, prompt and answer together). "
                   "predict.py and serve.py shorten the answer so that a long question fits it whole; ollama "
                   f"generates up to num_predict ({generation.get('max_new_tokens')}) and, when the context is "
                   "full, drops the oldest tokens instead.")
    return out


def _greedy_sentence(g: Mapping[str, Any]) -> str:
    ties = g.get("near_ties") or 0
    return (f" Its own greedy answers ({g.get('new_tokens')} new tokens) are the trained model's on "
            f"{g.get('identical')} of {g.get('prompts')} test prompts"
            + (f"; {ties} part from it at a near tie, where the trained model's two best tokens are within what "
               "the file's precision moves" if ties else "") + ".")


def readme_section(check: Mapping[str, Any]) -> str:
    """The model card's section on the GGUF file: how to run it and what the export checked."""
    f = check.get("file") or "model.gguf"
    size = check.get("size_bytes") or 0
    lines = [
        "## GGUF (llama.cpp, ollama)",
        "",
        f"`gguf/{f}` is the merged model as one GGUF file ({str(check.get('dtype', '')).upper()}, "
        f"{size / 2**20:.1f} MB, architecture `{check.get('architecture')}`), with an ollama `gguf/Modelfile` "
        "that carries the prompt format the model was trained on"
        + (", the system prompt" if check.get("system") else "") + " and its stop tokens.",
        "",
        "With ollama:",
        "",
        "    cd gguf",
        "    ollama create my-model -f Modelfile",
        "    ollama run my-model",
        "",
        "With llama.cpp (the chat template is in the file; `--jinja` makes llama.cpp use it rather than guess "
        "one from its own list):",
        "",
        f"    llama-cli -m gguf/{f} -cnv --jinja",
        f"    llama-server -m gguf/{f} --jinja --port 8080    # OpenAI-style /v1/chat/completions",
        "",
    ]
    gen = check.get("generation")
    if gen:
        params = parameters(gen)
        lines += [f"The Modelfile's PARAMETER lines are the bundle's own generation settings (bundle.json "
                  f"`generation`, which predict.py and serve.py use): greedy (temperature {params['temperature']}), "
                  f"repeat_penalty {params['repeat_penalty']:g}, num_ctx {params['num_ctx']}, num_predict "
                  f"{params['num_predict']}. What ollama cannot reproduce:", ""]
        lines += [f"- {d}" for d in ollama_differences(gen)] + [""]
    if check.get("system"):
        lines += ["The Modelfile sets the system prompt the model was trained with; llama.cpp does not know it: "
                  "give it with `-sys` (the text is `system` in bundle.json).", ""]
    if check.get("user_format"):
        lines += ["The model was trained on inputs laid out like this, each `{field}` filled in; give it text in "
                  "that form:", ""] + ["    " + ln for ln in check["user_format"].splitlines()] + [""]
    if check.get("max_abs_diff") is not None:
        lines += [
            f"Checked at export: the file read back and run by a plain numpy forward pass over its dequantized "
            f"tensors gives next-token logits within {check['max_abs_diff']:.3g} of the trained model "
            f"(relative {check.get('relative_diff', 0):.3g}, allowed {check.get('tolerance', 0):g}) on "
            f"{check.get('prompts')} test prompts ({check.get('positions')} positions); the most likely next "
            f"token agrees at {100 * check.get('argmax_agreement', 0):.1f} % of them (one position at a time, "
            "along the reference text)."
            + (_greedy_sentence(check["greedy"]) if check.get("greedy") else "")
            + " The Modelfile's template, rendered for the test inputs, gives the engine's prompts exactly.",
            "",
        ]
    return "\n".join(lines)

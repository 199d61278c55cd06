"""The chat format a model was trained with, as plain text pieces a bundle can render without
a template engine: for the ollama Modelfile (engine/gguf/modelfile.py) and for serve.py's
``/v1/chat/completions``, which puts a client's own system message and earlier turns through
it (``bundle_runtime.render_chat``).

The pieces are cut from the engine's own prompt (:func:`workbench.engine.examples.build_prompt`):
the tokenizer's chat template where it has one, else the plain ``<system>/<user>/<assistant>``
format. Before a bundle claims to carry conversations, :func:`bundle_chat` renders one- and
two-turn conversations, with and without a system message, with the pieces and with the
tokenizer's own template and requires the same text; a template that renders earlier turns
otherwise (one that repeats a default system prompt, say) gets ``multi_turn: false``, and the
service refuses earlier turns rather than send the model a prompt it was not trained on.
"""

from __future__ import annotations

from typing import Any

from workbench.engine import examples
from workbench.engine.bundle.bundle_runtime import render_chat
from workbench.engine.gguf import modelfile as ollama_modelfile

SAMPLE_TURNS = (("信用卡怎么挂失？", "拨打客服电话即可挂失。"), ("挂失要收费吗？", None))
SAMPLE_SYSTEM = "你是一名耐心的客服。"


def chat_template(tokenizer) -> ollama_modelfile.ChatTemplate:
    """The model's prompt format cut into pieces around the system prompt and the user's text."""
    def build_prompt(sys_text: str | None, user: str) -> str:
        return examples.build_prompt(tokenizer, sys_text, user)

    answer_turn = None
    if getattr(tokenizer, "chat_template", None):
        def answer_turn(sys_text, user, answer):
            messages = ([{"role": "system", "content": sys_text}] if sys_text else []) + [
                {"role": "user", "content": user}, {"role": "assistant", "content": answer}]
            return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)

    return ollama_modelfile.chat_template(build_prompt, bos_text=tokenizer.bos_token or None, answer_turn=answer_turn,
                            eos_text=tokenizer.eos_token)


def _engine_render(tokenizer, system: str | None, turns) -> str:
    """The conversation as the tokenizer's own chat template writes it (no leading BOS text)."""
    messages = [{"role": "system", "content": system}] if system else []
    for user, answer in turns:
        messages.append({"role": "user", "content": user})
        if answer is not None:
            messages.append({"role": "assistant", "content": answer})
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    bos = tokenizer.bos_token or ""
    return text[len(bos):] if bos and text.startswith(bos) else text


def bundle_chat(tokenizer, system: str | None) -> dict[str, Any]:
    """bundle.json's ``chat``: the pieces, and whether earlier turns render as the template does."""
    template = chat_template(tokenizer)
    chat = {"with_system": list(template.with_system) if template.with_system else None,
            "without_system": list(template.without_system), "turn_end": template.turn_end}
    bos = tokenizer.bos_token or ""

    def strip(text: str) -> str:
        return text[len(bos):] if bos and text.startswith(bos) else text

    # one turn, with the trained system prompt, another one and none: the engine's prompt exactly
    for sys_text in dict.fromkeys((system, SAMPLE_SYSTEM, None)):
        user = SAMPLE_TURNS[0][0]
        if render_chat(chat, sys_text, [(user, None)]) != strip(examples.build_prompt(tokenizer, sys_text, user)):
            chat["system_message"] = False
            break
    else:
        chat["system_message"] = True
    multi = True
    if getattr(tokenizer, "chat_template", None):
        try:
            for sys_text in (SAMPLE_SYSTEM, None):
                multi = multi and render_chat(chat, sys_text, list(SAMPLE_TURNS)) == _engine_render(
                    tokenizer, sys_text, SAMPLE_TURNS)
        except Exception:  # a template that refuses a system turn or several turns
            multi = False
    chat["multi_turn"] = bool(multi and chat["system_message"])
    return chat

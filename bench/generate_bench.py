"""Generation speed of evaluation and the playground, side by side in one run.

On the same chat prompts (finance questions of different lengths), greedy, the end token
ignored so that every row generates exactly ``--new`` tokens:

* eager PaddleFormers ``model.generate(use_cache=True)``, one prompt at a time (the
  reference, without repetition guards: it has none);
* the engine's ``stream_ids``, one prompt at a time, guards on (as the playground runs);
* the engine's ``generate_batch`` at a few batch sizes, guards on (as evaluation runs),
  and whether its answers are the one-at-a-time answers token for token.

Target: batched tokens per second at least 5x the reference.

    python bench/generate_bench.py                    # the registered gemma-3-270m
    python bench/generate_bench.py --model FOLDER --prompts 16 --new 64
    python bench/generate_bench.py --smoke            # a tiny random Gemma 3: the same code paths
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUESTIONS = [
    "什么是贷款利率？",
    "请用一句话解释通货膨胀。",
    "信用卡逾期会有什么后果？请简要说明。",
    "我想开一个储蓄账户，需要准备哪些材料？",
    "定期存款和活期存款有什么区别？各自适合什么样的客户？",
    "股票和债券的风险有什么不同？",
    "请解释一下什么是基金定投，以及它适合哪些投资者。",
    "银行理财产品到期后资金多久到账？",
    "What is compound interest?",
    "如何提高个人信用评分？请给出三条建议。",
    "房贷提前还款划算吗？需要考虑哪些因素？",
    "外汇汇率受哪些因素影响？",
    "什么是市盈率？它怎么计算？",
    "企业申请小额贷款一般需要多长时间审批？",
    "请比较一下等额本息和等额本金两种还款方式的区别，并说明哪种总利息更少。",
    "保险和储蓄有什么区别？",
]


def _registered_gemma() -> str:
    from workbench.core import models_store

    folder = models_store.resolve("gemma-3-270m")
    if folder is None:
        raise SystemExit("No model gemma-3-270m is registered: add it first (workbench models get gemma-3-270m), "
                         "or give --model FOLDER.")
    return folder


def _tiny_gemma(out: Path) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from model_factory import make_model_folder

    return str(make_model_folder("gemma3", out / "tiny-gemma3"))


def run(model_dir: str, n_prompts: int, n_new: int, batch_sizes: list[int], n_reference: int,
        threads: int | None = None) -> dict:
    import paddle

    from workbench.engine.models import devices
    from workbench.engine import examples
    from workbench.engine.models import loading
    from workbench.engine.inference.generate import GenerationSettings, generate_batch, stream_ids

    loading.set_library_log_level("ERROR")
    model, tok = loading.load_model_and_tokenizer(model_dir, for_training=False)
    model.eval()
    prompts = [examples.encode_prompt(tok, examples.build_prompt(tok, None, q)) for q in (QUESTIONS * 4)[:n_prompts]]
    settings = GenerationSettings(mode="greedy", max_new_tokens=n_new)  # guards on, no stop token
    with paddle.no_grad():  # warm-up: the first calls pick kernels
        x = paddle.to_tensor([prompts[0]], dtype="int64")
        model.generate(input_ids=x, attention_mask=paddle.ones_like(x), max_new_tokens=2,
                       decode_strategy="greedy_search", use_cache=True, eos_token_id=-1)
        generate_batch(model, prompts[:2], GenerationSettings(max_new_tokens=2))

    ours = threads or devices.chosen_threads()  # what evaluation and the playground use (engine/models/devices.py)
    figures: dict = {"model": Path(model_dir).name, "prompts": n_prompts, "new_tokens": n_new,
                     "prompt_tokens": [min(map(len, prompts)), max(map(len, prompts))],
                     "threads_reference": 1, "threads_ours": ours}
    devices.use_threads(1)  # plain Paddle's setting
    t, made = time.perf_counter(), 0
    with paddle.no_grad():
        for p in prompts[:n_reference]:
            x = paddle.to_tensor([p], dtype="int64")
            out = model.generate(input_ids=x, attention_mask=paddle.ones_like(x), max_new_tokens=n_new,
                                 decode_strategy="greedy_search", use_cache=True, eos_token_id=-1)[0]
            made += int(out.shape[-1])
    reference = made / (time.perf_counter() - t)
    figures["reference_eager_generate"] = round(reference, 2)
    devices.use_threads(ours)

    t = time.perf_counter()
    single = [list(stream_ids(model, p, settings)) for p in prompts]
    figures["ours_one_at_a_time"] = round(sum(map(len, single)) / (time.perf_counter() - t), 2)
    for b in batch_sizes:
        t, answers = time.perf_counter(), []
        for start in range(0, len(prompts), b):
            answers += generate_batch(model, prompts[start:start + b], settings)
        speed = sum(map(len, answers)) / (time.perf_counter() - t)
        figures[f"ours_batch_{b}"] = round(speed, 2)
        figures[f"ours_batch_{b}_x_reference"] = round(speed / reference, 2)
        figures[f"ours_batch_{b}_same_answers"] = answers == single
    return figures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="a model folder (default: the registered gemma-3-270m)")
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--new", type=int, default=64, help="new tokens per prompt")
    ap.add_argument("--batch", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--reference-prompts", type=int, default=4,
                    help="prompts the (slow) reference generates; its speed does not depend on the prompt")
    ap.add_argument("--threads", type=int, help="compute threads of our side (default: the engine's choice)")
    ap.add_argument("--smoke", action="store_true", help="a tiny random Gemma 3, tiny sizes (the tests run it)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.smoke:
            figures = run(_tiny_gemma(Path(tmp)), 6, 12, [4], 2)
        else:
            figures = run(args.model or _registered_gemma(), args.prompts, args.new, args.batch,
                          min(args.reference_prompts, args.prompts), args.threads)
    print(json.dumps(figures, ensure_ascii=False, indent=1))
    same = all(v for k, v in figures.items() if k.endswith("_same_answers"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

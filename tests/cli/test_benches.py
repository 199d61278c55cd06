"""Every bench's --smoke runs in a subprocess: a bench that no longer runs fails here.

Each must exit 0 and print the lines that carry its figures; the figures themselves
are not judged (they belong to the benches' full runs).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every bench's smoke run, a process each: `make test-slow`


BENCH = Path(__file__).resolve().parents[2] / "bench"

# bench -> lines its smoke must print (one figure each)
EXPECTED = {
    "data_bench.py": ["bare pandas", "workbench ", "ratio workbench / bare pandas:"],
    "gui_bench.py": ["start-up to window shown (s)", "longest stall, streaming", "curve points received:"],
    "serve_bench.py": ["inputs for built-in classifier (builtin:tiny): the test split of project",
                       "predict.py batch path", "each service load sustained 1 s", "target service >= 0.8x predict.py"],
    "gguf_bench.py": ["conversion:", "tokenizer vs sentencepiece:", "logits: largest difference",
                      "same tokens: True"],
    "quality_bench.py": ["macro-F1   built-in", "accuracy   built-in", "evaluation", "builtin:tiny@0.3 against builtin:tiny"],
    "export_bench.py": ["ratio static / eager", "throughput of the exported classifier", "same tokens",
                        "whole export of builtin:tiny", "est/peak"],
    "train_bench.py": ["ratio worker / plain:", "padding of the batches", "head / label writing: training"],
    "estimate_bench.py": ["ratios estimate / actual", "start estimate within 30% of the actual time:",
                          "first measured estimate within 30% of the actual time:"],
    "remote_bench.py": ["mirror latency over", "through the target", "ratio target / here beyond the upload:"],
    "review_bench.py": ["top 1x (", "top 2x (", "macro-F1 on the true test labels: noisy", "review time:"],
    "linear_fit_bench.py": ["linear part fit:", "ratio estimate / CPU", "baseline fit and score:"],
    "head_layers_bench.py": ["one pass over every layer read", "n-gram baseline on the same training rows",
                             "layers  pooling"],
    "versions_bench.py": ["version stored", "splits made for a reader: cold", "same bytes as the current splits: True"],
    "preference_bench.py": ["held-out preference accuracy (implicit reward): before", "ROUGE-L on",
                            "time (wall s):"],
}


@pytest.mark.parametrize("bench", sorted(EXPECTED))
def test_bench_smoke_runs_and_prints_its_figures(bench, tmp_path):
    if bench == "remote_bench.py":
        from sshd_factory import SSHD

        if SSHD is None:
            pytest.skip("OpenSSH's sshd is not installed (.ci/run installs it)")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", WORKBENCH_HOME=str(tmp_path / "home"))
    res = subprocess.run([sys.executable, str(BENCH / bench), "--smoke"], capture_output=True, text=True,
                         timeout=300, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, f"{bench} --smoke failed:\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    missing = [line for line in EXPECTED[bench] if line not in res.stdout]
    assert not missing, f"{bench} --smoke did not print {missing}:\n{res.stdout[-2000:]}"


def test_quality_bench_prints_a_frozen_start_that_left_lora_no_time(capsys, monkeypatch):
    """Two real runs' records the bench stopped on: CAIL2018's mixture was the word statistics alone
    (its head not read at evaluation), and ATEC's first stage left LoRA no time (nothing compared)."""
    monkeypatch.syspath_prepend(str(BENCH))
    import quality_bench

    m = {"name": "gemma-3-270m@10", "base_model": "gemma-3-270m", "recommended": {
             "epochs": 0.001, "batch_size": 4, "max_length": 864, "learning_rate": 2e-4, "est_seconds": 606.0},
         "train_cpu_s": 896.4, "train_wall_s": 520.8, "last_step": 1, "steps": 1, "best_step": None,
         "estimate_vs_wall": 1.17, "estimate_vs_cpu": 0.68, "peak_rss_mb": 3560.2, "memory_estimate_vs_peak": 2.29,
         "model_macro_f1": 0.9165, "baseline_macro_f1": 0.9078, "ratio": 1.01, "verdict": "matches",
         "difference": 0.0087, "interval": {"low": -0.0039, "high": 0.0237}, "model_accuracy": 0.9214,
         "baseline_accuracy": 0.9165, "parts": {"linear_share": 1.0, "linear_macro_f1": 0.9165},
         "frozen_start": {"kept": "frozen_start", "lora_skipped": True, "frozen_macro_f1": 0.8911},
         "eval_wall_s": 578.4, "eval_in_process_s": 570.0, "eval_vs_train": 1.11}
    quality_bench.show(m, False)
    out = capsys.readouterr().out
    assert "the head alone not read (share 1), the linear part alone 0.9165" in out
    assert "the first stage left LoRA no time: kept the frozen start (validation macro-F1 0.8911)" in out

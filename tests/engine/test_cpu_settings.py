"""How an engine process uses the CPU (engine/models/devices.py, engine/models/family_fixes.py): MKL's AVX2
kernels on AMD processors, the compute threads, and RMS norms that square instead of
calling the slow generic power kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from workbench.engine.models import devices


def _engine_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MKL_DEBUG_CPU_TYPE", "OMP_NUM_THREADS")}
    return {**env, **extra}


def _probe(env: dict) -> dict:
    code = ("import json, os, workbench.engine; from workbench.engine.models import devices; import paddle; "
            "print(json.dumps({'mkl': os.environ.get('MKL_DEBUG_CPU_TYPE'), 'threads': devices.compute_threads(), "
            "'paddle_omp': os.environ.get('OMP_NUM_THREADS')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_an_engine_process_asks_mkl_for_its_avx2_kernels_on_amd_only():
    seen = _probe(_engine_env())
    assert seen["mkl"] == ("5" if devices.cpu_vendor() == "AuthenticAMD" else None)
    # a value the user set is theirs
    assert _probe(_engine_env(MKL_DEBUG_CPU_TYPE="4"))["mkl"] == "4"


@pytest.mark.slow
def test_the_users_thread_setting_wins_although_paddle_overwrites_it_on_import():
    seen = _probe(_engine_env(OMP_NUM_THREADS="3"))
    assert seen["threads"] == 3
    unset = _probe(_engine_env())
    assert unset["paddle_omp"] == "1"  # what importing Paddle leaves, and what must not be read as a choice
    assert 1 <= unset["threads"] <= devices.physical_cores()


def test_threads_are_the_cores_other_work_leaves_idle(monkeypatch):
    psutil = pytest.importorskip("psutil")
    monkeypatch.setattr(devices, "physical_cores", lambda: 4)
    monkeypatch.setattr(psutil, "cpu_count", lambda logical=True: 4)
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: 6.0)  # an idle machine
    assert devices.compute_threads("") == 4
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: 52.0)  # two cores taken
    assert devices.compute_threads("") == 2
    monkeypatch.setattr(psutil, "cpu_percent", lambda interval=None: 100.0)
    assert devices.compute_threads("") == 1
    assert devices.compute_threads("2") == 2


def test_prefer_fast_blas_sets_the_variable_for_amd_processors_only(monkeypatch):
    env: dict = {}
    monkeypatch.setattr(devices, "cpu_vendor", lambda: "GenuineIntel")
    devices.prefer_fast_blas(env)
    assert env == {} and not devices.fast_blas(env)
    monkeypatch.setattr(devices, "cpu_vendor", lambda: "AuthenticAMD")
    devices.prefer_fast_blas(env)
    assert env == {"MKL_DEBUG_CPU_TYPE": "5"} and devices.fast_blas(env)


@pytest.mark.parametrize("family", ["gemma3", "llama", "qwen3"])
def test_every_rms_norm_squares_and_gives_the_same_values(tmp_path, family):
    paddle = pytest.importorskip("paddle")
    from model_factory import make_model_folder
    from paddleformers.nn.norm import RMSNorm
    from paddleformers.transformers.gemma3_text.modeling import Gemma3RMSNorm

    from workbench.engine.models import loading

    model, _ = loading.load_model_and_tokenizer(make_model_folder(family, tmp_path / family), device="cpu")
    norms = [m for m in model.sublayers() if isinstance(m, (RMSNorm, Gemma3RMSNorm))]
    assert norms and all(getattr(type(m), "squares", False) for m in norms), {type(m) for m in norms}
    paddle.seed(1)
    for norm in norms:
        x = paddle.randn([2, 5, norm.weight.shape[0]]) * 3
        original = type(norm).__mro__[1]
        assert paddle.allclose(norm(x), original.forward(norm, x), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kv_heads, q_len", [(1, 1), (1, 7), (2, 5), (4, 3)])
def test_grouped_attention_gives_the_eager_attentions_values(kv_heads, q_len):
    """Gemma 3's attention multiplies each key/value head once with its query heads stacked
    as rows; the values and weights are PaddleFormers' eager attention's (repeat_kv)."""
    paddle = pytest.importorskip("paddle")
    from paddleformers.nn.attention.eager_attention import eager_attention_forward

    from workbench.engine.models.family_fixes import grouped_attention

    class Attn:
        num_key_value_groups = 4 // kv_heads
        training = False

    paddle.seed(3)
    batch, keys = 3, q_len + 6
    q = paddle.randn([batch, 4, q_len, 16])
    k, v = paddle.randn([batch, kv_heads, keys, 16]), paddle.randn([batch, kv_heads, keys, 16])
    mask = paddle.where(paddle.rand([batch, 1, q_len, keys]) > 0.3, paddle.zeros([]), paddle.full([], -1e9))
    ours = grouped_attention(Attn(), q, k, v, attention_mask=mask, scaling=0.25)
    theirs = eager_attention_forward(Attn(), q, k, v, attention_mask=mask, scaling=0.25)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        assert paddle.allclose(a, b, rtol=1e-5, atol=1e-6)


def test_gemma3_layers_attend_with_the_grouped_attention(tmp_path):
    pytest.importorskip("paddle")
    from model_factory import make_model_folder
    from paddleformers.transformers.gemma3_text.modeling import Gemma3Attention

    from workbench.engine.models import loading
    from workbench.engine.models.family_fixes import GROUPED_ATTENTION

    model, _ = loading.load_model_and_tokenizer(make_model_folder("gemma3", tmp_path / "g"), device="cpu")
    attention = [m for m in model.sublayers() if isinstance(m, Gemma3Attention)]
    assert attention and all(m.attn_implementation == GROUPED_ATTENTION for m in attention)


def test_other_work_is_what_the_processor_did_besides_this_process():
    from workbench.core.machine_load import others_busy_share

    # 2 cores for 100 s: 150 CPU seconds busy, 100 of them this run's own threads
    assert others_busy_share(150.0, 100.0, 100.0, 2) == pytest.approx(0.25)
    assert others_busy_share(90.0, 100.0, 100.0, 2) == 0.0  # rounding never gives a negative share
    assert others_busy_share(10.0, 0.0, 0.0, 2) == 0.0


def test_a_runs_threads_follow_the_cores_other_work_leaves(monkeypatch):
    """Seen on 2 cores: a run that started while other work held a core chose one thread and kept
    it for 20 minutes after that work had ended."""
    monkeypatch.setattr(devices, "_USER_THREADS", None)
    monkeypatch.setattr(devices, "physical_cores", lambda: 2)
    monkeypatch.setattr(devices, "logical_cores", lambda default=1: 2)
    readings = iter([(0.0, 0.0, 0.0),
                     (100.0, 100.0, 60.0),    # a minute: too soon to measure again
                     (400.0, 200.0, 200.0),   # 200 s: 400 busy, 200 ours: other work held a core
                     (620.0, 420.0, 400.0),   # the next 200 s: the run alone, on one thread
                     (1020.0, 820.0, 600.0)])  # two threads, still alone
    follower = devices.ThreadsFollower(1, every_s=180.0, read=lambda: next(readings))
    assert follower.check() is None  # 60 s
    assert follower.check() is None  # other work held a core: one thread stays
    before, after, share = follower.check()
    assert (before, after, share) == (1, 2, 0.0) and follower.threads == 2
    assert follower.check() is None
    monkeypatch.setattr(devices, "_USER_THREADS", "1")  # the user's setting is theirs
    assert devices.ThreadsFollower(1, read=lambda: (0.0, 0.0, 0.0)).check() is None


def test_a_cpu_run_measures_its_threads_as_it_trains(tmp_path, monkeypatch):
    """The check runs inside a real training run without disturbing it; a change it makes is an
    event the Train page words."""
    from trained_factory import train_run

    from workbench.core.project import Project, prepare
    from workbench.core.runs import read_events
    from workbench.core.templates import TemplateCatalog

    spec = TemplateCatalog().get("finance_sentiment")
    prepare(spec, spec.sample_path, tmp_path / "p")
    monkeypatch.setenv("WORKBENCH_THREADS_EVERY_S", "0")
    checks = []
    real = devices.ThreadsFollower.check
    monkeypatch.setattr(devices.ThreadsFollower, "check", lambda self: checks.append(self.threads) or real(self))
    run = train_run(Project.open(tmp_path / "p"), "run-threads", steps=4)
    events = read_events(run)
    assert events[-1]["status"] == "completed" and len(checks) >= 4
    for ev in events:
        if ev.get("code") == "threads":
            assert 1 <= ev["threads"] <= devices.physical_cores() and ev["before"] != ev["threads"]

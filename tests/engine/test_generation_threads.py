"""The exported generation model's CPU threads: timed at export (one thread against all the
cores), carried in bundle.json, used by the bundle's Predictor, and without effect on the answers;
and the cache kept in the predictor's tensors gives the logits of the numpy round trip."""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

pytest.importorskip("paddle")

from trained_factory import INST, RUN, trained_project  # noqa: E402


@pytest.mark.slow
def test_the_export_times_the_step_threads_and_the_bundle_uses_them(tmp_path):
    from workbench.engine.export.bundle import export_run

    project = trained_project(INST, tmp_path)
    out = tmp_path / "bundle"
    res = export_run(project.root, RUN, out, formats=["static"], evaluate=False, check_script=False, parity_rows=4)
    gen = res["checks"]["generate"]
    cores = os.cpu_count() or 1
    if cores == 1:
        assert gen["threads"] is None
        return
    one, every = gen["ms_one_thread"], gen[f"ms_{cores}_threads"]
    assert one > 0 and every > 0
    from workbench.engine.export.cached_generation import CORES_MUST_WIN_BY

    assert gen["threads"] == (None if every < CORES_MUST_WIN_BY * one else 1)  # cores only if clearly faster
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["generate"]["threads"] == gen["threads"]

    spec = importlib.util.spec_from_file_location("bundle_runtime_threads", out / "bundle_runtime.py")
    rt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rt)
    chosen = rt.Predictor(str(out), device="cpu")
    assert chosen.threads == (gen["threads"] or cores)
    asked = rt.Predictor(str(out), device="cpu", threads=cores)  # --threads wins over the bundle's choice
    assert asked.threads == cores
    for p in (chosen, asked):
        p.bundle["eos_ids"] = []
    for question in ("信用卡怎么挂失？", "定期存款和活期存款有什么区别？"):
        a = chosen.generate_full(question, max_new_tokens=12, repetition_penalty=1.0, no_repeat_ngram=0)
        b = asked.generate_full(question, max_new_tokens=12, repetition_penalty=1.0, no_repeat_ngram=0)
        assert a == b and a["completion_tokens"] == 12

    # the loop keeps the cache in paddle tensors on the CPU: the same logits, step for step, as
    # handing it in and out as numpy arrays (export_generation's own check loop)
    from workbench.engine.export.cached_generation import empty_cache, step_inputs

    ids = chosen.prompt_ids("请解释一下什么是基金定投。", 64)
    steps, keys_values, seq, new = chosen._cached_steps(ids), empty_cache(chosen.cache), list(ids), list(ids)
    token = None
    for _ in range(48):
        a = steps.send(token)
        b, *keys_values = chosen.run_all(*step_inputs(new, len(seq), *keys_values))
        assert np.array_equal(a, b[0])
        token = int(np.argmax(a))
        seq.append(token)
        new = [token]

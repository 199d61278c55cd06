"""Where the fixed time of a built-in classifier's run goes, against its estimate, on a real set.

The recommendation counts the fit of the classifier's linear part and of the classical
baseline the evaluation compares with (fitted on a thread of the worker while the network
trains) per training row and label (core/recommend.py, classifier_fit_seconds). On a prepared project this bench builds the built-in
classifier as a run does, then fits its linear part (engine/models/char_classifier.py) and the baseline
(engine/models/ngram_baseline.py) in this process, one after the other, and prints for each the CPU
seconds (the machine may be shared, so wall time is printed too) and the ratio of the
estimate to the CPU time (target: 0.7 to 1.3 for the linear part).

    python bench/linear_fit_bench.py --project DIR [--base-model builtin:small]
    python bench/linear_fit_bench.py --smoke     # the legal_case_type sample, builtin:tiny
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.project import Project, prepare  # noqa: E402
from workbench.core.recommend import classifier_fit_seconds  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project")
    ap.add_argument("--base-model", default="builtin:small")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.smoke:
            t = TemplateCatalog().get("legal_case_type")
            prepare(t, t.sample_path, Path(tmp) / "p")
            args.project, args.base_model = str(Path(tmp) / "p"), "builtin:tiny"
        if not args.project:
            ap.error("--project DIR (a prepared classification project) or --smoke")
        from workbench.engine.models import ngram_baseline
        from workbench.engine.models import char_classifier
        from workbench.engine import examples
        from workbench.engine.models import loading
        from workbench.engine.models import builtin_lm

        project = Project.open(args.project)
        task = project.task
        train = examples.read_jsonl(project.split_path("train"))
        test = examples.read_jsonl(project.split_path("test"))
        fmt = char_classifier.input_format(task.input_roles)
        texts = [examples.format_user(fmt, r) for r in train]
        labels = list(task.labels)
        folder = builtin_lm.build_builtin_model(args.base_model.split(":", 1)[1], texts, Path(tmp) / "model", labels=labels,
                                       multi_label=task.multi_label)
        model, tokenizer = loading.load_model_and_tokenizer(folder, device="cpu")
        feats = examples.build_classifier_features(tokenizer, train, labels, user_format=fmt, max_length=1024)
        fit, fit_wall, fit_cpu = timed(lambda: char_classifier.fit_linear_part(model, [f["input_ids"] for f in feats],
                                                                 [f["labels"] for f in feats]))
        _, base_wall, base_cpu = timed(lambda: ngram_baseline.evaluate_baseline(
            "classification", train, test, task.input_roles, labels, multi_label=task.multi_label))
        estimate, baseline_estimate = classifier_fit_seconds(len(train), len(labels), task.multi_label)
        print(f"project {project.root.name}: {len(train)} training rows, {len(labels)} labels"
              f"{' (multi-label)' if task.multi_label else ''}, {fit['features_used']} n-gram features in use")
        print(f"linear part fit: {fit_cpu:.1f} CPU s ({fit_wall:.1f} s wall); estimate {estimate:.1f} s; "
              f"ratio estimate / CPU {estimate / max(fit_cpu, 1e-9):.2f}")
        print(f"baseline fit and score: {base_cpu:.1f} CPU s ({base_wall:.1f} s wall); estimate "
              f"{baseline_estimate:.1f} s; ratio baseline / linear part {base_cpu / max(fit_cpu, 1e-9):.2f}")
        print(f"per row and label: linear part {fit_cpu / (len(train) * max(len(labels), 2)):.2e} CPU s, "
              f"baseline {base_cpu / (len(train) * max(len(labels), 2)):.2e} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

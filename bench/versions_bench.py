"""Data versions: what a corrections version stores, and how long its splits take to make.

Prepares a file with a template (the labels found in the data), records N corrections
(seeded: nine in ten give a row another label, one in ten excludes the row) and writes the
version they make, as the Data page's Review tab and ``workbench data correct`` do. For each N
it prints the bytes the version's folder holds, against the bytes of its splits whole (what
every corrections version held before it was stored as its changes to the prepared version),
and the time a reader waits for the splits: made from the base's on the first read (cold),
then read as made (warm).

    python bench/versions_bench.py --input FILE --template ID [--mapping ROLE=COLUMN ...]
        [--corrections 10 100 1000] [--seed 0] [--project DIR]
    python bench/versions_bench.py --smoke     # the medical_triage sample, seconds
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core import corrections  # noqa: E402
from workbench.core.cleaning import Recipe  # noqa: E402
from workbench.core.labels import template_choice  # noqa: E402
from workbench.core.operations.corrections import correct  # noqa: E402
from workbench.core.project import SPLITS, Project, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.core.versions import materialised_dir, version_dir  # noqa: E402


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def one_count(root: Path, n: int, seed: int) -> dict:
    """Record ``n`` corrections (none before), write their version, and read it as a run would."""
    project = Project.open(root)
    corrections.update(root, undo=list(corrections.load(root)))
    base = project.at_version(project.config.data_base)
    rows = [(r["row_id"], str(r["label"])) for s in SPLITS for r in base.load_split(s).to_dict("records")]
    labels = list(project.task.labels)
    rng = random.Random(seed)
    picked = rng.sample(rows, min(n, len(rows)))
    wanted = [(rid, None if i % 10 == 9 else rng.choice([x for x in labels if x != label]))
              for i, (rid, label) in enumerate(picked)]
    t0 = time.perf_counter()
    applied = correct(root, wanted)
    write_s = time.perf_counter() - t0
    stored = folder_bytes(version_dir(project.data_dir, applied.version))
    shutil.rmtree(materialised_dir(project.data_dir, applied.version), ignore_errors=True)
    t0 = time.perf_counter()
    view = Project.open(root).at_version(applied.version)
    paths = [view.split_path(s) for s in SPLITS]
    cold_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    paths = [Project.open(root).at_version(applied.version).split_path(s) for s in SPLITS]
    warm_s = time.perf_counter() - t0
    whole = sum(p.stat().st_size for p in paths) + (version_dir(project.data_dir, applied.version)
                                                    / "version.json").stat().st_size
    same = all(p.read_bytes() == (project.data_dir / f"{s}.jsonl").read_bytes() for p, s in zip(paths, SPLITS))
    return {"n": n, "corrected": applied.corrected, "excluded": applied.excluded, "stored": stored, "whole": whole,
            "write_s": write_s, "cold_s": cold_s, "warm_s": warm_s, "same": same}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--input", help="the data file (required unless --smoke)")
    p.add_argument("--template", help="the template id (required unless --smoke)")
    p.add_argument("--mapping", nargs="*", default=[], metavar="ROLE=COLUMN")
    p.add_argument("--corrections", nargs="+", type=int, default=[10, 100, 1000], metavar="N")
    p.add_argument("--seed", type=int, default=0, help="which rows are corrected, and to what")
    p.add_argument("--project", help="folder for the project (default: a temporary one)")
    p.add_argument("--smoke", action="store_true", help="a template's sample, a few corrections (the tests run it)")
    args = p.parse_args(argv)
    if args.smoke:
        template = TemplateCatalog().get(args.template or "medical_triage")
        args.input, args.corrections = args.input or str(template.sample_path), [5]
    elif not (args.input and args.template):
        p.error("--input and --template are required (or --smoke)")
    else:
        template = TemplateCatalog().get(args.template)
    mapping = dict(m.split("=", 1) for m in args.mapping)
    with tempfile.TemporaryDirectory(prefix="versions-bench-") as tmp:
        root = Path(args.project or tmp) / "project"
        t0 = time.perf_counter()
        project, _ = prepare(template, args.input, root, recipe=Recipe.from_template(template), mapping=mapping,
                             labels=template_choice(template).model_copy(update={"source": "data"}))
        prepare_s = time.perf_counter() - t0
        base = version_dir(project.data_dir, project.config.data_version)
        rows = sum(len(project.load_split(s)) for s in SPLITS)
        print(f"{Path(args.input).name}: {rows} rows in the splits, {len(project.task.labels)} labels; "
              f"prepared in {prepare_s:.2f} s")
        print(f"snapshot {project.snapshot_path.stat().st_size:,} bytes; prepared version {folder_bytes(base):,} "
              "bytes (its splits whole)")
        ok = True
        for n in args.corrections:
            r = one_count(root, n, args.seed)
            ok &= r["same"]
            print(f"{n} corrections ({r['corrected']} labels changed, {r['excluded']} rows excluded): version stored "
                  f"{r['stored']:,} bytes, splits whole {r['whole']:,} bytes, ratio {r['stored'] / r['whole']:.4f}; "
                  f"written in {r['write_s']:.2f} s")
            print(f"  splits made for a reader: cold {r['cold_s'] * 1000:.1f} ms, warm {r['warm_s'] * 1000:.1f} ms; "
                  f"same bytes as the current splits: {r['same']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Correct labels and make the next data version: what ``workbench data correct`` and the
window's Review tab, data table and predictions do with a person's judgement."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .. import corrections, multilabel
from ..corrections import Correction
from ..errors import DataError, ProjectError
from ..project import SPLITS, Project, split_records
from ..templates import TaskKind
from ..jobs import read_job
from ..runs import run_dirs
from ..versions import ROW_ID, DataVersion, list_versions, prune_versions, read_version, version_dir
from ..versions import write_version as write_split_version

SHOWN_IDS = 10  # row ids named in a message; the rest are counted


@dataclass
class Applied:
    """What a set of corrections did: the new version and its counts."""

    version: str
    corrected: int
    excluded: int
    not_sure: int
    unmatched: list[str] = field(default_factory=list)
    added_labels: list[str] = field(default_factory=list)
    recorded: int = 0

    def to_dict(self) -> dict:
        return {"data_version": self.version, "corrected": self.corrected, "excluded": self.excluded,
                "not_sure": self.not_sure, "unmatched": self.unmatched, "added_labels": self.added_labels,
                "recorded": self.recorded}


def check_correctable(project: Project) -> None:
    """A :class:`ProjectError` unless ``project`` is a prepared classification project whose
    rows have ids."""
    if not project.is_prepared:
        raise ProjectError("The project has no prepared data yet, so there are no rows to correct. Prepare the data "
                           "first.", code="project_not_prepared")
    task = project.task
    if task.task is not TaskKind.classification:
        raise ProjectError("Corrections are for classification labels; this project writes answers.",
                           code="corrections_not_classification")
    if not project.config.data_base or not version_dir(project.data_dir, project.config.data_base).is_dir():
        raise ProjectError("This project was prepared before rows had ids, so a correction could not find its row "
                           "again. Prepare the data again (your steps and choices are kept), then correct.",
                           code="corrections_need_prepare")


def base_frames(project: Project) -> dict[str, pd.DataFrame]:
    """The prepared splits before any correction: the version corrections apply to. A
    multi-label project's label sets are in a ``label`` column as the cleaned rows hold them
    (JSON text), so one path corrects both."""
    base = project.at_version(project.config.data_base)
    frames = {s: pd.read_json(base.split_path(s), lines=True, dtype=False) for s in SPLITS}
    if project.task.multi_label:
        frames = {s: f.assign(label=[json.dumps(multilabel.decode(x), ensure_ascii=False) for x in f["labels"]])
                  .drop(columns="labels") if "labels" in f.columns else f for s, f in frames.items()}
    return frames


def _shown(project: Project, cell: str) -> str:
    """A row's label as a person reads it (a label set joined with " | ")."""
    return multilabel.LABEL_SET_JOINER.join(multilabel.decode(cell)) if project.task.multi_label else cell


def _label_set(project: Project, given: str) -> list[str]:
    """A multi-label correction's label set, read from text as the project's file cells are
    (its separator; a JSON list), in the project's label order, new labels last."""
    choice = project.config.labels
    found = multilabel.split_cell(given, choice.separator if choice is not None else None)
    order = {lab: i for i, lab in enumerate(project.task.labels)}
    return sorted(found, key=lambda lab: (order.get(lab, len(order)), found.index(lab)))


def _short(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f" and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def correct(project_dir: str | os.PathLike, labels: Iterable[tuple[str, str | None]] = (), *,
            not_sure: Iterable[str] = (), undo: Iterable[str] = (), add_labels: bool = False,
            source: str = "command line", write_version: bool = True) -> Applied | None:
    """Record corrections (row id -> new label; None excludes the row), "not sure" marks and
    undos, then write the data version they make (``write_version``; the window records each
    key press and writes the version once, with :func:`rebuild`). In a multi-label project the
    label is the row's label set, read as its file's cells are ("A,B"). Unknown row ids, or
    labels the project does not have (unless ``add_labels``), are refused before anything is
    written."""
    project = Project.open(project_dir)
    check_correctable(project)
    frames = base_frames(project)
    rows = {str(r): (name, lab, txt) for name, f in frames.items()
            for r, lab, txt in zip(f[ROW_ID], f["label"].astype(str), _texts(project, f))}
    multi, labels = project.task.multi_label, list(labels)
    sets = {r: _label_set(project, lab) for r, lab in labels if multi and lab is not None}
    labels = [(r, None if multi and lab is not None and not sets[r] else lab) for r, lab in labels]
    not_sure, undo = list(not_sure), list(undo)
    unknown = [r for r in [*(r for r, _ in labels), *not_sure] if r not in rows]
    if unknown:
        raise DataError(f"{len(unknown)} row id(s) match no row of the project: {_short(unknown)}. Nothing was "
                        "changed. Take the ids from 'workbench review' or the data table.",
                        code="corrections_unknown_rows", count=len(unknown), rows=unknown[:SHOWN_IDS])
    known = set(project.task.labels)
    given = [x for r, lab in labels if lab is not None for x in (sets[r] if multi else [lab])]
    new_labels = sorted(set(given) - known)
    if new_labels and not add_labels:
        raise DataError(f"The project has no label {', '.join(new_labels)}. Nothing was changed. Add it with "
                        "--add-labels, or use one of: " + ", ".join(project.task.labels) + ".",
                        code="corrections_unknown_labels", labels=new_labels, known=list(project.task.labels))

    def made(rid: str, action: str, label: str | None) -> Correction:
        split, original, text = rows[rid]
        chosen = dict(labels=sets[rid]) if multi and action == "label" else dict(label=label)
        return Correction(row_id=rid, action=action, original=_shown(project, original), split=split,
                          text=text[:200], source=source, **chosen)

    new = [made(r, "label" if lab is not None else "exclude", lab) for r, lab in labels]
    new += [made(r, "not_sure", None) for r in not_sure]
    recorded = corrections.update(project.root, new, undo)
    if not write_version:
        return None
    applied = rebuild(project, recorded)
    applied.recorded = len(new) + len(undo)
    return applied


def _texts(project: Project, frame: pd.DataFrame) -> list[str]:
    roles = [r for r in project.task.input_roles if r in frame.columns]
    return frame[roles].fillna("").astype(str).agg("\n".join, axis=1).tolist() if roles else [""] * len(frame)


def rebuild(project: Project, recorded: dict[str, Correction] | None = None) -> Applied:
    """Write the version the recorded corrections make over the prepared splits, and make it
    the project's current one."""
    recorded = corrections.load(project.root) if recorded is None else recorded
    frames = base_frames(project)
    task = project.task
    fixed, done = corrections.apply(frames, recorded, task.multi_label)
    added = corrections.added_labels(recorded, task.labels)
    roles = [c for c in frames["train"].columns if c != ROW_ID]
    config = project.config
    changed = bool(done["corrected"] or done["excluded"])
    # every correction undone: the same content as the prepared version, which is reused
    texts = {s: split_records(fixed[s], roles, task.multi_label) for s in SPLITS}
    version = write_split_version(project.data_dir, texts, DataVersion(
        id="", kind="corrections" if changed else "prepare", base=config.data_base, parent=config.data_version,
        corrected=done["corrected"], excluded=done["excluded"], applied=corrections.effect(recorded),
        source_sha256=config.source.sha256 if config.source else None))
    if added:
        config.task = task.model_copy(update={"labels": [*task.labels, *added]})
    cells = pd.concat([fixed[s]["label"].astype(str) for s in SPLITS])
    stats = dict(config.stats or {})
    stats["splits"] = {s: int(len(fixed[s])) for s in SPLITS}
    stats["rows_clean"] = int(sum(stats["splits"].values()))
    if task.multi_label:
        sets = [multilabel.decode(c) for c in cells]
        stats["labels"] = multilabel.label_rows(sets, (config.task or task).labels)
        stats["no_label_rows"] = sum(not x for x in sets)
    else:
        counts = cells.value_counts()
        stats["labels"] = {lab: int(counts.get(lab, 0)) for lab in (config.task or task).labels}
    stats["corrections"] = {k: done[k] for k in ("corrected", "excluded", "not_sure")} | {
        "unmatched": len(done["unmatched"])}
    config.stats = stats
    config.data_version = version.id
    project.save()
    prune_versions(project.data_dir, {version.id, config.data_base or "", *runs_versions(project)})
    return Applied(version=version.id, corrected=done["corrected"], excluded=done["excluded"],
                   not_sure=done["not_sure"], unmatched=done["unmatched"], added_labels=added)


def runs_versions(project: Project) -> set[str]:
    """The data versions the project's runs record."""
    found = set()
    for d in run_dirs(project.root):
        try:
            if read_job(d).data_version:
                found.add(read_job(d).data_version)
        except Exception:  # a run folder without a readable job: it records nothing
            continue
    return found


def pending(project_dir: str | os.PathLike) -> int:
    """How many rows' corrections (made or undone) the current data version does not hold yet."""
    project = Project.open(project_dir)
    wanted = corrections.effect(corrections.load(project.root))
    current = read_version(project.data_dir, project.config.data_version) if project.config.data_version else None
    if current is None:
        return 0
    held = current.applied
    return sum(wanted.get(rid) != held.get(rid) for rid in set(wanted) | set(held))


def versions(project_dir: str | os.PathLike) -> list[dict]:
    """The project's data versions, oldest first, each with what changed from its parent and
    which one is current."""
    project = Project.open(project_dir)
    out = []
    for v in list_versions(project.data_dir):
        out.append({**v.model_dump(), "current": v.id == project.config.data_version})
    return out


def correction_list(project_dir: str | os.PathLike) -> list[dict]:
    """The recorded corrections, oldest first."""
    return [c.model_dump() for c in sorted(corrections.load(Path(project_dir)).values(), key=lambda c: c.at)]

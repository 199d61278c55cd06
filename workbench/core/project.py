"""A project is a folder: project.json, the imported snapshot, prepared splits, runs, exports.

project.json is written last and atomically, so it is the commit point of a prepare:
a failed prepare leaves the folder as it was before.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any, Callable

import pandas as pd
from pydantic import BaseModel, Field, ValidationError

from .errors import DataError, ProjectError
from .fsutil import atomic_write_text
from .labels import LabelChoice
from .runs import RUNS_DIR, worker_alive
from .task import TaskSpec
from .templates import PromptFormat, TemplateSpec, TaskKind
from .versions import ROW_ID, DataVersion, row_ids, split_file, version_dir, write_version

PROJECT_FILE = "project.json"
SPLITS = ("train", "val", "test")


class SourceInfo(BaseModel):
    path: str
    format: str
    encoding: str | None = None
    sheet: str | None = None
    header: bool | None = None  # CSV/Excel: whether the first row was read as the column names
    sha256: str
    rows: int
    columns: list[str]
    list_columns: list[str] = Field(default_factory=list)  # columns whose cells are JSON lists
    group_column: str | None = None  # the document each row is from: a document stays in one split


class SplitSettings(BaseModel):
    train: float = 0.8
    val: float = 0.1
    test: float = 0.1
    seed: int = 42

    @property
    def ratios(self) -> tuple[float, float, float]:
        return (self.train, self.val, self.test)


class ProjectConfig(BaseModel):
    version: int = 1
    name: str
    template: str
    created: float = Field(default_factory=time.time)
    updated: float = Field(default_factory=time.time)
    source: SourceInfo | None = None
    mapping: dict[str, str | None] = Field(default_factory=dict)
    recipe: dict[str, Any] | None = None
    split: SplitSettings = Field(default_factory=SplitSettings)
    stats: dict[str, Any] = Field(default_factory=dict)
    reports: list[dict[str, Any]] = Field(default_factory=list)
    # the task the project was prepared with; None in a project prepared before projects
    # owned their task (Project.task then falls back to the template's)
    task: TaskSpec | None = None
    labels: LabelChoice | None = None  # how the label set was decided (the Data page's label table)
    # the current data version (core/versions.py), and the prepared one its corrections apply to;
    # None in a project prepared before versions (its rows have no ids until it is prepared again)
    data_version: str | None = None
    data_base: str | None = None


class Project:
    def __init__(self, root: str | os.PathLike, config: ProjectConfig, version: str | None = None):
        self.root = Path(root)
        self.config = config
        self.version = version  # a data version this view reads; None: the current one

    def at_version(self, version: str | None) -> "Project":
        """The project seen at data ``version`` (a run's): its splits are that version's
        (versions.split_file), which no prepare changes (``data/`` is rewritten before project.json names the new
        version). None gives the project as it is."""
        if not version:
            return self
        if not version_dir(self.data_dir, version).is_dir():
            if version == self.config.data_version:
                return self
            raise ProjectError(f"Data version {version} of {self.root} is missing, so a run that trained on it cannot "
                               "read its rows. Restore the project's data folder from a backup.",
                               code="data_version_missing", version=version, path=str(self.root))
        return Project(self.root, self.config, version)

    # ----- folders ----------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def runs_dir(self) -> Path:
        return self.root / RUNS_DIR

    @property
    def cache_dir(self) -> Path:
        """Results that can be made again from the project's files (the baseline's fit)."""
        return self.root / "cache"

    @property
    def exports_dir(self) -> Path:
        return self.root / "exports"

    @property
    def snapshot_path(self) -> Path:
        return self.data_dir / "snapshot.parquet"

    def split_path(self, name: str) -> Path:
        if self.version:
            return split_file(self.data_dir, self.version, name)
        return self.data_dir / f"{name}.jsonl"

    @property
    def task(self) -> TaskSpec:
        """The project's task: labels, aliases, prompt and columns every later step uses."""
        if self.config.task is not None:
            return self.config.task
        from .templates import TemplateCatalog

        template = TemplateCatalog().get(self.config.template)
        return TaskSpec.from_template(template, self.config.mapping or None)

    @property
    def is_prepared(self) -> bool:
        return all(self.split_path(s).is_file() for s in SPLITS)

    # ----- load/save --------------------------------------------------------
    @classmethod
    def open(cls, root: str | os.PathLike) -> "Project":
        root = Path(root)
        path = root / PROJECT_FILE
        if not path.is_file():
            raise ProjectError(f"{root} is not a Workbench project (it has no {PROJECT_FILE}). "
                               "Create one with 'workbench data prepare' or choose another folder.",
                               code="not_a_project", path=str(root))
        try:
            config = ProjectConfig.model_validate_json(path.read_text(encoding="utf-8"))
        except (ValidationError, ValueError) as exc:
            raise ProjectError(f"{path} is damaged and cannot be read ({str(exc).splitlines()[0]}). "
                               "Restore it from a backup or prepare the data again into a new folder.",
                               code="project_damaged", path=str(path)) from None
        return cls(root, config)

    def save(self) -> None:
        self.config.updated = time.time()
        atomic_write_text(self.root / PROJECT_FILE, self.config.model_dump_json(indent=2) + "\n")

    def load_split(self, name: str) -> pd.DataFrame:
        return pd.read_json(self.split_path(name), lines=True, dtype=False)


def prepared_from_sample(project: "Project", template: TemplateSpec) -> bool:
    """Whether the project's data is the template's shipped (synthetic) sample, as imported."""
    source = project.config.source
    if source is None:
        return False
    sample = template.sample_path
    if Path(source.path).resolve() == sample:
        return True
    return sample.is_file() and source.sha256 == file_sha256(sample)


def file_sha256(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def split_records(df: pd.DataFrame, roles: list[str], multi_label: bool = False) -> str:
    """A split's JSON lines: the template's roles and the row id of each row."""
    roles = list(roles) + ([ROW_ID] if ROW_ID in df.columns else [])
    if multi_label:
        return _multi_label_records(df, roles)
    # to_json is vectorised; an explicit fillna keeps blanks as "" rather than null.
    return df[roles].fillna("").astype(str).to_json(orient="records", lines=True, force_ascii=False)


def _multi_label_records(df: pd.DataFrame, roles: list[str]) -> str:
    """Rows of a multi-label project: ``labels`` is a list in place of ``label``."""
    from .multilabel import decode

    out = df[[r for r in roles if r != "label"]].fillna("").astype(str)
    rows = out.to_dict(orient="records")
    for row, cell in zip(rows, df["label"].tolist()):
        row["labels"] = decode(cell)
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def refuse_while_training(root: str | os.PathLike) -> None:
    """A :class:`ProjectError` while a run of the project in ``root`` that records no data
    version trains (one started before versions): it reads ``data/`` itself, and its
    evaluation and a resume would then score or train on other rows than it did. A run that
    records its version reads that version's own folder, so the data may change under it."""
    from .jobs import read_job

    runs = Path(root) / RUNS_DIR
    busy = []
    for d in sorted(runs.iterdir()) if runs.is_dir() else []:
        if d.is_dir() and worker_alive(d):
            try:
                pinned = read_job(d).data_version is not None
            except Exception:  # a job file being written: treat the run as reading data/
                pinned = False
            if not pinned:
                busy.append(d.name)
    if busy:
        raise ProjectError(
            f"Run '{busy[0]}' is training on this project's prepared data, so the data was not prepared again "
            "(its evaluation and a resume read the same files). Wait until it ends, or stop it, then prepare "
            "again; your cleaning steps and choices are kept.", code="prepare_while_training", run=busy[0])


def write_prepared(
    root: Path,
    template: TemplateSpec,
    snapshot: pd.DataFrame,
    splits: dict[str, pd.DataFrame],
    config: ProjectConfig,
    corrected: dict[str, pd.DataFrame] | None = None,
) -> Project:
    """Write the snapshot and the splits as a data version (and, where corrections apply, the
    corrected ``corrected`` as the current version over it), then project.json."""
    refuse_while_training(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / RUNS_DIR).mkdir(exist_ok=True)
    (root / "exports").mkdir(exist_ok=True)
    data = root / "data"
    data.mkdir(exist_ok=True)
    snap = snapshot.copy()
    snap.columns = [str(c) for c in snap.columns]
    from .fsutil import atomic_write

    atomic_write(data / "snapshot.parquet", lambda p: snap.astype("string").to_parquet(p, index=False))
    roles = list(template.roles)
    multi = config.task is not None and config.task.multi_label
    parent = config.data_version
    base = write_version(data, {n: split_records(splits[n], roles, multi) for n in SPLITS},
                         DataVersion(id="", kind="prepare", parent=parent,
                                     source_sha256=config.source.sha256 if config.source else None))
    current = base
    if corrected is not None:
        from .corrections import effect
        from .corrections import load as load_corrections

        current = write_version(data, {n: split_records(corrected[n], roles, multi) for n in SPLITS},
                                DataVersion(id="", kind="corrections", base=base.id, parent=parent,
                                            source_sha256=base.source_sha256,
                                            corrected=int(config.stats.get("corrections", {}).get("corrected", 0)),
                                            excluded=int(config.stats.get("corrections", {}).get("excluded", 0)),
                                            applied=effect(load_corrections(root))))
    config.data_version, config.data_base = current.id, base.id
    project = Project(root, config)
    project.save()
    return project


def _unmapped_hint(template: TemplateSpec, df, mapping: dict, list_columns) -> None:
    """Required roles no column name matched: say which columns the cells point to, as flags."""
    from .column_guess import guess_missing

    missing = [r for r, required in template.roles.items() if required and not mapping.get(r)]
    if not missing:
        return
    guesses = guess_missing(df, missing, mapping, list_columns)
    columns = ", ".join(map(str, df.columns))
    if not guesses:
        raise DataError(f"No column is mapped to {', '.join(missing)} (required by template {template.id}), and "
                        f"no column's name or content says which holds it. Columns are: {columns}. "
                        "Map them with --mapping role=column.")
    flags = " ".join(f"{g.role}={g.column}" for g in guesses)
    unknown = [r for r in missing if r not in {g.role for g in guesses}]
    rest = f" Nothing tells which holds {', '.join(unknown)}." if unknown else ""
    raise DataError(f"No column's name says which holds {', '.join(missing)} (required by template "
                    f"{template.id}). From the contents: {'; '.join(g.message for g in guesses)}.{rest} "
                    f"If that is right, prepare with --mapping {flags} (columns are: {columns}).")


def prepare(
    template: TemplateSpec,
    input_path: str | os.PathLike,
    project_dir: str | os.PathLike,
    *,
    recipe: Any = None,
    mapping: dict[str, str] | None = None,
    split: SplitSettings | None = None,
    sheet: str | None = None,
    header: bool | None = None,
    labels: LabelChoice | None = None,
    prompt: PromptFormat | None = None,
    progress: Callable[[str, float], None] | None = None,
) -> tuple[Project, dict[str, Any]]:
    """Import, map, clean and split ``input_path`` into ``project_dir``.

    ``header``: whether the first row of a CSV or Excel file names the columns (None: as
    this project last read the same file, else told from the file).

    ``labels`` decides the label set (see :mod:`.labels`); ``prompt`` replaces the template's.
    Both default to what an existing project in ``project_dir`` was prepared with, else the
    template's. Everything is computed in memory first; the project folder is touched only
    once the data has passed every check, so bad input leaves nothing half-done behind.
    """
    from .cleaning import Recipe
    from .dataio import read_table
    from .mapping import mapped_columns, suggest_mapping
    from .preparing import clean_for_task

    report = progress or (lambda stage, frac: None)
    root = Path(project_dir)
    refuse_while_training(root)  # before the work, and again before writing (write_prepared)
    old: ProjectConfig | None = None
    if (root / PROJECT_FILE).is_file():
        old = Project.open(root).config
        if old.template != template.id:
            raise ProjectError(
                f"{root} already holds a project for template '{old.template}', not '{template.id}'. "
                "Choose an empty folder or the same template.", code="project_of_other_template", path=str(root),
                template=old.template)
    elif root.exists() and any(p.name not in (RUNS_DIR, "exports", "data") for p in root.iterdir()):
        raise ProjectError(f"{root} exists and is not empty. Choose an empty or new folder for the project.",
                           code="folder_not_empty", path=str(root))

    if header is None and old is not None and old.source is not None \
            and Path(old.source.path) == Path(input_path).resolve():
        header = old.source.header
    report("import", 0.0)
    df, info = read_table(input_path, sheet=sheet, header=header)
    report("import", 1.0)

    suggested = suggest_mapping(template, list(df.columns))
    # a re-prepare keeps the project's mapping where its columns are still in the file
    columns = [str(c) for c in df.columns]
    kept = {r: c for r, c in (old.mapping if old else {}).items() if c is None or mapped_columns(c, columns)}
    final_mapping = {**suggested, **kept, **(mapping or {})}
    _unmapped_hint(template, df, final_mapping, info.list_columns)

    if recipe is None:
        recipe_obj = Recipe.from_template(template)
    elif isinstance(recipe, Recipe):
        recipe_obj = recipe
    elif isinstance(recipe, (str, os.PathLike)):
        recipe_obj = Recipe.load(recipe)
    else:
        recipe_obj = Recipe.model_validate(recipe)
    label_col = final_mapping.get("label")
    if recipe is None and label_col and label_col in columns:  # the template's steps, on a new file
        from .cleaning.label_quotes import propose_unquote

        recipe_obj = propose_unquote(recipe_obj, df[label_col]) or recipe_obj
    base = TaskSpec.from_template(template)
    if prompt is None and old is not None and old.task is not None:
        prompt = old.task.prompt
    if prompt is not None:
        base = base.model_copy(update={"prompt": prompt})
    if labels is None and old is not None:
        from .labels import choice_from_recipe

        labels = old.labels or choice_from_recipe(old.recipe, template.labels, template.label_aliases)
    if labels is None:
        from .labels import template_choice

        labels = template_choice(template)
    settings = split or SplitSettings(**template.split.model_dump())
    report("clean", 0.0)
    result = clean_for_task(df, base, final_mapping, recipe_obj, choice=labels, list_columns=info.list_columns,
                            ratios=settings.ratios, progress=lambda i, n: report("clean", i / max(n, 1)))
    cleaned, step_reports, spec, problems = result.frame, result.reports, result.task, result.problems
    if result.errors:
        raise DataError(" ".join(p.message for p in result.errors))

    from .split import split_frame

    stratify = "label" if template.task is TaskKind.classification else None
    groups = df.loc[cleaned.index, info.group_column] if info.group_column in df.columns else None
    if spec.multi_label:
        from workbench.core import multilabel

        sets = [multilabel.decode(c) for c in cleaned["label"].tolist()]
        strat = cleaned.assign(_stratum=multilabel.stratum(sets))
        splits = {k: v.drop(columns="_stratum") for k, v in
                  split_frame(strat, settings.ratios, settings.seed, "_stratum", groups).items()}
    else:
        splits = split_frame(cleaned, settings.ratios, settings.seed, stratify, groups)
    ids = pd.Series(row_ids(df), index=df.index)
    splits = {k: v.assign(**{ROW_ID: ids.loc[v.index].to_numpy()}) for k, v in splits.items()}
    # the person's corrections, replayed on the rows they name; the splits were drawn from the
    # prepared labels, so a correction never moves a row to another split
    corrected, applied = None, None
    if template.task is TaskKind.classification:
        from . import corrections

        recorded = corrections.load(root)
        if recorded:
            corrected, applied = corrections.apply(splits, recorded, spec.multi_label)
            added = corrections.added_labels(recorded, spec.labels)
            if added:  # labels the person added with a correction
                spec = spec.model_copy(update={"labels": [*spec.labels, *added]})
                applied["added_labels"] = added
            cleaned = pd.concat(list(corrected.values()))

    stats: dict[str, Any] = {
        "rows_imported": int(len(df)),
        "label_set": result.label_summary(),
        "rows_clean": int(len(cleaned)),
        "splits": {k: int(len(v)) for k, v in (corrected or splits).items()},
    }
    if applied is not None:
        stats["corrections"] = {k: applied[k] for k in ("corrected", "excluded", "not_sure")} | {
            "unmatched": len(applied["unmatched"])}
    if groups is not None:  # each document in one split: how many in each
        stats["split_groups"] = {"column": info.group_column, **{
            k: int(groups.loc[v.index].nunique()) for k, v in splits.items()}}
    if spec.multi_label:
        from workbench.core import multilabel

        sets = [multilabel.decode(c) for c in cleaned["label"].tolist()]
        stats["labels"] = multilabel.label_rows(sets, spec.labels)
        stats["label_sets"] = result.label_sets
        stats["no_label_rows"] = sum(not x for x in sets)
    elif template.task is TaskKind.classification:
        counts = cleaned["label"].value_counts()
        stats["labels"] = {lab: int(counts.get(lab, 0)) for lab in spec.labels}
    else:
        lengths = cleaned["output"].fillna("").str.len()
        stats["output_chars"] = {"mean": float(lengths.mean()), "max": int(lengths.max())}
    text_cols = [r for r in template.roles if r not in ("label", "output")]
    stats["text_chars"] = {
        "mean": float(cleaned[text_cols].fillna("").apply(lambda s: s.str.len()).sum(axis=1).mean()),
        "p95": float(cleaned[text_cols].fillna("").apply(lambda s: s.str.len()).sum(axis=1).quantile(0.95)),
    }

    source = SourceInfo(
        path=str(Path(input_path).resolve()), format=info.format, encoding=info.encoding, sheet=info.sheet,
        header=info.header,
        sha256=file_sha256(input_path), rows=int(len(df)), columns=[str(c) for c in df.columns],
        list_columns=list(info.list_columns), group_column=info.group_column)
    config = ProjectConfig(
        name=old.name if old else root.resolve().name,
        template=template.id,
        created=old.created if old else time.time(),
        source=source,
        mapping=final_mapping,
        recipe=result.recipe.model_dump(),
        split=settings,
        stats=stats,
        reports=[r.model_dump() for r in step_reports],
        task=spec,
        labels=result.labels.choice if result.labels is not None else None,
        data_version=old.data_version if old else None,
    )
    report("write", 0.0)
    project = write_prepared(root, template, df, splits, config, corrected)
    report("write", 1.0)
    summary = {
        "project": str(root.resolve()),
        "template": template.id,
        "source": source.model_dump(),
        "mapping": final_mapping,
        "task": spec.summary(),
        "labels": result.label_summary(),
        "steps": [r.model_dump() for r in step_reports],
        "warnings": [p.message for p in problems if p.severity == "warning"],
        "stats": stats,
        "data_version": project.config.data_version,
    }
    if applied is not None:
        summary["corrections"] = applied
    return project, summary

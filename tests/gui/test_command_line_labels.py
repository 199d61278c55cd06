"""The Split tab's command line prepares what the page shows: after every action of the label
editor the shown command is run through the real CLI into a folder of its own, and its label
choice, labels and rows are the page's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from data_factory import hospital_export  # noqa: E402

from workbench.cli import main as cli_main  # noqa: E402
from workbench.core.project import Project  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.gui.pages.data.page import DataPage  # noqa: E402


@pytest.fixture
def page(qtbot, session, background, tmp_path):
    session.create(tmp_path / "projects" / "hospital", TemplateCatalog().get("medical_triage"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(hospital_export(tmp_path / "export.csv"))
    combo = page.mapping_combos["label"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        combo.setCurrentIndex(combo.findData("科别"))
    return page


def _run_shown_command(page, dest: Path) -> int:
    args = list(page.command_box.args)
    assert args[:2] == ["data", "prepare"]
    at = args.index("--project") + 1
    assert args[at] == str(page.session.project.root)
    args[at] = str(dest)  # a folder of its own: the command must not lean on the page's project
    return cli_main(args)


def _prepared_rows(project: Project) -> int:
    return sum(len(project.load_split(name)) for name in ("train", "val", "test"))


ACTIONS = [
    ("use the labels found", lambda e: e.use_found()),
    ("rename", lambda e: e.rename("肝病科", "肝胆科")),
    ("rename the renamed label", lambda e: e.rename("肝胆科", "肝胆外科")),
    ("merge", lambda e: e.merge(["肾内科", "风湿免疫科"], "肾内科")),
    ("rename onto another label", lambda e: e.rename("内分泌科", "肾内科")),
    ("exclude", lambda e: e.exclude(["感染科"])),
    ("exclude another", lambda e: e.exclude(["呼吸科"])),
    ("include again", lambda e: e.exclude(["呼吸科"], False)),
    ("least rows", lambda e: e.set_min_rows(4)),
    ("name a code", lambda e: e.name_codes({"消化 科": "消化科"})),
    ("default least rows", lambda e: e.set_min_rows(None)),
    ("the template's labels again", lambda e: e.use_template()),
]


def test_the_shown_command_prepares_what_the_page_shows_after_every_label_action(qtbot, page, tmp_path, capsys):
    editor = page.labels_editor
    for i, (name, action) in enumerate(ACTIONS):
        with qtbot.waitSignal(page.cleaned, timeout=30000):
            action(editor)
        _, left_out = page.prepare_command()
        assert not left_out, name
        dest = tmp_path / f"cli-{i}"
        rc = _run_shown_command(page, dest)
        err = capsys.readouterr().err
        if not page.prepare_button.isEnabled():  # the page refuses (the template's labels): so does the command
            assert rc == 2 and "--labels from-data" in err, name
            continue
        assert rc == 0, f"{name}: {err}"
        prepared = Project.open(dest)
        assert prepared.config.labels == page.current_label_choice(), name
        assert prepared.task.labels == page.task.labels, name
        assert prepared.task.label_aliases == page.task.label_aliases, name
        assert _prepared_rows(prepared) == len(page.cleaned_df), name


def test_a_label_pair_without_a_new_name_is_refused_with_an_example(tmp_path, capsys):
    src = hospital_export(tmp_path / "export.csv")
    rc = cli_main(["data", "prepare", "--template", "medical_triage", "--input", str(src), "--project",
                   str(tmp_path / "p"), "--mapping", "text=主诉内容", "label=科别", "--labels", "from-data",
                   "--rename-label", "肝病科"])
    assert rc == 2
    assert "--rename-label '肝病科' is not of the form LABEL=NAME" in capsys.readouterr().err
    assert not (tmp_path / "p" / "project.json").exists()

"""The Export page offers the wheelhouse and the platform it is for: unticked and the Docker
image's at first, passed to the command, shown in the result."""

from workbench.cli import build_parser
from workbench.core.operations.export import BUNDLE_TARGETS, DEFAULT_TARGET
from workbench.gui.pages.export.page import ExportPage, bundle_entries, target_title


def test_the_wheelhouse_is_offered_unticked_and_reaches_the_command(qtbot, session, background, sample_project):
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    box = page.wheelhouse_check
    assert not box.isChecked() and "wheels/" in box.text()
    assert build_parser().parse_args(page.export_args("run-x")).wheelhouse is False
    box.setChecked(True)
    ns = build_parser().parse_args(page.export_args("run-x"))
    assert (ns.command, ns.wheelhouse, ns.json) == ("export", True, True)


def test_the_result_shows_the_pins_and_the_wheels(qtbot, session, background, sample_project, tmp_path):
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    req = {"packages": 33, "hashes": True, "reason": None,
           "wheelhouse": {"status": "ok", "wheels": 33, "size_mb": 237.0, "offline_install_checked": True}}
    page.show_result({"formats": {}, "checks": {"requirements": req}})
    cells = [page.table.item(0, c).text() for c in range(page.table.columnCount())]
    assert "33" in cells[2] and "237.0 MB" in cells[2] and "wheels/" in cells[3]
    page.show_result({"formats": {}, "requirements": {"packages": 33, "hashes": False,
                                                      "reason": "no package index was reachable"}})
    assert "no package index was reachable" in page.table.item(0, 2).text()
    assert page.table.item(0, 3).text() == "requirements.lock"

    bundle = tmp_path / "bundle"
    (bundle / "wheels").mkdir(parents=True)
    for name in ("requirements.lock", ".dockerignore"):
        (bundle / name).write_text("x\n")
    (bundle / "wheels" / "a-1-py3-none-any.whl").write_bytes(b"0" * 10)
    shown = {name: what for name, _, what in bundle_entries(bundle)}
    assert set(shown) == {"requirements.lock", "wheels/"} and all(shown.values())  # hidden files not listed


def test_the_target_platform_is_offered_and_reaches_the_command(qtbot, session, background, sample_project):
    session.open(sample_project)
    page = ExportPage(session, background)
    qtbot.addWidget(page)
    combo = page.target_combo
    assert [combo.itemData(i) for i in range(combo.count())] == list(BUNDLE_TARGETS)  # the core's list, in order
    assert combo.currentData() == DEFAULT_TARGET == "linux-x86_64"  # the Docker image's platform
    assert build_parser().parse_args(page.export_args("run-x")).target_platform == DEFAULT_TARGET
    for i in range(combo.count()):
        combo.setCurrentIndex(i)
        assert combo.itemText(i) == target_title(combo.itemData(i)) != combo.itemData(i)  # worded, not the key
        assert build_parser().parse_args(page.export_args("run-x")).target_platform == combo.itemData(i)
    assert build_parser().parse_args(["export", "--project", "p", "--run", "r"]).target_platform == DEFAULT_TARGET
    page.show_result({"formats": {}, "checks": {"requirements": {
        "packages": 33, "hashes": True, "reason": None, "target": "windows-x86_64"}}})
    assert target_title("windows-x86_64") in page.table.item(0, 2).text()

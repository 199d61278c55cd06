"""Every error the core and the engine make for a person carries a code, so that the window can
say it in its own language.

Seen in the Chinese window: an export of a run whose base model folder was gone, a GGUF file
that was not one, a duplicate model name, all said in English: their errors had no code, and
the window shows the English message of an error whose code it does not know."""

from __future__ import annotations

import pytest
from error_sites import error_classes, error_sites

from workbench.core.errors import DataError

# The sites that make an error without a code, by module and function: only what a person using
# the window never meets. Each names why.
WITHOUT_CODE = {
    # the command line's own flags, parsed before anything runs; the window never writes them
    ("core/labels.py", "parse_label_list"): "--labels",
    ("core/labels.py", "parse_code_map"): "--label-map",
    ("core/labels.py", "parse_label_pairs"): "--rename-label, --merge-label",
    ("core/mapping.py", "parse_mapping_args"): "--mapping",
    # a value outside the window's own drop-down lists: a programmer's mistake
    ("core/labels.py", "keep_several"): "the Labels tab's choices",
    ("core/labels.py", "set_no_label"): "the Labels tab's choices",
    # the Data page shows each mapping problem in its own words and enables Prepare only without
    # them; the command line prints the problems joined
    ("core/mapping.py", "apply_mapping"): "the mapping's problems",
    ("core/project.py", "prepare"): "the mapping's and the labels' problems",
    ("core/project.py", "_unmapped_hint"): "a required column left unmapped: the Data page asks for it",
    # called without the engine's converter: a programmer's mistake
    ("core/operations/models.py", "add"): "no converter",
    ("core/operations/models.py", "get"): "no converter",
    # the playground's requests are the window's own JSON lines, checked before they are sent
    ("engine/inference/playground.py", "user_text"): "a request without text",
    ("engine/inference/playground.py", "stream"): "settings the window does not send",
}


def test_every_error_the_core_and_the_engine_make_has_a_code():
    _, coded_classes = error_classes()
    sites = error_sites("core", "engine")
    assert len(sites) > 200, len(sites)  # the walk finds the errors at all
    without = [s for s in sites if not s.coded and s.cls not in coded_classes]
    missing = [str(s) for s in without if (s.path, s.function) not in WITHOUT_CODE]
    assert not missing, "errors without a code (give one, and a text in gui/error_texts.py):\n" + "\n".join(missing)
    stale = set(WITHOUT_CODE) - {(s.path, s.function) for s in without}
    assert not stale, f"allowed without a code, but coded or gone: {sorted(stale)}"


def test_the_classes_that_give_their_own_code_are_found():
    errors, coded = error_classes()
    assert {"DataError", "ModelLoadError", "ExportError", "GGUFWriteError", "CheckpointMismatch",
            "LicenceNotAccepted", "Cancelled"} <= errors
    assert {"RunBusy", "MultiLabelNeedsBuiltin"} <= coded and "ModelLoadError" not in coded


def test_an_error_passed_on_keeps_its_code(tmp_path):
    """The importer turns the JSON reader's TextFileError into its DataError (as the export turns a
    GGUF check's or the wheelhouse's failure into its ExportError) with the code and fields."""
    from workbench.core.io import read_table

    bad = tmp_path / "rows.jsonl"
    bad.write_text('{"text": "a", "label": "x"}\n{"text": "b", "label": \n', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        read_table(bad)
    assert caught.value.code == "jsonl_line_invalid", caught.value.code
    assert caught.value.fields["line"] == 2 and caught.value.fields["name"] == "rows.jsonl"
    assert str(caught.value).startswith("'rows.jsonl': line 2 is not valid JSON")  # the English as it was

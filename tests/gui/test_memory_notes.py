"""The recommendation's memory notes (core/recommend.py) as the Train page shows them: the
batch lowered, or layers recomputed when even one row a step would not fit, in the interface
language."""

from __future__ import annotations

import json

import pytest

GEMMA = dict(model_type="gemma3_text", vocab_size=262144, hidden_size=640, intermediate_size=2048,
             num_hidden_layers=18, num_attention_heads=4, num_key_value_heads=1, head_dim=256,
             tie_word_embeddings=True)
STATS = {"splits": {"train": 500, "val": 60, "test": 60}, "text_chars": {"mean": 60, "p95": 150},
         "output_chars": {"mean": 180, "max": 250}}


@pytest.mark.parametrize("gb, english, chinese_text", [
    (8, "Rows per step lowered to", "每批条数已降为"),
    (3.5, "Layers are recomputed in the backward pass", "逐层重算"),
])
def test_the_memory_notes_read_in_both_languages(qtbot, session, background, tmp_path, gb, english, chinese_text):
    from PySide6.QtCore import QCoreApplication, QTranslator

    from workbench.core.recommend import recommend
    from workbench.core.templates import TemplateCatalog
    from workbench.gui.pages.train.page import TrainPage
    from workbench.gui.resources import resources_dir

    model = tmp_path / "gemma"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(GEMMA), encoding="utf-8")
    rec = recommend(TemplateCatalog().get("legal_consult_qa"), STATS, "cpu", str(model), "lora",
                    machine_memory_mb=gb * 1024)
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    shown = [n for n in page._notes(rec) if english in n]
    assert len(shown) == 1 and shown == [n for n in rec.notes if english in n]
    t = QTranslator()
    assert t.load("workbench_zh_CN", str(resources_dir() / "translations"))
    QCoreApplication.installTranslator(t)
    try:
        zh = page._notes(rec)
    finally:
        QCoreApplication.removeTranslator(t)
    assert any(chinese_text in n for n in zh), zh
    assert not any(english in n for n in zh)

"""Rebuild the shipped CJK font subset (a development step, not run by the application).

    python resources/fonts/make_subset.py NotoSansCJK-Regular.ttc

Takes the Simplified Chinese face of Noto Sans CJK (SIL Open Font License 1.1) and keeps
the GB2312 character set, every character used by the templates and the translations,
ASCII and the CJK punctuation and full-width forms. The result is renamed
"Workbench Sans SC" (a modified version under the OFL must not pretend to be the original).
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FAMILY = "Workbench Sans SC"
OUT = HERE / "WorkbenchSansSC-Regular.otf"


def gb2312() -> set[int]:
    chars: set[int] = set()
    for hi in range(0xA1, 0xF8):
        for lo in range(0xA1, 0xFF):
            try:
                chars.add(ord(bytes([hi, lo]).decode("gb2312")))
            except UnicodeDecodeError:
                pass
    return chars


def used_in_repo() -> set[int]:
    chars: set[int] = set()
    paths = list((ROOT / "templates").rglob("*.yaml")) + list((ROOT / "templates").rglob("*.csv"))
    paths += list((ROOT / "resources" / "translations").glob("*.ts"))
    for p in paths:
        chars |= {ord(c) for c in p.read_text(encoding="utf-8", errors="ignore") if ord(c) >= 0x2000}
    return chars


def main(src: str) -> None:
    coll = TTCollection(src)
    font = next(f for f in coll.fonts if "SC" in f["name"].getDebugName(1))
    wanted = gb2312() | used_in_repo() | set(range(0x20, 0x7F)) | set(range(0x3000, 0x3040)) | set(range(0xFF00, 0xFFF0))
    opts = subset.Options()
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    opts.hinting = False
    opts.desubroutinize = False
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=wanted)
    sub.subset(font)
    # a format-4 cmap of thousands of scattered characters outgrows its 16-bit length
    # field and Qt then reads only part of it; a format-12 table (32-bit) is read whole
    from fontTools.ttLib.tables._c_m_a_p import CmapSubtable

    best = font.getBestCmap()
    for t in font["cmap"].tables:  # keep the short tables small enough to stay valid
        if t.format == 4:
            t.cmap = {u: g for u, g in t.cmap.items() if u < 0x2E80}
    for plat, enc in ((3, 10), (0, 4)):
        t12 = CmapSubtable.newSubtable(12)
        t12.platformID, t12.platEncID, t12.language = plat, enc, 0
        t12.cmap = dict(best)
        font["cmap"].tables.append(t12)
    name = font["name"]
    for rec in name.names:
        if rec.nameID in (1, 16):
            rec.string = FAMILY
        elif rec.nameID == 4:
            rec.string = f"{FAMILY} Regular"
        elif rec.nameID == 6:
            rec.string = "WorkbenchSansSC-Regular"
        elif rec.nameID == 3:
            rec.string = f"{FAMILY} Regular; subset of Noto Sans CJK SC"
    font.save(OUT)
    print(f"{OUT.name}: {len(wanted)} code points, {OUT.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")

#!/usr/bin/env bash
# Build the Linux application folder and its per-user installer archive.
#
#   installer/build_linux.sh [--no-selftest] [--gz|--zst]
#
# Needs the project's environment (.venv, as `make test` creates it; PYTHON overrides it)
# with PyInstaller (installed into it on first use, from installer/requirements-build.txt).
# Writes:
#   dist/Workbench/                                   the application folder (run dist/Workbench/Workbench)
#   dist/workbench-<version>-linux-<arch>.tar.gz      the archive: Workbench/, install.sh, workbench.desktop,
#                                                     workbench.png, README.txt (.tar.zst with --zst)
#   dist/Workbench-<version>-<arch>.AppImage          only when appimagetool is on PATH
# and finally runs the built application's self-test from a temporary folder with a bare
# environment (skip with --no-selftest).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
SELFTEST=1
COMPRESS=gz
for arg in "$@"; do
    case "$arg" in
        --no-selftest) SELFTEST=0 ;;
        --gz) COMPRESS=gz ;;
        --zst) COMPRESS=zst ;;
        *) echo "usage: $0 [--no-selftest] [--gz|--zst]" >&2; exit 2 ;;
    esac
done

if [ ! -x "$PYTHON" ]; then
    echo "error: $PYTHON not found; run 'make test' once (it creates .venv) or set PYTHON." >&2
    exit 2
fi
if ! "$PYTHON" -c "import PyInstaller" 2>/dev/null; then
    "$PYTHON" -m pip install --quiet -c constraints.txt -r installer/requirements-build.txt
fi

VERSION="$("$PYTHON" -c 'import workbench; print(workbench.__version__)')"
ARCH="$(uname -m)"
NAME="workbench-$VERSION-linux-$ARCH"
T0=$(date +%s)

echo "== icons"
"$PYTHON" installer/make_icons.py build/icons

echo "== PyInstaller (one folder; this takes a while)"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller installer/workbench.spec
T1=$(date +%s)

echo "== archive"
STAGE="dist/$NAME"
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -al dist/Workbench "$STAGE/Workbench" 2>/dev/null || cp -a dist/Workbench "$STAGE/Workbench"
install -m 755 installer/linux/install.sh "$STAGE/install.sh"
install -m 644 installer/linux/workbench.desktop "$STAGE/workbench.desktop"
install -m 644 build/icons/workbench.png "$STAGE/workbench.png"
install -m 644 installer/linux/README.txt "$STAGE/README.txt"
rm -f "dist/$NAME.tar.gz" "dist/$NAME.tar.zst"
if [ "$COMPRESS" = zst ]; then
    tar -C dist -cf - "$NAME" | zstd -q -T0 -12 -o "dist/$NAME.tar.zst"
    ARCHIVE="dist/$NAME.tar.zst"
elif command -v pigz >/dev/null 2>&1; then
    tar -C dist -cf - "$NAME" | pigz -9 > "dist/$NAME.tar.gz"
    ARCHIVE="dist/$NAME.tar.gz"
else
    tar -C dist -czf "dist/$NAME.tar.gz" "$NAME"
    ARCHIVE="dist/$NAME.tar.gz"
fi
rm -rf "$STAGE"
T2=$(date +%s)

if command -v appimagetool >/dev/null 2>&1; then
    echo "== AppImage"
    APPDIR="build/Workbench.AppDir"
    rm -rf "$APPDIR"
    mkdir -p "$APPDIR/usr"
    cp -a dist/Workbench "$APPDIR/usr/workbench"
    ln -s usr/workbench/Workbench "$APPDIR/AppRun"
    sed 's|"@APP_DIR@/Workbench"|Workbench|' installer/linux/workbench.desktop > "$APPDIR/workbench.desktop"
    cp build/icons/workbench.png "$APPDIR/workbench.png"
    ARCH="$ARCH" appimagetool --no-appstream "$APPDIR" "dist/Workbench-$VERSION-$ARCH.AppImage"
else
    echo "== AppImage: skipped (appimagetool is not installed)"
fi

echo "== summary"
echo "build time:   $((T1 - T0)) s (PyInstaller), $((T2 - T1)) s (archive)"
echo "app folder:   $(du -sh dist/Workbench | cut -f1)  dist/Workbench"
echo "archive:      $(du -sh "$ARCHIVE" | cut -f1)  $ARCHIVE"

if [ "$SELFTEST" = 1 ]; then
    echo "== self-test of the built application (from a temporary folder, bare environment)"
    TMP="$(mktemp -d)"
    trap 'rm -rf "$TMP"' EXIT
    (cd "$TMP" && env -i HOME="$TMP" PATH=/usr/bin:/bin LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen \
        "$ROOT/dist/Workbench/Workbench" --selftest)
fi

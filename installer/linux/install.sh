#!/bin/sh
# Install Workbench for the current user (no administrator rights needed).
#
#   ./install.sh              install or update from the folder this script is in
#   ./install.sh --uninstall  remove it again (projects and settings are kept)
#
# Places:
#   ~/.local/opt/workbench/                         the application folder
#   ~/.local/bin/workbench                          a command for the terminal
#   ~/.local/share/applications/workbench.desktop   the menu entry
#   ~/.local/share/icons/hicolor/256x256/apps/workbench.png
# PREFIX (default ~/.local) moves all of them.
set -eu

PREFIX="${PREFIX:-$HOME/.local}"
APP_DIR="$PREFIX/opt/workbench"
BIN_DIR="$PREFIX/bin"
DESKTOP_DIR="${XDG_DATA_HOME:-$PREFIX/share}/applications"
ICON_DIR="${XDG_DATA_HOME:-$PREFIX/share}/icons/hicolor/256x256/apps"
HERE="$(cd "$(dirname "$0")" && pwd)"

refresh_menus() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$DESKTOP_DIR" >/dev/null 2>&1 || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && \
        gtk-update-icon-cache -q -t "${XDG_DATA_HOME:-$PREFIX/share}/icons/hicolor" >/dev/null 2>&1 || true
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -rf "$APP_DIR"
    rm -f "$BIN_DIR/workbench" "$DESKTOP_DIR/workbench.desktop" "$ICON_DIR/workbench.png"
    refresh_menus
    echo "Workbench removed. Your projects (~/WorkbenchProjects) and settings (~/.local/share/workbench) are kept."
    exit 0
fi

if [ ! -x "$HERE/Workbench/Workbench" ]; then
    echo "error: $HERE/Workbench/Workbench not found; run install.sh from the unpacked archive." >&2
    exit 1
fi

mkdir -p "$PREFIX/opt" "$BIN_DIR" "$DESKTOP_DIR" "$ICON_DIR"
# copy beside the old version first, then swap, so a failed copy leaves the old one working
rm -rf "$APP_DIR.new"
cp -a "$HERE/Workbench" "$APP_DIR.new"
rm -rf "$APP_DIR.old"
[ -d "$APP_DIR" ] && mv "$APP_DIR" "$APP_DIR.old"
mv "$APP_DIR.new" "$APP_DIR"
rm -rf "$APP_DIR.old"

ln -sf "$APP_DIR/Workbench" "$BIN_DIR/workbench"
cp "$HERE/workbench.png" "$ICON_DIR/workbench.png"
sed "s|@APP_DIR@|$APP_DIR|g" "$HERE/workbench.desktop" > "$DESKTOP_DIR/workbench.desktop"
chmod 644 "$DESKTOP_DIR/workbench.desktop"
refresh_menus

echo "Workbench installed in $APP_DIR"
echo "  menu entry: $DESKTOP_DIR/workbench.desktop"
echo "  command:    $BIN_DIR/workbench  (workbench --selftest checks the installation)"
case ":$PATH:" in
    *":$BIN_DIR:"*) ;;
    *) echo "  note: $BIN_DIR is not on your PATH; start it from the menu or with $APP_DIR/Workbench" ;;
esac

#!/usr/bin/env bash
# Set up everything crab-gym needs on Debian 12: Debian packages (X server, window manager, launcher,
# real desktop apps, accessibility stack, adb, QEMU and libvirt), then a virtualenv at .venv with the
# package installed.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS=(
  xvfb xauth x11-utils x11-xserver-utils xdotool xclip openbox rofi
  dbus dbus-x11 at-spi2-core dconf-cli dconf-gsettings-backend gsettings-desktop-schemas
  xfce4-terminal mousepad thunar vim gimp
  libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-gtk3
  python3 python3-venv python3-dev python3-gi python3-pyatspi python3-xlib gir1.2-atspi-2.0 gir1.2-gtk-3.0
  fonts-dejavu-core xfonts-base sqlite3 procps psmisc adb tesseract-ocr tesseract-ocr-eng
  chromium chromium-driver fonts-roboto fonts-material-design-icons-iconfont gir1.2-wnck-3.0 iproute2
  # the offline web's browsers (docs/web.md): Firefox ESR, and certutil to make their profiles trust the session CA
  firefox-esr libnss3-tools
  # the desktop in a VM (crab-gym vm ...): QEMU, libvirt (libvirt-python builds against libvirt-dev), mmdebstrap
  qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-clients libvirt-dev pkg-config mmdebstrap e2fsprogs
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's python3 with system site-packages: python3-gi and pyatspi (AT-SPI) come from Debian.
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import gi" 2>/dev/null; then
  rm -rf .venv
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
# pip's noise about absent local index folders is dropped; a failed install still stops the setup.
quiet_pip() { .venv/bin/python -m pip "$@" 2>&1 | { grep -v "^WARNING: Location" || true; }; }
quiet_pip install -q --upgrade pip || echo "setup: could not upgrade pip; going on with the one we have"
quiet_pip install -q -e ".[test,android,androidenv,marks,sb3,llm,data,play,mcp,plots,video,ray,vm,docs]"
.venv/bin/python -c "import crab_gym, gymnasium, pyatspi" || { echo "setup: the venv is broken" >&2; exit 1; }
# appium-adb, an adb client from npm the tests drive with Node, into the tests' own folder (no global state).
# It needs Node 20 or later: Debian 13's nodejs, or NodeSource's on Debian 12 (whose own nodejs is 18).
if ! command -v npm >/dev/null; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null \
    || echo "setup: could not install nodejs and npm; the appium-adb test will skip"
fi
if command -v npm >/dev/null; then
  (cd tests/envs/android/node && npm install --no-audit --no-fund --loglevel=error >/dev/null) \
    || echo "setup: npm could not install appium-adb; its test will skip"
fi

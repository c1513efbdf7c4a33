#!/usr/bin/env bash
# Installs what svc needs on Debian 12 and is missing, and nothing else. Safe to run again.
#   scripts/setup.sh start   what the service needs
#   scripts/setup.sh test    that, plus what the tests need (a browser)
set -euo pipefail
cd "$(dirname "$0")/.."
purpose="${1:-start}"

say() { printf '[setup] %s\n' "$*"; }

SUDO=""
need_root() {
  if [ "$(id -u)" != 0 ] && [ -z "$SUDO" ]; then
    command -v sudo >/dev/null || { say "need root (or sudo) to $1"; exit 1; }
    SUDO=sudo
  fi
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# LibreOffice 25.2 from Debian's bookworm-backports (Debian 12's own 7.4 is from 2022): the
# full builds, not the -nogui ones, because LibreOffice's dialogs (Format > Paragraph, Format
# Cells, Page Setup...) live in libraries only those ship (libcuilo.so, libswuilo.so...): without
# them a dialog command aborts the engine, with them LibreOfficeKit describes each dialog as
# JSDialog JSON that the editor draws. No GTK or desktop integration is installed (no recommends);
# LibreOfficeKit draws headless. The UI descriptions LibreOfficeKit reads, the
# LibreOfficeKit header (the FFI binding's slot tables are checked against it), the Vietnamese
# language pack (what LibreOffice writes itself for a view with lang=vi) and the Colibre icons the
# editor's toolbar shows. A machine that has 7.4 is upgraded by the same command.
ENGINE_MIN=4:25.2
engine=(libreoffice-core libreoffice-writer libreoffice-calc libreoffice-impress
        libreoffice-draw libreoffice-uiconfig-writer libreofficekit-dev libreoffice-l10n-vi libreoffice-style-colibre)
# Caddy, the fonts documents expect, pdftotext for extraction's tests and the spelling dictionaries
# (the editor's red underlines in English and Vietnamese), from Debian 12 itself.
# The C library's headers: the engines' few native functions (workers/native-c.ts) are compiled at
# start by Bun's TinyCC against them; without them the editing kits cannot start.
packages=(caddy fonts-dejavu-core fonts-liberation2 fonts-noto-core fonts-noto-cjk poppler-utils
          hunspell-en-us hunspell-vi libc6-dev)
# Tests also need a browser.
if [ "$purpose" = "test" ]; then packages+=(chromium); fi

engine_current() {
  for p in "${engine[@]}"; do installed "$p" || return 1; done
  dpkg --compare-versions "$(dpkg-query -W -f='${Version}' libreoffice-core)" ge "$ENGINE_MIN"
}
if ! engine_current; then
  need_root "install LibreOffice 25.2 from bookworm-backports"
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding Debian's bookworm-backports to apt's sources (/etc/apt/sources.list.d/bookworm-backports.sources)"
    printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
  fi
  say "installing LibreOffice 25.2 from bookworm-backports: ${engine[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends -t bookworm-backports "${engine[@]}" >/dev/null
fi
say "LibreOffice $(dpkg-query -W -f='${Version}' libreoffice-core) (libreoffice-core, bookworm-backports)"

missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  need_root "install: ${missing[*]}"
  say "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  say "Debian packages present: ${packages[*]}"
fi

# Bun, from the npm registry (its binary ships inside the package).
if ! command -v bun >/dev/null; then
  say "installing Bun through npm"
  npm install -g bun >/dev/null 2>&1
  command -v bun >/dev/null || export PATH="$(npm prefix -g)/bin:$PATH"
fi
say "bun $(bun --version)"

# JavaScript dependencies, exactly as locked.
if [ ! -d node_modules ] || [ bun.lock -nt node_modules ]; then
  say "installing JavaScript dependencies (bun install --frozen-lockfile)"
  bun install --frozen-lockfile
  touch node_modules
else
  say "JavaScript dependencies present"
fi

#!/usr/bin/env bash
# Installs what svc needs on Debian 12 and is missing, and nothing else. Safe to run again.
#   scripts/setup.sh start   what the service needs
#   scripts/setup.sh test    that, plus what the tests need (a browser)
set -euo pipefail
cd "$(dirname "$0")/.."
purpose="${1:-start}"

say() { printf '[setup] %s\n' "$*"; }

# Debian packages. libreoffice-*-nogui lacks the Calc UI files LibreOfficeKit needs, so the
# full writer/calc/impress packages are used (without recommends: no Java, no GUI extras).
# The hunspell dictionaries give the editor its spell checking (red underlines) in English and Vietnamese;
# libreoffice-l10n-vi the Vietnamese of what LibreOffice writes itself for a view with lang=vi (its menus).
packages=(libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-l10n-vi caddy
          fonts-dejavu-core fonts-liberation2 fonts-noto-core fonts-noto-cjk poppler-utils
          hunspell-en-us hunspell-vi)
# Tests also need a browser, and the LibreOfficeKit header the FFI binding's slot tables are checked against.
if [ "$purpose" = "test" ]; then packages+=(chromium libreofficekit-dev); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { say "need root (or sudo) to install: ${missing[*]}"; exit 1; }
    SUDO=sudo
  fi
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

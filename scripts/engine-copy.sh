#!/usr/bin/env bash
# Makes a self-contained copy of a LibreOffice from Debian's .deb files, to point svc at with
# SVC_ENGINE_PROGRAM_DIR=<target>/usr/lib/libreoffice/program beside the installed one (to compare
# two engines on one machine, as docs/benchmarks.md does for 7.4 and 25.2).
#   scripts/engine-copy.sh <folder of .deb files> <target folder>
# Debian splits the program: the UNO runtime libraries go to /usr/lib/x86_64-linux-gnu and the
# configuration layers to /etc/libreoffice, some named by absolute links, and dpkg's maintainer
# scripts link the configuration (.xcd) into place. The copy keeps everything beneath
# <target>/usr/lib/libreoffice (the one folder an engine is let read of it, workers/confine.ts):
# the libraries beside the program (its RUNPATH is $ORIGIN), links leaving the folder replaced by
# what they point to, and fundamentalrc naming its own folders.
set -euo pipefail
debs="$1"; target="$(realpath -m "$2")"
rm -rf "$target"; mkdir -p "$target"
for f in "$debs"/*.deb; do dpkg-deb -x "$f" "$target"; done
root="$target/usr/lib/libreoffice"
cp -a "$target"/usr/lib/x86_64-linux-gnu/libuno_*.so.3 "$root/program"/ 2>/dev/null || true
# Absolute links name the installed system: re-point them into the copy.
find "$target" -type l -lname '/*' | while read -r link; do
  ln -sfn "$target$(readlink "$link")" "$link"
done
# Links that leave the program's folder become what they point to.
find "$root" -type l | while read -r link; do
  real="$(realpath -m "$link")"
  case "$real" in "$root"/*) ;; *)
    rm "$link"
    if [ -e "$real" ]; then cp -rL "$real" "$link"; fi ;;
  esac
done
# The configuration layer: where 7.4 reads it from /etc/libreoffice/registry, read it from share/registry.
layer="$root/share/registry"
mkdir -p "$layer"
for xcd in "$root"/share/.registry/*.xcd; do
  [ -e "$layer/$(basename "$xcd")" ] || ln -s "../.registry/$(basename "$xcd")" "$layer/$(basename "$xcd")"
done
sed -i -e "s#^BRAND_BASE_DIR=.*#BRAND_BASE_DIR=file://$root#" \
       -e "s#file:///etc/libreoffice/registry#\${BRAND_BASE_DIR}/share/registry#g" "$root/program/fundamentalrc"
echo "[engine-copy] $root/program"

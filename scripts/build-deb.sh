#!/usr/bin/env bash
# Build the Debian package from the committed-or-working tree into build/deb/.
# Needs: debhelper dh-python python3-all python3-setuptools python3-pip (apt).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(dpkg-parsechangelog -S Version)
out=build/deb
src="$out/vppcfg-$version"
rm -rf "$out" && mkdir -p "$src"
# Copy the tracked and new (not ignored) files only: no venv, no build output.
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src"
(cd "$src" && debian/fetch-wheels && dpkg-buildpackage -us -uc -b)
ls -l "$out"/*.deb

#!/usr/bin/env bash
# Build the Debian package from the committed-or-working tree into build/deb/.
# Needs: debhelper dh-python python3-all python3-setuptools python3-pip (apt), and
# network access for debian/fetch-wheels (the vendored wheels, from requirements.lock).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(dpkg-parsechangelog -S Version)
out=build/deb
src="$out/vppcfg-$version"
rm -rf "$out" && mkdir -p "$src"
# Copy the tracked and new (not ignored) files only: no venv, no build output.
# Outside a git work tree (e.g. CI's copy of one), everything but those.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
else
    find . \( -name .git -o -name .venv -o -name build -o -name out -o -name __pycache__ \
        -o -name .pytest_cache -o -name .hypothesis -o -name '*.egg-info' \) -prune \
        -o -type f -printf '%P\0'
fi | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh \
    | xargs -0 cp --parents -t "$src"
(cd "$src" && debian/fetch-wheels && dpkg-buildpackage -us -uc -b)
ls -l "$out"/*.deb

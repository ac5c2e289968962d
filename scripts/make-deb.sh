#!/usr/bin/env bash
# make-deb.sh: what `make deb` runs.  Builds cordon_VERSION_amd64.deb with
# Debian's own tools (dpkg-buildpackage, debian/ and debhelper) from a copy
# of the source tree in build/deb/ (a package build writes beside its
# source and in the directory above it), copies the .deb to build/, and
# runs lintian on it: an error fails the build, warnings are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^VERSION := //p' Makefile)
deb_version=$(dpkg-parsechangelog -S Version)
[ "$version" = "$deb_version" ] ||
	{ echo "make-deb: Makefile's VERSION $version and debian/changelog's $deb_version differ" >&2; exit 1; }

out=build/deb
src=$out/cordon-$version
rm -rf "$out"
mkdir -p "$src"
# The tracked files where there is a git checkout (nothing a build left
# behind), else everything but build/.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard | grep -zv '^build/' |
		xargs -0 cp --parents -t "$src"
else
	tar --exclude=./build -cf - . | tar -xf - -C "$src"
fi
chmod 755 "$src/debian/rules"
(cd "$src" && DEB_BUILD_OPTIONS="noddebs ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -b -us -uc -rfakeroot >../build.log 2>&1) ||
	{ tail -30 "$out/build.log" >&2; echo "make-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
deb=$out/cordon_${version}_amd64.deb
cp "$deb" build/
echo "make-deb: build/$(basename "$deb")"
# lintian: errors fail, the rest is shown.
lintian --tag-display-limit 0 "$deb" >"$out/lintian.txt" 2>&1 || true
cat "$out/lintian.txt"
if grep -q '^E: ' "$out/lintian.txt"; then
	echo "make-deb: lintian reports errors" >&2
	exit 1
fi

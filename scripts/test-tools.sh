#!/bin/sh
# test-tools.sh: the npm packages the integration tests drive, pinned here
# and nowhere else, installed into /var/cache/cordon-test/npm (readable by
# the test user).  Best effort: without the npm registry it says so, and
# each test that needs one of them skips with a line (never a pass).
# Called by scripts/deps.sh; needs root for /var/cache.
set -u
dir=${CORDON_TEST_NPM:-/var/cache/cordon-test/npm}
pkgs="typescript-language-server@4.3.3 typescript@5.6.3 pyright@1.1.389"
[ "$(cat "$dir/.pinned" 2>/dev/null)" = "$pkgs" ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "test-tools: no npm: tests that drive $pkgs skip" >&2; exit 0; }
mkdir -p "$dir" && chmod 755 "$dir" || exit 0
# shellcheck disable=SC2086
if timeout 300 npm install --no-audit --no-fund --silent --prefix "$dir" $pkgs >/dev/null 2>&1; then
	echo "$pkgs" > "$dir/.pinned"
else
	echo "test-tools: could not install $pkgs from npm: the tests that drive them skip with a line" >&2
fi
exit 0

#!/usr/bin/env bash
# run.sh: the toolchains suite.  Installs the build into a temporary prefix
# any user can read (as tests/integration/run.sh does), then runs suite.sh as
# the unprivileged user cordontest (created here) when started as root, or as
# the current user otherwise.  Each scenario of suite.sh runs a real tool once
# directly and once inside cordon, offline, and compares.  Ends with the line
# "N passed, N failed" and fails when any scenario failed.
#   tests/toolchains/run.sh [NAME]   runs only the scenarios whose name contains NAME
set -u
cd "$(dirname "$0")/../.."
TESTUSER=${CORDON_TEST_USER:-cordontest}
BUILD=${BUILD:-build}

PREFIX=$(mktemp -d /var/tmp/cordon-tc-prefix.XXXXXX)
trap 'rm -rf "$PREFIX"' EXIT
chmod 755 "$PREFIX"
make -s install BUILD="$BUILD" PREFIX="$PREFIX" >/dev/null || { echo "run.sh: make install failed" >&2; exit 1; }
mkdir -p "$PREFIX/tests"
cp tests/toolchains/suite.sh "$PREFIX/tests/"
chmod -R a+rX "$PREFIX"

user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
	if ! id "$TESTUSER" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/bash "$TESTUSER" ||
			{ echo "run.sh: cannot create the test user $TESTUSER" >&2; exit 1; }
	fi
	user=$TESTUSER
fi
home=$(getent passwd "$user" | cut -d: -f6)
envs=(CORDON="$PREFIX/bin/cordon" PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" USER="$user"
      LANG=C.UTF-8 ONLY="${1:-}" KEEP="${KEEP:-}")
if [ "$user" = "$(id -un)" ]; then
	cd "$PREFIX" && env -i "${envs[@]}" bash "$PREFIX/tests/suite.sh"
else
	cd "$PREFIX" && runuser -u "$user" -- env -i "${envs[@]}" bash "$PREFIX/tests/suite.sh"
fi

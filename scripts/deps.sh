#!/bin/sh
# Install every Debian package cordon needs to build, test and run.
# Idempotent and quiet when everything is present.  Needs root (or sudo).
set -eu

# --package: what `make deb` and `make check-package` need besides (the
# Debian packaging tools, lintian, debootstrap for the clean root).
if [ "${1:-}" = --package ]; then
	PKGS="debhelper fakeroot dpkg-dev lintian debootstrap"
# --full: what `make check-container` needs besides (a real container
# engine, runc for machines with hybrid cgroups where crun fails, and
# debootstrap for its image); not part of `make check`.
elif [ "${1:-}" = --full ]; then
	PKGS="podman runc debootstrap"
# --run: what building cordon and `make demo` need, nothing of the tests.
elif [ "${1:-}" = --run ]; then
	PKGS="bubblewrap libseccomp-dev libnl-3-dev libnl-route-3-dev musl-tools gcc make
pkg-config libjansson-dev git python3"
else
PKGS="bubblewrap libseccomp-dev libnl-3-dev libnl-route-3-dev musl-tools
libcriterion-dev gcc make pkg-config file git util-linux procps passwd python3
cppcheck clang clang-tidy valgrind libclang-rt-14-dev tmux
golang-go python3-venv python3-pytest python3-pip python3-setuptools nodejs cargo
ripgrep fd-find black isort libjansson-dev jq acl"
# npm: Debian's package, unless a nodejs that bundles it (NodeSource's, which
# conflicts with Debian's npm) provides it already.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

# The real clients of tests/integration/t_netclients.sh and their servers
# (go, node, npm and pip are above).
PKGS="$PKGS curl openssh-client openssh-server openssl python3-httpx python3-requests
python3-websockets"
fi

missing=""
for p in $PKGS; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "deps: need root or sudo to install:$missing" >&2; exit 1; }
	SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null

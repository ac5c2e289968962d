#!/usr/bin/env bash
# check-package.sh DEB: what `make check-package` runs, as root.  Makes a
# clean Debian 12 root with debootstrap (minbase, from the archive this
# machine's apt uses), enters it (a mount namespace and pivot_root, not a
# chroot: the kernel refuses a chrooted process new user namespaces, which
# bwrap needs), installs the package with apt (which brings bubblewrap),
# runs `cordon doctor` and the README's demo as root and as a user created
# there, purges the package and checks that nothing of cordon is left
# outside the users' own state and cache directories.  Ends with
# "N passed, N failed".
set -euo pipefail
deb=$(readlink -f "${1:?usage: check-package.sh DEB}")
[ "$(id -u)" -eq 0 ] || { echo "check-package: run as root (debootstrap, mounts)" >&2; exit 1; }
cd "$(dirname "$0")/.."
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
root=$(mktemp -d /var/tmp/cordon-pkgroot.XXXXXX)
chmod 755 "$root"   # it becomes /: every user must be able to enter it
trap 'umount -R "$root" 2>/dev/null || true; rm -rf --one-file-system "$root" || true' EXIT
t0=$(date +%s)
# Once more after a failure: a busy mirror is not the package's fault.
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
	{ rm -rf --one-file-system "${root:?}"/* && sleep 5 &&
	  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1; } ||
	{ tail -20 "$root.log" >&2; echo "check-package: debootstrap failed" >&2; exit 1; }
rm -f "$root.log"
echo "check-package: debootstrap took $(( $(date +%s) - t0 )) s"
cp "$deb" "$root/tmp/cordon.deb"
cp scripts/demo.sh "$root/tmp/demo.sh"
# The source package's tree (make-deb.sh's copy): built again inside from
# debian/control's Build-Depends alone, so a missing one fails here.
src=$(dirname "$deb")/deb
src=$(find "$src" -mindepth 1 -maxdepth 1 -type d -name 'cordon-*' | head -1)
[ -n "$src" ] || { echo "check-package: no source tree beside $deb (make deb makes it)" >&2; exit 1; }
mkdir -p "$root/tmp/src" && cp -a "$src" "$root/tmp/src/"
cat >"$root/tmp/inside.sh" <<'INSIDE'
#!/bin/bash
# Runs in the new root as its root user.
set -u
pass=0 fail=0
ok()  { pass=$((pass + 1)); echo "  ok   $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL $*"; }
check() { local d=$1; shift; if "$@" >/tmp/out 2>&1; then ok "$d"; else bad "$d"; sed 's/^/     | /' /tmp/out | tail -5; fi; }
export DEBIAN_FRONTEND=noninteractive
check "apt installs the package and what it depends on" \
	sh -c 'apt-get update -qq && apt-get install -y -qq /tmp/cordon.deb git python3'
check "bubblewrap came with it" test -x /usr/bin/bwrap
check "the source builds here from its Build-Depends alone" sh -c \
	'apt-get install -y -qq --no-install-recommends dpkg-dev fakeroot >/dev/null &&
	 cd /tmp/src/cordon-* && apt-get build-dep -y -qq ./ >/dev/null &&
	 DEB_BUILD_OPTIONS=noddebs dpkg-buildpackage -b -us -uc -rfakeroot >/tmp/build.log 2>&1 ||
	 { tail -20 /tmp/build.log; exit 1; }; ls /tmp/src/cordon_*_amd64.deb'
rm -rf /tmp/src /tmp/build.log
check "cordon is on PATH, its helpers in /usr/libexec/cordon" \
	sh -c 'command -v cordon && test -x /usr/libexec/cordon/cordon-inner'
check "man pages installed" test -f /usr/share/man/man1/cordon.1.gz -a -f /usr/share/man/man1/cordon-prefix.1.gz
check "cordon-sh runs bash in the sandbox (status and output as bash)" sh -c \
	'mkdir -p /root/proj && cd /root/proj &&
	 test "$(cordon-sh -c "echo in; exit 3"; echo "rc=$?")" = "$(printf "in\nrc=3")"'
check "cordon-prefix and cordon-sh are links to cordon" sh -c \
	'test "$(readlink -f /usr/bin/cordon-prefix) $(readlink -f /usr/bin/cordon-sh)" = "/usr/bin/cordon /usr/bin/cordon"'
useradd -m -s /bin/bash pkguser
for u in root pkguser; do
	check "cordon doctor as $u" runuser -u "$u" -- cordon doctor
	check "the demo as $u (allowed and refused lines)" runuser -u "$u" -- sh -c \
		'cd && CORDON=cordon bash /tmp/demo.sh >/tmp/demo.out 2>&1; cat /tmp/demo.out;
		 grep -q "allowed: write a file in the writable root" /tmp/demo.out &&
		 grep -q "refused: write to /etc" /tmp/demo.out'
	check "a sandboxed command as $u cannot write outside its root" runuser -u "$u" -- sh -c \
		'cd && mkdir -p ws && ! cordon -w ws -- sh -c "echo x > /etc/pkg-test" && test ! -e /etc/pkg-test'
done
check "apt purges the package" apt-get purge -y -qq cordon
rm -f /tmp/cordon.deb /tmp/demo.sh /tmp/demo.out /tmp/out
left=$(find / -xdev \( -name '*cordon*' \) \
	-not -path '/root/.local/state/cordon*' -not -path '/root/.cache/cordon*' \
	-not -path '/home/*/.local/state/cordon*' -not -path '/home/*/.cache/cordon*' \
	-not -path '/tmp/inside.sh' 2>/dev/null)
if [ -z "$left" ]; then ok "nothing of cordon is left outside the users' state and cache"
else bad "left after purge: $left"; fi
check "no process of cordon runs" sh -c '! ps -eo comm= | grep -Eqx "cordon.*|bwrap"'
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
INSIDE
chmod 755 "$root/tmp/inside.sh"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
t1=$(date +%s)
unshare -m -p -f --propagation private -- sh -c '
	root=$1
	mount --bind "$root" "$root" &&
	mount -t proc proc "$root/proc" &&
	mount --rbind /dev "$root/dev" &&
	mount --rbind /sys "$root/sys" &&
	mount -t tmpfs tmpfs "$root/run" &&
	cd "$root" && mkdir -p .oldroot && pivot_root . .oldroot &&
	umount -l /.oldroot && rmdir /.oldroot &&
	exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 /tmp/inside.sh' sh "$root"
rc=$?
echo "check-package: inside the root $(( $(date +%s) - t1 )) s, in all $(( $(date +%s) - t0 )) s"
exit $rc

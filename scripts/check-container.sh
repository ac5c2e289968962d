#!/usr/bin/env bash
# check-container.sh: cordon inside a real container engine (podman, from
# Debian), as root and as a user of the container, with the engine's
# defaults (a masked /proc: cordon shares the container's PID namespace)
# and with the options people use or cordon doctor recommends
# (--security-opt systempaths=unconfined, --cap-drop ALL, --read-only).
# What `make check-container` runs, as root.  The image is a Debian 12
# root made with debootstrap (as scripts/check-package.sh does), imported
# once and kept (podman image cordon-test:KEY; its tarball is cached in
# /var/cache/cordon-check); cordon is installed from this tree into a
# directory bound read-only into each container.  Ends with
# "N passed, N failed".
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "check-container: run as root (podman, debootstrap)" >&2; exit 1; }
cd "$(dirname "$0")/.."
command -v podman >/dev/null && command -v debootstrap >/dev/null ||
	{ echo "check-container: needs podman and debootstrap (scripts/deps.sh --full)" >&2; exit 1; }
t0=$(date +%s)
PKGS=bubblewrap,git,procps,util-linux
KEY=$(echo "bookworm $PKGS 1" | sha256sum | cut -c1-12)
IMAGE_KEY=$KEY-2
IMAGE=cordon-test:$IMAGE_KEY
CACHE=/var/cache/cordon-check
# --ulimit: podman's defaults (RLIMIT_NOFILE 1048576, RLIMIT_NPROC 4194304)
# are above the hard limits some machines (CI's) give a root without
# CAP_SYS_RESOURCE, and the runtime then fails.
lim() { local v; v=$(ulimit -H "$1"); [ "$v" = unlimited ] || [ "$v" -gt 16384 ] && v=16384; echo "$v:$v"; }
limits=(--ulimit "nofile=$(lim -n)" --ulimit "nproc=$(lim -u)")
# pick_engine IMAGE: crun refuses a machine with cgroup v1 and v2
# controllers both mounted ("hybrid mode"); runc runs there.
engine=()
pick_engine() {
	engine=(podman)
	podman run --rm "${limits[@]}" --network none "$1" true >/dev/null 2>&1 && return
	engine=(podman --runtime runc)
	"${engine[@]}" run --rm "${limits[@]}" --network none "$1" true ||
		{ echo "check-container: podman cannot run a container here" >&2; exit 1; }
}
if ! podman image exists "$IMAGE"; then
	mkdir -p "$CACHE"
	tarball="$CACHE/rootfs-$KEY.tar"
	if [ ! -s "$tarball" ]; then
		mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
		mirror=${mirror:-http://deb.debian.org/debian}
		root=$(mktemp -d /var/tmp/cordon-ctroot.XXXXXX)
		trap 'rm -rf --one-file-system "$root"' EXIT
		debootstrap --variant=minbase --include="$PKGS" bookworm "$root" "$mirror" \
			>"$root.log" 2>&1 ||
			{ tail -20 "$root.log" >&2; echo "check-container: debootstrap failed" >&2; exit 1; }
		rm -f "$root.log"
		tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
		rm -rf --one-file-system "$root"
		trap - EXIT
	fi
	# The user the checks run as, made once: under --read-only none can be.
	podman import -q - "$IMAGE-base" <"$tarball" >/dev/null
	pick_engine "$IMAGE-base"
	podman rm -f "cordon-test-$KEY" >/dev/null 2>&1 || true   # a failed earlier try's
	"${engine[@]}" run --name "cordon-test-$KEY" "${limits[@]}" --network none "$IMAGE-base" \
		useradd -m ctuser
	podman commit -q "cordon-test-$KEY" "$IMAGE" >/dev/null
	podman rm "cordon-test-$KEY" >/dev/null
	podman rmi "$IMAGE-base" >/dev/null
	echo "check-container: image $IMAGE made in $(( $(date +%s) - t0 )) s"
fi
[ ${#engine[@]} -gt 0 ] || pick_engine "$IMAGE"

STAGE=$(mktemp -d /var/tmp/cordon-ctstage.XXXXXX)
trap 'rm -rf "$STAGE"' EXIT
chmod 755 "$STAGE"
make -s install PREFIX="$STAGE/prefix" >/dev/null
cat >"$STAGE/inside.sh" <<'INSIDE'
#!/bin/bash
# In the container, as its root: CASE says which checks (the podman options
# differ per case).  Prints ok/FAIL lines; the host counts them.
set -u
export PATH=/opt/cordon/bin:/usr/sbin:/usr/bin:/sbin:/bin
ok()  { echo "  ok   [$CASE] $*"; }
bad() { echo "  FAIL [$CASE] $*"; sed 's/^/     | /' /tmp/err | head -4; }
as() { local u=$1; shift; if [ "$u" = root ]; then "$@"; else runuser -u "$u" -- "$@"; fi; }
# check DESC STATUS ERR-REGEX -- CMD...: status, and stderr matches.
check() {
	local d=$1 want=$2 re=$3; shift 4
	"$@" >/tmp/out 2>/tmp/err </dev/null
	local got=$?
	if [ "$got" -eq "$want" ] && grep -Eq -- "$re" /tmp/err /tmp/out; then ok "$d"
	else bad "$d (status $got, wanted $want, /$re/)"; fi
}
for u in root ctuser; do
	home=$(getent passwd "$u" | cut -d: -f6)
	ws="$home/ws"
	[ "$CASE" = readonly ] && ws=/tmp/ws-$u   # HOME is read-only there
	as "$u" mkdir -p "$ws" || bad "$u: cannot make $ws"
	cd "$ws"
	case $CASE in
	defaults)
		check "$u: doctor says the PID namespace is shared, prlimit included" 0 \
			'runs share this machine.s PID namespace' -- as "$u" cordon doctor
		grep -q 'prlimit act on itself only' /tmp/out && ok "$u: doctor lists prlimit" ||
			bad "$u: doctor lists prlimit"
		check "$u: a run" 0 "shares this machine's PID namespace" -- \
			as "$u" cordon -w "$ws" -- echo ok
		# Issue 30 item 15: a stopped run must not go on unwatched.
		as "$u" rm -rf "$ws/.git" "$ws"/.git.cordon-quarantine-*
		check "$u: creating .git stops the run" 1 'the sandbox was stopped' -- \
			as "$u" cordon -w "$ws" -C "$ws" -- sh -c 'mkdir .git; sleep 1; rm -rf .git;
			git init -q . && git config core.fsmonitor "echo PWNED >&2; false"; echo on >after'
		sleep 2
		if [ ! -e "$ws/.git" ] && [ ! -e "$ws/after" ]; then ok "$u: nothing went on after the stop"
		else bad "$u: the command went on after the stop: $(ls -a "$ws" | tr '\n' ' ')"; fi
		out=$(cd "$ws" && as "$u" git status 2>&1)
		case $out in *PWNED*) bad "$u: git status ran the planted fsmonitor" ;;
		*) ok "$u: git status outside runs nothing planted" ;; esac
		# Issue 30 item 4: prlimit on cordon itself.
		check "$u: the command cannot lower cordon's limits" 1 'not permitted' -- \
			as "$u" cordon -w "$ws" -C "$ws" -- sh -c 'b=$(ps -o ppid= -p $PPID) &&
			c=$(ps -o ppid= -p $b) && prlimit --pid $c --nofile=3:3'
		check "$u: --pid-ns isolate is refused in one line, with what would do" 125 \
			'^cordon: --pid-ns isolate: .*systempaths=unconfined' -- \
			as "$u" cordon --pid-ns isolate -w "$ws" -- true
		[ "$(wc -l </tmp/err)" -eq 1 ] && ok "$u: ... one line" || bad "$u: ... one line"
		;;
	unconfined)
		check "$u: doctor: a PID namespace of the sandbox's own" 0 \
			'pid namespace: ok, .*PID namespace and /proc of its own' -- as "$u" cordon doctor
		check "$u: a run (a low pid of its own namespace)" 0 '^[23]$' -- \
			as "$u" cordon -w "$ws" -- sh -c 'echo $$'
		check "$u: --limit-pids holds" 0 'ok' -- \
			as "$u" cordon --limit-pids 400 -w "$ws" -- echo ok
		;;
	capdrop)
		if [ "$u" = root ]; then
			check "root: doctor names CAP_SETFCAP" 1 'user namespaces: PROBLEM.*CAP_SETFCAP' -- \
				cordon doctor
			check "root: a run is refused, naming CAP_SETFCAP" 125 \
				'^cordon: .*uid_map.*CAP_SETFCAP.*--cap-add SETFCAP' -- cordon -w "$ws" -- true
		else
			check "$u: a user needs no capability" 0 'ok' -- as "$u" cordon -w "$ws" -- echo ok
		fi
		;;
	readonly)
		check "$u: doctor says the caches cannot be created" 1 \
			'caches: PROBLEM, .* cannot be created.*--cache none' -- as "$u" cordon doctor
		check "$u: a run goes on and says so, with what to do" 0 \
			'note: tools. caches stay read-only.*(XDG_CACHE_HOME|--cache none)' -- \
			as "$u" cordon -w "$ws" -- true
		check "$u: --cache none runs" 0 ok -- as "$u" cordon --cache none -w "$ws" -- echo ok
		;;
	esac
done
INSIDE
chmod 755 "$STAGE/inside.sh"

pass=0 fail=0
# run CASE [PODMAN-OPTIONS...]: inside.sh in a fresh container.
run() {
	local c=$1 out
	shift
	echo "== $c: ${engine[*]} run $*"
	# --network none: no network is needed, nor its plugins.
	out=$("${engine[@]}" run --rm "${limits[@]}" --network none -e CASE="$c" \
		-v "$STAGE/prefix:/opt/cordon:ro" \
		-v "$STAGE/inside.sh:/inside.sh:ro" "$@" "$IMAGE" /inside.sh 2>&1) || true
	echo "$out"
	pass=$((pass + $(grep -c '^  ok ' <<<"$out" || true)))
	fail=$((fail + $(grep -c '^  FAIL ' <<<"$out" || true)))
	grep -q '^  \(ok\|FAIL\) ' <<<"$out" || fail=$((fail + 1))
}
run defaults
run unconfined --security-opt systempaths=unconfined
run capdrop --cap-drop ALL --cap-add CHOWN,DAC_OVERRIDE,FOWNER,SETUID,SETGID
# --read-only: / is, /tmp /var/tmp /run are tmpfs; HOME is not writable.
run readonly --read-only
echo "check-container: $(( $(date +%s) - t0 )) s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

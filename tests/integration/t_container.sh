#!/usr/bin/env bash
# t_container.sh: cordon inside a container, simulated the way a container
# runtime leaves /proc (issue 25): entries masked by bind mounts over them
# (/proc/keys, /proc/timer_list), /proc/sys bound read-only over itself, or
# both, in a mount namespace of the test's own (unshare -m, root only).  The
# kernel then refuses the sandbox a fresh proc, and cordon runs the command
# in the caller's PID namespace with the host's /proc, scoped by Landlock.
# The root pass runs every case as root and as the test user; the user pass
# cannot make the mounts and skips.  Without Landlock (the second pass) that
# mode has no equal: every run there must refuse.
. "$(dirname "$0")/lib.sh"

TU=${CORDON_TEST_USER:-cordontest}
skip_all() {
	echo "  skip [$WHO] $*"
	finish
	exit
}
is_root || skip_all "only root can mount over /proc (the root pass runs $TU too)"
id "$TU" >/dev/null 2>&1 || skip_all "no test user $TU"
command -v unshare >/dev/null || skip_all "no unshare"
# run.sh's PATH has no sbin.
RUNUSER=$(PATH=$PATH:/usr/sbin:/sbin command -v runuser) || skip_all "no runuser"

ws="$W/ws"
mkdir -p "$ws"
chmod 777 "$ws"
P="$HELPERS/pid1probe"
NOLL=${CORDON_NO_LANDLOCK:-0}

# incontainer VARIANT USER COMMAND...: COMMAND as USER, in a mount namespace
# where /proc looks as a container's does.
incontainer() {
	local v=$1 u=$2
	shift 2
	local home cache
	home=$(getent passwd "$u" | cut -d: -f6)
	cache="${XDG_CACHE_HOME%/*}/$u"
	# run.sh makes one for its own test user; another's is made here, or
	# doctor rightly says no cache directory can be created.
	[ -d "$cache" ] || install -d -m 0700 -o "$u" "$cache"
	RUNUSER=$RUNUSER unshare -m --propagation private -- bash -c '
		v=$1; u=$2; home=$3; cache=$4; shift 4
		case $v in masks|both)
			mount --bind /dev/null /proc/keys && mount --bind /dev/null /proc/timer_list || exit 99;;
		esac
		case $v in rosys|both) mount -o bind,ro /proc/sys /proc/sys || exit 99;; esac
		cd "$0" && exec "$RUNUSER" -u "$u" -- env HOME="$home" USER="$u" XDG_CACHE_HOME="$cache" "$@"
	' "$ws" "$v" "$u" "$home" "$cache" "$@"
}

C=("$CORDON" -w "$ws" -C "$ws")

# --- the command runs, and says once what it lacks -------------------------
for v in masks rosys both; do
	for u in root "$TU"; do
		if [ "$NOLL" = 1 ]; then
			expect_err 125 'Landlock ABI 6' \
				"$v, $u, no Landlock: refused, no weaker mode than a signal-scoped domain" -- \
				incontainer "$v" "$u" "${C[@]}" -- echo ok
			continue
		fi
		expect_out 0 '^ok$' "$v, $u: the command runs" -- incontainer "$v" "$u" "${C[@]}" -- echo ok
		assert "$v, $u: one note says it shares the PID namespace" -- \
			test "$(grep -c "shares this machine's PID namespace" "$ERR")" -eq 1
		if [ "$v" = masks ]; then
			assert "$v, $u: inotify shares applied (no note)" -- \
				test "$(grep -c 'inotify and fanotify' "$ERR")" -eq 0
		else
			assert "$v, $u: a note says the inotify shares are not applied" -- \
				grep -q 'inotify and fanotify: none: /proc/sys is read-only' "$ERR"
		fi
	done
done
expect_err 125 '^cordon: --pid-ns isolate: the kernel refuses the sandbox a /proc.*pass --pid-ns auto.*systempaths=unconfined' \
	"an explicit --pid-ns isolate is never relaxed (refused with what would do)" -- \
	incontainer both "$TU" "${C[@]}" --pid-ns isolate -- echo ok
assert "... in one line" -- test "$(wc -l <"$ERR")" -eq 1
if [ "$NOLL" = 1 ]; then
	expect_err 125 '^cordon: --pid-ns inherit needs Landlock ABI 6' \
		"no Landlock: an explicit --pid-ns inherit on a plain host is refused too" -- \
		"${C[@]}" --pid-ns inherit -- echo ok
	finish
	exit
fi
expect_out 0 '^ok$' "an explicit --pid-ns inherit on a plain host runs" -- \
	"${C[@]}" --pid-ns inherit -- echo ok

# --- doctor, explain and the report say the same ----------------------------
expect_out 0 "pid namespace: ok, the kernel refuses a fresh proc" "doctor: the mode and why" -- \
	incontainer both "$TU" "$CORDON" doctor
for want in '^  lost: the command sees' '^  the container would need: /proc unmasked' \
	'^sysctl: ok, /proc/sys is read-only'; do
	assert "doctor: /$want/" -- grep -q "$want" "$OUT"
done
expect_out 0 '"pid_namespace":\{"mode":"inherit"' "explain --json: inherit" -- \
	incontainer masks "$TU" "$CORDON" explain --json -w "$ws" -C "$ws" -- true
assert "explain --json: inotify shares applied with masks only" -- \
	grep -q '"watches":{"shared":true' "$OUT"
assert "explain --json: the host-pid filter, from its table" -- \
	grep -q '"host_pid_seccomp":\[{"syscall":"setpriority"' "$OUT"
expect_out 0 '^  prlimit64 +pid \(low 32 bits\) is not 0 \(the caller\), and new limits are given' \
	"explain: the host-pid filter's section" -- \
	incontainer masks "$TU" "$CORDON" explain -w "$ws" -C "$ws" -- true
assert "... headed, before the bwrap argv" -- test "$(grep -n '^bwrap argv' "$OUT" | cut -d: -f1)" -gt \
	"$(grep -n '^inherit-mode host-pid filter' "$OUT" | cut -d: -f1)"
install -d -m 0755 -o "$TU" "$W/rep"
rep="$W/rep/report.json"
expect 0 "a run with --report" -- incontainer rosys "$TU" "${C[@]}" --report "$rep" -- true
assert "report: inherit, and the inotify shares not applied" -- \
	grep -q '"pid_namespace":{"mode":"inherit".*"sysctl_read_only":true' "$rep"
assert "report: watches not shared" -- grep -q '"watches":{"shared":false' "$rep"

# --- out of reach: the test's own process, as each user ---------------------
for u in root "$TU"; do
	pidf="$W/target.$u"
	install -m 0644 -o "$u" /dev/null "$pidf"
	"$RUNUSER" -u "$u" -- sh -c 'echo $$ >"$1"; exec env CT_SECRET=hunter2 sleep 60' sh "$pidf" 2>/dev/null &
	disown
	wait_for 50 test -s "$pidf"
	T=$(cat "$pidf")
	expect_err 1 'not permitted' "$u: the command cannot signal a host process ($T)" -- \
		incontainer both "$u" "${C[@]}" -- kill -0 "$T"
	assert "control: the test can signal it" -- kill -0 "$T"
	expect_out 1 '^(EACCES|EPERM)$' "$u: the command cannot ptrace it" -- \
		incontainer both "$u" "${C[@]}" -- "$P" attach "$T"
	expect_out 1 '^(EACCES|EPERM)$' "$u: nor read its environment" -- \
		incontainer both "$u" "${C[@]}" -- "$P" open "/proc/$T/environ"
	expect_out 1 '^(EACCES|EPERM)$' "$u: nor read its memory" -- \
		incontainer both "$u" "${C[@]}" -- "$P" open "/proc/$T/mem"
	expect_out 1 '^(EACCES|EPERM)$' "$u: nor enter its root through /proc" -- \
		incontainer both "$u" "${C[@]}" -- "$P" open "/proc/$T/root/etc/hostname"
	expect_err 1 'ermission denied|not permitted' "$u: nor renice it" -- \
		incontainer both "$u" "${C[@]}" -- renice -n 5 -p "$T"
	expect_err 1 'ermission denied|not permitted' "$u: nor pin it to a CPU" -- \
		incontainer both "$u" "${C[@]}" -- taskset -p 1 "$T"
	assert "$u: its nice value is unchanged" -- test "$(ps -o ni= -p "$T" | tr -d ' ')" = 0
	expect 0 "control: the command renices itself" -- \
		incontainer both "$u" "${C[@]}" -- sh -c 'renice -n 5 -p 0 >/dev/null'
	expect_out 0 '^ok$' "control: the command reads its own environment there" -- \
		incontainer both "$u" "${C[@]}" -- "$P" open /proc/self/environ
	expect_out 0 '^killed$' "control: the command signals its own child" -- \
		incontainer both "$u" "${C[@]}" -- sh -c 'sleep 30 & kill $! && wait $!; echo killed'
	assert "$u: the host process is still there" -- kill -0 "$T"
	kill "$T" 2>/dev/null
done

# --- the command's orphans are reaped and killed ----------------------------
cp "$(command -v sleep)" "$ws/orphan.$$"
chmod 755 "$ws/orphan.$$"
for u in root "$TU"; do
	expect_out 0 '^started$' "$u: a command that leaves orphans behind" -- \
		incontainer both "$u" "${C[@]}" -- sh -c \
		"(\"$ws/orphan.$$\" 61 &); setsid \"$ws/orphan.$$\" 62 & echo started"
	assert "$u: none of its orphans outlives the run" -- \
		wait_for 20 sh -c "! pgrep -f '$ws/[o]rphan.$$' >/dev/null"
done

# --- a plain host keeps the PID namespace of its own ------------------------
expect_out 0 '^2$' "control: outside the container the command is PID 2 of its own namespace" -- \
	"${C[@]}" -- sh -c 'echo $$'
expect_out 0 '^[0-9]+$' "in the container it has a host pid" -- \
	incontainer both "$TU" "${C[@]}" -- sh -c 'test $$ -ne 2 && echo $$'
finish

# lib.sh: sourced by every integration test (tests/integration/t_*.sh).
# Provides the cordon under test ($CORDON), a scratch directory ($W, removed
# at exit) and assertion helpers that count passes and failures.  Each test
# file ends by calling `finish`, which prints "RESULT <passed> <failed>".
set -u
: "${CORDON:?CORDON must name the cordon binary under test}"
: "${HELPERS:?HELPERS must name the directory of test helper programs}"
PASS=0
FAIL=0
W=$(mktemp -d /tmp/cordon-it.XXXXXX)
chmod 755 "$W"
OUT="$W/.out"
ERR="$W/.err"
cleanup_dirs=("$W")
trap 'rm -rf "${cleanup_dirs[@]}"' EXIT
WHO="$(id -un)"

ok()  { PASS=$((PASS + 1)); echo "  ok   [$WHO] $*"; }
bad() { FAIL=$((FAIL + 1)); echo "  FAIL [$WHO] $*"; }

# expect STATUS DESCRIPTION -- COMMAND...: run it, compare the exit status.
expect() {
	local want=$1 desc=$2
	shift 3
	"$@" >"$OUT" 2>"$ERR" </dev/null
	local got=$?
	if [ "$got" -eq "$want" ]; then
		ok "$desc"
	else
		bad "$desc (status $got, wanted $want)"
		sed 's/^/         | /' "$ERR" | head -5
	fi
}

# refuse DESCRIPTION -- COMMAND...: the command ran and failed (status 1-123,
# not one of cordon's own 124-127): the sandbox refused what it tried.
refuse() {
	local desc=$1
	shift 2
	"$@" >"$OUT" 2>"$ERR" </dev/null
	local got=$?
	if [ "$got" -ge 1 ] && [ "$got" -le 123 ]; then
		ok "$desc"
	else
		bad "$desc (status $got, wanted a refusal 1-123)"
		sed 's/^/         | /' "$ERR" | head -5
	fi
}

# expect_out STATUS REGEX DESCRIPTION -- COMMAND...: status and stdout match.
expect_out() {
	local want=$1 re=$2 desc=$3
	shift 4
	"$@" >"$OUT" 2>"$ERR" </dev/null
	local got=$?
	if [ "$got" -eq "$want" ] && grep -Eq -- "$re" "$OUT"; then
		ok "$desc"
	else
		bad "$desc (status $got, wanted $want; stdout should match /$re/)"
		sed 's/^/         > /' "$OUT" | head -5
		sed 's/^/         | /' "$ERR" | head -5
	fi
}

# expect_err STATUS REGEX DESCRIPTION -- COMMAND...: status and stderr match.
expect_err() {
	local want=$1 re=$2 desc=$3
	shift 4
	"$@" >"$OUT" 2>"$ERR" </dev/null
	local got=$?
	if [ "$got" -eq "$want" ] && grep -Eq -- "$re" "$ERR"; then
		ok "$desc"
	else
		bad "$desc (status $got, wanted $want; stderr should match /$re/)"
		sed 's/^/         | /' "$ERR" | head -5
	fi
}

# assert DESCRIPTION -- TEST-COMMAND...: a plain shell condition.
assert() {
	local desc=$1
	shift 2
	if "$@"; then ok "$desc"; else bad "$desc"; fi
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# wait_for TRIES CONDITION...: poll every 0.1 s until CONDITION holds.
wait_for() {
	local n=$1
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# A run's guardian shows itself as cordon-guardian (name and command line),
# not as cordon's command line, so searches for a command's marker never
# find it; it keeps cordon's environment.  Start cordon with
# `env RUN_MARK=MARK` to find it:
# guardians_of MARK: pids of the live guardians of runs marked MARK.
guardians_of() {
	local g
	for g in $(pgrep -x cordon-guardian); do
		tr '\0' '\n' 2>/dev/null <"/proc/$g/environ" | grep -qx "RUN_MARK=$1" && echo "$g"
	done
	return 0
}
# no_guardian_left MARK: 0 once no guardian of runs marked MARK is left
# (waits at most 5 s: a guardian's cleanup after a killed cordon waits for
# the sandbox's end, not longer; one that stays is itself a leftover).
no_guardian_left() {
	local i
	for i in $(seq 250); do
		[ -z "$(guardians_of "$1")" ] && return 0
		sleep 0.02
	done
	return 1
}

# cgroup_lock [-s]: hold /var/tmp/cordon-cgroup.lock (-s: shared) on fd 9
# until the test ends.  t_cgroup_v2 moves the pids controller from cgroup
# v1 to v2 and back; no test that looks at cgroups may see it halfway.  An
# ancestor that holds the lock (`flock LOCK tests/integration/run.sh ...`)
# is enough: waiting then would wait for ourselves.  1 if it stays held
# for 2 minutes.
CGROUP_LOCK=/var/tmp/cordon-cgroup.lock
cgroup_lock() {
	local ino p anc=" " q=$$
	if ino=$(stat -c %i "$CGROUP_LOCK" 2>/dev/null); then
		while [ -n "$q" ] && [ "$q" -gt 1 ]; do
			anc+="$q "
			q=$(sed 's/.*) //' "/proc/$q/stat" 2>/dev/null | cut -d' ' -f2)
		done
		for p in $(awk -v i="$ino" '$2 == "FLOCK" && $6 ~ (":" i "$") { print $5 }' /proc/locks); do
			case "$anc" in *" $p "*) return 0 ;; esac
		done
	fi
	[ -e "$CGROUP_LOCK" ] || (umask 022 && : >>"$CGROUP_LOCK") || return 1
	exec 9<"$CGROUP_LOCK" && flock "$@" -w 120 9
}

# in_test_netns: 0 inside the network namespace run.sh makes for the
# network tests (only lo) with the test resolver map; else says why it skips.
in_test_netns() {
	if [ "$(awk -F: 'NR>2 {gsub(/ /, "", $1); print $1}' /proc/net/dev | tr '\n' ' ')" != "lo " ] ||
	   [ -z "${CORDON_BRIDGE_HOSTS:-}" ]; then
		echo "  skip [$WHO] not in a private network namespace with the test resolver map:" \
		     "run it through tests/integration/run.sh as root"
		return 1
	fi
}

# in_landlock_pass WHAT WHY: 0 where a check that Landlock cannot change
# runs: every pass but the no-Landlock one, which skips it with a line
# naming WHAT and WHY (a parser, a message, the terminal relay: code of
# cordon's own that runs the same with Landlock or without).
# in_unsanitized_pass WHAT WHY: 0 in every pass but the sanitizer one, which
# skips it: what only cordon-bridge or cordon-inner do (static musl, not
# instrumented), or only loads the machine.  CORDON_TEST_FULL=1 (make
# check-full) runs both kinds in every pass.
in_landlock_pass() {
	[ -z "${CORDON_NO_LANDLOCK-}" ] || [ "${CORDON_TEST_FULL:-0}" = 1 ] && return 0
	echo "  skip [$WHO] $1: not in the no-Landlock pass ($2; make check-full runs it)"
	return 1
}
in_unsanitized_pass() {
	[ -z "${CORDON_SANITIZED-}" ] || [ "${CORDON_TEST_FULL:-0}" = 1 ] && return 0
	echo "  skip [$WHO] $1: not in the sanitizer pass ($2; make check-full runs it)"
	return 1
}

finish() {
	echo "RESULT $PASS $FAIL"
	[ "$FAIL" -eq 0 ]
}

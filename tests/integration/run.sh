#!/usr/bin/env bash
# run.sh [FILTER]: the integration suite.  Installs the build into a
# temporary prefix that any user can read (CI clones under /root, which
# others cannot enter), then runs every tests/integration/t_*.sh (those whose
# name matches the extended regular expression FILTER: t_term, or
# 't_term|t_net_proxy') as the current user and, when that is root, again as
# an unprivileged user created here.  Then the whole suite once more as on a
# host without Landlock (see the no-Landlock pass below): every layer under
# Landlock must hold on its own.  Ends with the line "N passed, N failed"
# and fails when any test failed.
#
# Passes (CORDON_TEST_PASSES, a space-separated list):
#   landlock     every file as each user, Landlock available
#   nolandlock   every file as each user, Landlock answering ENOSYS
#   sanitizer    every file once, alternately as root and as the user (the
#                build is the sanitizer build: what it checks is cordon's
#                own code, which runs the same for both users but for the
#                few root-only paths; a file marked "root-only" below
#                always runs as root there; CORDON_TEST_FULL=1, as in
#                make check-full, runs it as both)
# The default is "landlock nolandlock", or "sanitizer" in a sanitizer build
# (BUILD containing "asan"); CORDON_NO_LANDLOCK_PASS=0 drops nolandlock.
#
# Files run side by side, CORDON_TEST_JOBS at a time (default 3: most of a
# file's time is spent waiting on sandboxes, timers and servers, not on a
# core).  What makes that safe: every file keeps its scratch under its own
# mktemp directory and names its processes with marks of its own; one file
# never runs beside itself (its root and user runs share marks); and a file
# whose header holds one of these lines is treated so:
#   # run.sh: alone       runs with no other file beside it (it fills a
#                         per-user kernel count, moves a cgroup controller,
#                         or counts every process of the machine)
#   # run.sh: first       starts before the others (a long file: the pool
#                         finishes sooner when it does not start last)
#   # run.sh: root-only   the sanitizer pass runs it as root (its user run
#                         skips everything)
# The time each file took in each pass goes to CORDON_TEST_TIMES (default
# $BUILD/test-times.tsv); scripts/test-times.sh prints it as a table.
set -u
cd "$(dirname "$0")/../.."
TESTUSER=${CORDON_TEST_USER:-cordontest}
ONLY=${1:-}
JOBS=${CORDON_TEST_JOBS:-3}
BUILD=${BUILD:-build}
TIMES=${CORDON_TEST_TIMES:-$BUILD/test-times.tsv}
if [[ $BUILD == *asan* ]]; then
	PASSES=${CORDON_TEST_PASSES:-sanitizer}
elif [ "${CORDON_NO_LANDLOCK_PASS:-1}" = 0 ]; then
	PASSES=${CORDON_TEST_PASSES:-landlock}
else
	PASSES=${CORDON_TEST_PASSES:-landlock nolandlock}
fi

# Not under /tmp: the sandbox's private /tmp would hide the test helpers
# that run inside it.
PREFIX=$(mktemp -d /var/tmp/cordon-prefix.XXXXXX)
JOBDIR=$PREFIX/jobs
trap 'rm -rf "$PREFIX"' EXIT
chmod 755 "$PREFIX"
make -s install BUILD="$BUILD" PREFIX="$PREFIX" >/dev/null || { echo "run.sh: make install failed" >&2; exit 1; }
mkdir -p "$PREFIX/tests" "$PREFIX/helpers" "$JOBDIR"
cp tests/integration/*.sh "$PREFIX/tests/"
cp "$BUILD"/helpers/* "$PREFIX/helpers/" 2>/dev/null || true
cp tests/helpers/*.py scripts/agents-setup.sh "$PREFIX/helpers/"
chmod -R a+rX "$PREFIX"
chmod 700 "$JOBDIR"

# A sanitizer build (make check-asan): every run of cordon in every test is
# checked for leaks (LeakSanitizer exits 23, which no test expects) and for
# undefined behaviour.
san_env=()
if [[ $BUILD == *asan* ]]; then
	san_env=(CORDON_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
		 LSAN_OPTIONS=exitcode=23 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
fi

# A bwrap that fails the way a real one does when the kernel refuses it, in
# a root-owned place cordon accepts (only root can make one).
fake_env=()
if [ "$(id -u)" -eq 0 ]; then
	FAKE=$(mktemp -d /run/cordon-test.XXXXXX) && chmod 755 "$FAKE" &&
		install -m 0755 "$BUILD/helpers/failbwrap" "$FAKE/bwrap" && fake_env=(FAKE_BWRAP="$FAKE/bwrap")
	# The bridge's test resolver map (bridge/intake.h): honoured only from a
	# root-owned file no one else may write, so only root can make one.
	printf '%s\n' '127.0.0.1 allowed.test denied.test other.test sub.allowed.test' \
		'::1 v6.test' '169.254.169.254 metadata.test' >"$FAKE/hosts" &&
		chmod 644 "$FAKE/hosts" && fake_env+=(CORDON_BRIDGE_HOSTS="$FAKE/hosts")
	trap 'rm -rf "$PREFIX" "${FAKE:-}"' EXIT
fi

# The no-Landlock pass: cordon runs under tests/helpers/nolandlock, which
# makes the Landlock syscalls answer ENOSYS for cordon and everything it
# starts, as an outer container's seccomp profile does.  A root caller is
# refused there unless it accepts the weaker sandbox, so the wrapper passes
# --allow-no-landlock for root (unless the test asks for --require-landlock,
# whose refusal it then checks).  Tests see CORDON_NO_LANDLOCK=1; in both
# passes CORDON_BIN names the real binary, for tests of the refusal itself.
NOLL="$PREFIX/nolandlock"
mkdir -p "$NOLL" && chmod 755 "$NOLL"
cat > "$NOLL/cordon" <<WRAP
#!/bin/bash
args=("\$@")
if [ "\$(id -u)" -eq 0 ]; then
	case " \$* " in
	*" --require-landlock "*) ;;
	*) case "\${1-}" in
	   explain|doctor|reclaim) args=("\$1" --allow-no-landlock "\${@:2}") ;;
	   *) args=(--allow-no-landlock "\$@") ;;
	   esac ;;
	esac
fi
exec "$PREFIX/helpers/nolandlock" "$PREFIX/bin/cordon" "\${args[@]}"
WRAP
chmod 755 "$NOLL/cordon"

pass_env() { # PASS: the environment that selects the pass's cordon
	case $1 in
	nolandlock) echo "CORDON=$NOLL/cordon"; echo CORDON_NO_LANDLOCK=1 ;;
	*) echo "CORDON=$PREFIX/bin/cordon" ;;
	esac
}
pass_tag() {
	case $1 in
	nolandlock) echo " without Landlock" ;;
	sanitizer) echo " (sanitizers)" ;;
	esac
}

# run_as PASS USER FILE: one test file; its output on stdout, and last a
# line "RESULT passed failed" of its own making when the file printed none.
run_as() {
	local pass=$1 user=$2 file=$3 out
	local -a mode_env
	mapfile -t mode_env < <(pass_env "$pass")
	local envs=("${mode_env[@]}" CORDON_BIN="$PREFIX/bin/cordon" HELPERS="$PREFIX/helpers" PATH=/usr/local/bin:/usr/bin:/bin
		    CORDON_TEST_USER="$TESTUSER"
		    HOME="$(getent passwd "$user" | cut -d: -f6)" LANG=C.UTF-8 "${san_env[@]}" "${fake_env[@]}"
		    XDG_CACHE_HOME="$PREFIX/cache/$user" CORDON_TEST_FULL="${CORDON_TEST_FULL:-0}")
	echo "== $(basename "$file") as $user$(pass_tag "$pass")"
	# The network tests run in a network namespace of their own with only
	# lo (made here, as root, for both users): no packet they cause can
	# leave the machine, whatever the bridge gets wrong.
	local netns=()
	if [[ $(basename "$file") == t_net* ]] && [ "$(id -u)" -eq 0 ]; then
		netns=(unshare -n -- sh -c 'ip link set lo up && exec "$@"' sh)
	fi
	if [ "$user" = "$(id -un)" ]; then
		out=$(cd "$PREFIX" && "${netns[@]}" env -i "${envs[@]}" USER="$user" bash "$file" 2>&1 </dev/null)
	else
		out=$(cd "$PREFIX" && "${netns[@]}" runuser -u "$user" -- env -i "${envs[@]}" USER="$user" bash "$file" 2>&1 </dev/null)
	fi
	printf '%s\n' "$out" | grep -v '^RESULT '
	local res
	res=$(printf '%s\n' "$out" | grep '^RESULT ' | tail -n 1)
	if [ -z "$res" ]; then
		echo "  FAIL [$user] $(basename "$file") ended without a RESULT line"
		res="RESULT 0 1"
	fi
	echo "$res"
}

users=("$(id -un)")
if [ "$(id -u)" -eq 0 ]; then
	if ! id "$TESTUSER" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/bash "$TESTUSER" ||
			{ echo "run.sh: cannot create the test user $TESTUSER" >&2; exit 1; }
	fi
	users+=("$TESTUSER")
fi

# Each user's tool caches (--cache private: one directory per workspace, and
# every test's workspace is new) go in the prefix, and with it at the end.
for u in "${users[@]}"; do
	install -d -m 0700 -o "$u" "$PREFIX/cache/$u" ||
		{ echo "run.sh: cannot create $PREFIX/cache/$u" >&2; exit 1; }
done

has_mark() { grep -qx "# run.sh: $2" "$1"; } # FILE MARK

# The job list: "PASS USER FILE ALONE", the files marked first ahead.
jobs_list=()
add_jobs() { # PASS FILE
	local pass=$1 f=$2 alone=0 u i=0
	has_mark "$f" alone && alone=1
	if [ "$pass" = sanitizer ] && [ "${CORDON_TEST_FULL:-0}" != 1 ]; then
		u=${users[$(( san_turn % ${#users[@]} ))]}
		san_turn=$((san_turn + 1))
		has_mark "$f" root-only && u=${users[0]}
		jobs_list+=("$pass $u $f $alone")
		return
	fi
	for u in "${users[@]}"; do jobs_list+=("$pass $u $f $alone"); i=$((i + 1)); done
}
san_turn=0
files=()
for f in "$PREFIX"/tests/t_*.sh; do
	[ -n "$ONLY" ] && ! [[ "$(basename "$f")" =~ $ONLY ]] && continue
	files+=("$f")
done
for first in 1 0; do
	for p in $PASSES; do
		for f in "${files[@]}"; do
			if has_mark "$f" first; then [ $first = 1 ] || continue; else [ $first = 0 ] || continue; fi
			add_jobs "$p" "$f"
		done
	done
done

# The pool.  A job starts when a slot is free, no running job is the same
# file, and neither it nor a running job is alone.  Each job writes its
# output and, last, N.done; the parent prints a job's output when it ends.
declare -A running=() # job index -> file
started=()            # job index -> start time (s)
next_free() { # prints the index of the first job that may start now
	local i pass user file alone r
	for i in "${!jobs_list[@]}"; do
		read -r pass user file alone <<<"${jobs_list[$i]}"
		[ "$alone" = 1 ] && [ ${#running[@]} -gt 0 ] && continue
		for r in "${!running[@]}"; do
			[ "${running[$r]}" = "$file" ] && continue 2
			read -r _ _ _ ra <<<"${jobs_list_all[$r]}"
			[ "$ra" = 1 ] && return 1
		done
		echo "$i"
		return 0
	done
	return 1
}
jobs_list_all=("${jobs_list[@]}")
total_pass=0
total_fail=0
declare -A pass_pass=() pass_fail=()
: >"$TIMES.tmp" 2>/dev/null || TIMES=$JOBDIR/times.tsv
: >"$TIMES.tmp"
suite_start=$(date +%s)
reap() { # collect every job that has ended
	local r res n pf
	for r in "${!running[@]}"; do
		[ -e "$JOBDIR/$r.done" ] || continue
		grep -v "^RESULT " "$JOBDIR/$r.out"
		res=$(grep '^RESULT ' "$JOBDIR/$r.out" | tail -n 1)
		read -r _ n pf <<<"$res"
		read -r pass user file _ <<<"${jobs_list_all[$r]}"
		total_pass=$((total_pass + n))
		total_fail=$((total_fail + pf))
		pass_pass[$pass]=$(( ${pass_pass[$pass]:-0} + n ))
		pass_fail[$pass]=$(( ${pass_fail[$pass]:-0} + pf ))
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$pass" "$user" "$(basename "$file" .sh)" \
			"$(cat "$JOBDIR/$r.secs")" "$n" "$pf" >>"$TIMES.tmp"
		unset "running[$r]"
	done
}
while [ ${#jobs_list[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
	while [ ${#running[@]} -lt "$JOBS" ] && [ ${#jobs_list[@]} -gt 0 ] && i=$(next_free); do
		read -r pass user file _ <<<"${jobs_list[$i]}"
		# The index into jobs_list_all: jobs_list keeps its indices when
		# entries are unset, so they are the same.
		running[$i]=$file
		unset "jobs_list[$i]"
		(
			s=$(date +%s.%N)
			run_as "$pass" "$user" "$file" >"$JOBDIR/$i.out" 2>&1
			e=$(date +%s.%N)
			awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f\n", e - s }' >"$JOBDIR/$i.secs"
			: >"$JOBDIR/$i.done"
		) &
	done
	wait -n 2>/dev/null
	reap
done
wait
reap
mv "$TIMES.tmp" "$TIMES"
for p in $PASSES; do
	echo "-- $p pass: ${pass_pass[$p]:-0} passed, ${pass_fail[$p]:-0} failed"
done
echo "-- wall time: $(( $(date +%s) - suite_start )) s at $JOBS jobs; per file: scripts/test-times.sh $TIMES"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]

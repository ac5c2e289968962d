#!/usr/bin/env bash
# t_cgroup_v2.sh: the run's cgroup on a real cgroup v2 hierarchy (t_limits_tree
# covers v1).  This machine binds every controller to v1 and mounts v2 at
# /sys/fs/cgroup/unified; as root, the test unmounts the v1 pids hierarchy
# (it has no child cgroups, so the kernel destroys it and the pids
# controller moves to v2), builds a subtree delegated to the test user the
# way systemd delegates user@UID.service, and checks cordon as root (its own
# cgroup is the v2 root) and as the user in a leaf of that subtree (cordon
# must make its run's cgroup beside the leaf, in the delegating parent).
# Everything is restored by a trap, even on failure: the processes moved
# back, every test cgroup removed, pids back on v1; the end checks it.
# Where the v1 pids mount cannot be unmounted (a process holds it open, as
# one this session cannot inspect does on the development machine) pids
# stays on v1: that part skips, and the delegated subtree is checked
# without it (cordon must not pick it; RLIMIT_NPROC counts the user's run).
# --limit-cpu's count of the tree's CPU time needs no controller (every v2
# cgroup has cpu.stat): it is checked on the real hierarchy either way, for
# root in the v2 root and for the user in its delegated leaf.
# The memory controller stays on v1 (the session's own cgroups are there)
# and is not touched.  Holds /var/tmp/cordon-cgroup.lock throughout
# (lib.sh cgroup_lock), as t_limits_tree does shared.
# run.sh: alone
. "$(dirname "$0")/lib.sh"

U=/sys/fs/cgroup/unified
P1=/sys/fs/cgroup/pids
D="$U/cordon-test-deleg"
LEAF="$D/session"
TU=${CORDON_TEST_USER:-cordontest}

skip_all() {
	echo "  skip [$WHO] $*"
	finish
	exit
}
# mounted TYPE DIR [OPTION]: DIR is a mount of TYPE, with that superblock
# option (per /proc/self/mountinfo).
mounted() {
	awk -v t="$1" -v d="$2" -v o="${3:-}" '$5 == d { for (i = 7; $i != "-"; i++);
		if ($(i + 1) == t && (o == "" || ("," $(i + 3) ",") ~ ("," o ","))) f = 1 } END { exit !f }' \
		/proc/self/mountinfo
}
subdirs() { find "$1" -mindepth 1 -type d 2>/dev/null | head -n 1; }

is_root || skip_all "only root can move the pids controller to cgroup v2 (the root run tests $TU too)"
id "$TU" >/dev/null 2>&1 || skip_all "no test user $TU"
mounted cgroup2 "$U" || skip_all "no cgroup v2 hierarchy at $U"
mounted cgroup "$P1" pids || skip_all "the pids controller is not on cgroup v1 at $P1"
command -v setpriv >/dev/null || skip_all "no setpriv"

cgroup_lock || skip_all "$CGROUP_LOCK stayed held for 2 minutes"
# Checked under the lock: a t_limits_tree running as root leaves its run
# cgroups in the v1 hierarchy while it runs.
[ -z "$(subdirs "$P1")" ] || skip_all "the v1 pids hierarchy has child cgroups: it cannot be moved"
[ ! -e "$D" ] || skip_all "$D exists already (a previous run's leftover?)"

# --- restoring the machine, whatever happens ----------------------------------------
REBOUND=0
before_u=$(find "$U" -maxdepth 1 -name 'cordon-*' | sort)
# Ends and removes a cgroup and everything beneath it; the test's own
# processes (the leaf's shells) go back to the root first.
drop_cgroup() { # DIR
	local c p i
	for c in $(find "$1" -depth -type d 2>/dev/null); do
		case "$c" in
		*/cordon-*) echo 1 >"$c/cgroup.kill" 2>/dev/null ;;
		*) for p in $(cat "$c/cgroup.procs" 2>/dev/null); do echo "$p" >"$U/cgroup.procs" 2>/dev/null; done ;;
		esac
		for i in $(seq 50); do
			rmdir "$c" 2>/dev/null && break
			[ -e "$c" ] || break
			sleep 0.05
		done
	done
}
restore() {
	local c i p
	[ -e "$D" ] && drop_cgroup "$D"
	# Run cgroups a failed root run of this test left in the root (not
	# there before, and their cordon is gone).
	# A run's cordon holds a flock on its cgroup while it lives.
	for c in $(find "$U" -maxdepth 1 -name 'cordon-*'); do
		printf '%s\n' "$before_u" | grep -qx "$c" && continue
		flock -n "$c" true 2>/dev/null && drop_cgroup "$c"
	done
	[ $REBOUND = 1 ] || return 0
	grep -qw pids "$U/cgroup.subtree_control" && echo -pids >"$U/cgroup.subtree_control"
	# The v2 css of pids dies asynchronously: until it is gone, the
	# controller cannot be bound to a v1 hierarchy (EBUSY).
	for i in $(seq 100); do
		mount -t cgroup -o pids cgroup "$P1" 2>/dev/null && { REBOUND=0; return 0; }
		sleep 0.05
	done
	echo "  FAIL [$WHO] cannot mount the pids controller back on $P1: mount -t cgroup -o pids cgroup $P1" >&2
}
trap 'restore; rm -rf "${cleanup_dirs[@]}"' EXIT
trap 'exit 129' HUP INT TERM

# --- the callers ---------------------------------------------------------------------
uws="$W/uws"
rws="$W/rws"
mkdir -p "$uws" "$rws"
chown "$TU:" "$uws"
uhome=$(getent passwd "$TU" | cut -d: -f6)
ucache="${XDG_CACHE_HOME%/*}/$TU"
# The command prefix that runs as the test user, from the delegated leaf:
# one process from here to the command (exec all the way), so that $! of
# a run in the background is cordon.
AS_USER=(bash -c 'echo $$ >"$0/cgroup.procs" && exec setpriv --reuid="$1" --regid="$1" --init-groups \
	env HOME="$2" USER="$1" XDG_CACHE_HOME="$3" "${@:4}"' "$LEAF" "$TU" "$uhome" "$ucache")
as_user() { "${AS_USER[@]}" "$@"; }

F="$HELPERS/forkloop"
# The command's /proc/self/cgroup shows "/" (its PID 1 was born in the
# run's cgroup, the root of its cgroup namespace), so it finds its run's
# cgroups as any command could: the cordon-RANDOM of the read-only hierarchy
# whose cgroup.procs lists it.  SHOW prints both ("cg NAME" lines).
SHOW='cat /proc/self/cgroup; for d in $(find /sys/fs/cgroup/unified /sys/fs/cgroup/memory -maxdepth 4 -type d -name "cordon-*" 2>/dev/null); do grep -qsx $$ "$d/cgroup.procs" && echo "cg ${d##*/}"; done; :;'
run_name() { sed -n 's/^cg \(cordon-[0-9a-f]\{16\}\)$/\1/p' "$1" | head -n 1; }
gone() { [ ! -e "$1" ]; }

# --- pids on v2 -------------------------------------------------------------------
PIDS_V2=0
if ! umount "$P1" 2>"$W/umount.err"; then
	echo "  skip [$WHO] cannot unmount the v1 pids hierarchy ($(head -n 1 "$W/umount.err")): a process" \
		"holds it open, so pids cannot move to v2 here; only a delegated subtree without it is tested"
else
	REBOUND=1
	# The kernel destroys the unmounted hierarchy asynchronously.
	if ! wait_for 50 grep -qw pids "$U/cgroup.controllers"; then
		echo "  skip [$WHO] the pids controller did not come to cgroup v2 within 5 s (the v1 hierarchy lives on)"
	elif ! echo +pids >"$U/cgroup.subtree_control"; then
		bad "cannot enable pids in $U/cgroup.subtree_control"
	else
		PIDS_V2=1
	fi
fi

# The delegated subtree: the directory and the files systemd's Delegate=yes
# chowns, the controller enabled for its children, and a leaf for the
# user's processes.
mkdir "$D" "$LEAF" &&
	chown "$TU:" "$D" "$D"/cgroup.{procs,threads,subtree_control} \
		"$LEAF" "$LEAF"/cgroup.{procs,threads,subtree_control}
assert "a delegated v2 subtree for $TU" -- test "$(stat -c %U "$D/cgroup.procs")" = "$TU"
if [ $PIDS_V2 = 1 ]; then
	echo +pids >"$D/cgroup.subtree_control"
	assert "the delegated subtree enables pids for its children" -- grep -qw pids "$D/cgroup.subtree_control"
fi

if [ $PIDS_V2 = 0 ]; then
	# Without the controller in v2, the delegated subtree gives cordon no
	# cgroup: it must not pick it, and the user's runs are counted by
	# RLIMIT_NPROC.
	as_user "$CORDON" doctor >"$W/doctor" 2>&1
	assert "$TU in a delegated leaf without pids: doctor says RLIMIT_NPROC" -- \
		grep -q '^limits: processes: .* as RLIMIT_NPROC' "$W/doctor"
	expect_out 1 '^failed EAGAIN$' "$TU: --limit-pids 20 still bounds 60 forks (RLIMIT_NPROC)" -- \
		as_user "$CORDON" -w "$uws" -C "$uws" --limit-pids 20 -- "$F" 60
	expect_out 0 '^forked 60$' "control: $TU, --limit-pids 100 lets 60 forks through" -- \
		as_user "$CORDON" -w "$uws" -C "$uws" --limit-pids 100 -- "$F" 60
	assert "no run cgroup was made in the delegated subtree" -- test -z "$(find "$D" -mindepth 1 -name 'cordon-*')"
fi

# --- each caller -------------------------------------------------------------------
# check_caller NAME WS PARENT, with RUN the command prefix of that caller:
# PARENT is where the run's cgroup must go, in the hierarchy at MNT of
# cgroup version V whose lines in /proc/PID/cgroup start with LINE.
V=2
MNT=$U
LINE='0::'
check_caller() {
	local who=$1 ws=$2 parent=$3 rel=${3#$MNT} n mark cpid g sp fw to
	local own='n=$(for d in '"$parent"'/cordon-*; do grep -qsx $$ "$d/cgroup.procs" && echo "${d##*/}"; done);'
	local C=("${RUN[@]}" "$CORDON" -w "$ws" -C "$ws")
	"${RUN[@]}" "$CORDON" doctor >"$W/doctor" 2>&1
	assert "$who: doctor: cgroup v$V pids.max on the whole tree in $parent" -- \
		grep -qx "limits: processes: .* as cgroup v$V pids.max on the whole tree in $parent" "$W/doctor"
	expect_out 0 "^limits: processes 4096 \\(cgroup v$V pids.max on the whole tree\\)\$" \
		"$who: explain: cgroup v$V pids.max on the whole tree" -- \
		"${RUN[@]}" "$CORDON" explain -w "$ws" -- true

	# The whole tree is counted: 60 forks under --limit-pids 20 stop short.
	expect_out 1 '^failed EAGAIN$' "$who: --limit-pids 20 stops 60 forks" -- "${C[@]}" --limit-pids 20 -- "$F" 60
	assert "$who: fewer than 20 forks worked" -- test "$(sed -n 's/^forked //p' "$OUT")" -lt 20
	expect_out 0 '^forked 60$' "control: $who, --limit-pids 100 lets 60 forks through" -- \
		"${C[@]}" --limit-pids 100 -- "$F" 60

	# The command reads its own cgroup (control), and cannot loosen it,
	# leave it for its parent or the root, or make one.
	expect_out 0 '^50$' "control: $who: the command reads its run cgroup's pids.max" -- \
		"${C[@]}" --limit-pids 50 -- sh -c "$own"' cat '"$parent"'/$n/pids.max'
	for fw in "" --full-write; do
		refuse "$who: the command cannot raise its pids.max ${fw:-(default)}" -- \
			"${C[@]}" $fw --limit-pids 50 -- sh -c "$own"' echo max > '"$parent"'/$n/pids.max'
		for to in $(printf '%s\n' "$parent" "$MNT" | sort -u); do
			refuse "$who: the command cannot move itself to $to ${fw:-(default)}" -- \
				"${C[@]}" $fw -- sh -c 'echo $$ > '"$to"'/cgroup.procs'
		done
		refuse "$who: the command cannot make a cgroup ${fw:-(default)}" -- \
			"${C[@]}" $fw -- mkdir "$parent/cordon-escape"
	done
	assert "control: $who: no cgroup was made by the command" -- test ! -e "$parent/cordon-escape"

	# During a run: the run's cgroup is in parent, with pids.max, and holds
	# the command and the sandbox's PID 1.
	mark=$((8200000 + $$ + ${#who}))
	"${RUN[@]}" env RUN_MARK="$mark" "$CORDON" -w "$ws" -C "$ws" --limit-pids 50 -- \
		sh -c "$SHOW"' exec sleep '"$mark" >"$W/cg1" 2>/dev/null </dev/null &
	cpid=$!
	wait_for 100 grep -qs "^cg cordon-" "$W/cg1"
	n=$(run_name "$W/cg1")
	assert "$who: /proc/self/cgroup inside shows $LINE/" -- grep -qx "$LINE/" "$W/cg1"
	assert "$who: the command sees a run cgroup ($n)" -- test -n "$n"
	assert "$who: the run's cgroup is $parent/$n" -- test -n "$n" -a -d "$parent/$n"
	assert "$who: its pids.max is 50" -- test "$(cat "$parent/$n/pids.max" 2>/dev/null)" = 50
	sp=$(pgrep -f "^sleep $mark\$" | head -n 1)
	assert "$who: the command is in it (host: $LINE$rel/$n)" -- \
		grep -qsx "$LINE$rel/$n" "/proc/${sp:-0}/cgroup"
	assert "$who: so is the sandbox's PID 1" -- \
		grep -qsx "$LINE$rel/$n" "/proc/$(awk '{ print $4 }' "/proc/${sp:-0}/stat" 2>/dev/null)/cgroup"
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null
	assert "$who: cordon killed: its guardian removes $n" -- wait_for 150 gone "$parent/$n"
	assert "$who: cordon killed: no guardian is left" -- no_guardian_left "$mark"
	assert "$who: and the command is ended" -- wait_for 50 sh -c "! pgrep -f '^sleep $mark\$' >/dev/null"

	# After a run, and after a failed one.
	expect 0 "$who: a run" -- "${C[@]}" -- sh -c "$SHOW"
	n=$(run_name "$OUT")
	assert "$who: it ran in a run cgroup ($n), gone after it" -- test -n "$n" -a ! -e "$parent/$n"
	expect 3 "$who: a failing run" -- "${C[@]}" -- sh -c "$SHOW exit 3"
	n=$(run_name "$OUT")
	assert "$who: its run cgroup ($n) is gone" -- test -n "$n" -a ! -e "$parent/$n"

	# cordon and its guardian killed: the next run's sweep removes the
	# cgroup and ends what is in it.
	mark=$((mark + 1))
	"${RUN[@]}" env RUN_MARK="$mark" "$CORDON" -w "$ws" -C "$ws" -- \
		sh -c "$SHOW"' exec sleep '"$mark" >"$W/cg2" 2>/dev/null </dev/null &
	cpid=$!
	wait_for 100 grep -qs "^cg cordon-" "$W/cg2"
	n=$(run_name "$W/cg2")
	g=$(guardians_of "$mark")
	assert "$who: the run has a guardian to kill" -- test -n "$g"
	kill -9 $g "$cpid"
	wait "$cpid" 2>/dev/null
	assert "$who: cordon and guardian killed: $n is left" -- test -n "$n" -a -d "$parent/$n"
	expect 0 "$who: the next run" -- "${C[@]}" -- true
	assert "$who: the next run swept $n" -- test -n "$n" -a ! -e "$parent/$n"
	assert "$who: and ended what was in it" -- wait_for 50 sh -c "! pgrep -f '^sleep $mark\$' >/dev/null"

	expect 0 "$who: a run with --report" -- "${C[@]}" --report "$ws/r.json" --limit-pids 50 -- true
	assert "$who: --report: the process count by cgroup v$V" -- \
		python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["limits"]["pids"]
assert l["max"] == 50 and l["how"] == "cgroup v%s pids.max on the whole tree" % sys.argv[2], l' "$ws/r.json" "$V"
}

if [ $PIDS_V2 = 1 ]; then
	RUN=()
	check_caller root "$rws" "$U"
	RUN=("${AS_USER[@]}")
	check_caller "$TU" "$uws" "$D"

	# --limit-memory: memory is on v1 here.  Root may make a v1 memory
	# cgroup beside its v2 pids one; the user has no memory cgroup.
	"$CORDON" doctor >"$W/doctor" 2>&1
	assert "root: doctor: memory by cgroup v1 while pids is v2" -- \
		grep -q '^limits: --limit-memory: cgroup v1 memory.limit_in_bytes on the whole tree' "$W/doctor"
	expect_out 0 '^limits: processes 4096 \(cgroup v2 pids.max on the whole tree\); memory 104857600 bytes \(cgroup v1 memory' \
		"root: explain: pids v2, memory v1" -- "$CORDON" explain -w "$rws" --limit-memory 100M -- true
	expect 0 "root: a run with --limit-memory" -- \
		"$CORDON" -w "$rws" -C "$rws" --limit-memory 100M -- sh -c "$SHOW"
	n=$(run_name "$OUT")
	assert "root: it ran in a v2 run cgroup ($n)" -- test -n "$n"
	assert "root: and in a v1 memory cgroup of the same name" -- test "$(grep -cx "cg $n" "$OUT")" -eq 2
	assert "root: /proc/self/cgroup shows / in both" -- \
		sh -c "grep -qx '0::/' '$OUT' && grep -qx '[0-9]*:memory:/' '$OUT'"
	assert "root: both are gone after the run" -- \
		test -n "$n" -a -z "$(find "$U" /sys/fs/cgroup/memory -type d -name "$n" 2>/dev/null)"
	as_user "$CORDON" doctor >"$W/doctor" 2>&1
	assert "$TU: doctor: --limit-memory is RLIMIT_DATA only" -- \
		grep -q "^limits: --limit-memory: RLIMIT_DATA per process; the sandbox's total is not bounded" "$W/doctor"
	expect_out 0 '^limits: processes 4096 \(cgroup v2 pids.max on the whole tree\); memory 104857600 bytes \(RLIMIT_DATA per process\)' \
		"$TU: explain: pids v2, memory RLIMIT_DATA" -- as_user "$CORDON" explain -w "$uws" --limit-memory 100M -- true
	expect_out 0 '^0::/$' "$TU: a run with --limit-memory, in its v2 run cgroup, sees it as /" -- \
		as_user "$CORDON" -w "$uws" -C "$uws" --limit-memory 100M -- cat /proc/self/cgroup
fi

# --- --limit-cpu: the tree's CPU time, on the real v2 hierarchy ----------------------
# Every v2 cgroup counts its CPU time (cpu.stat) with no controller enabled,
# so this part runs whether or not pids could move: the run's cgroup goes
# with pids where pids is on v2, else beneath the caller's own writable
# cgroup (the v2 root for root, the delegated leaf for the user).
check_cpu() { # NAME WS PARENT, with RUN the caller's prefix
	local who=$1 ws=$2 parent=$3 rel=${3#$U} n mark cpid g fw to
	local C=("${RUN[@]}" "$CORDON" -w "$ws" -C "$ws")
	"${RUN[@]}" "$CORDON" doctor >"$W/doctor" 2>&1
	assert "$who: doctor: --limit-cpu counted by cgroup v2 cpu.stat in $parent" -- \
		grep -qx "limits: --limit-cpu: cgroup v2 cpu.stat on the whole tree, and RLIMIT_CPU per process, counted in $parent" "$W/doctor"
	expect_err 152 'limit-cpu 3: the sandbox.s processes used 3 s of CPU time together' \
		"$who: --limit-cpu 3 ends 4 processes of 1.5 s CPU each (v2 cpu.stat)" -- \
		"${C[@]}" --timeout 60 --limit-cpu 3 --report "$ws/cpu.json" -- python3 "$HELPERS/spin.py" 4 1.5
	assert "$who: not every process finished" -- sh -c "! grep -q done '$OUT'"
	assert "$who: --report: reason cpu_limit, status 152, counted by v2" -- \
		python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
assert r["reason"] == "cpu_limit" and r["status"] == 152, r["reason"]
assert r["limits"]["cpu"]["how"].startswith("cgroup v2 cpu.stat on the whole tree"), r["limits"]' "$ws/cpu.json"
	expect_out 0 '^done$' "control: $who: 4 processes of 0.3 s CPU each fit under --limit-cpu 3" -- \
		"${C[@]}" --limit-cpu 3 -- python3 "$HELPERS/spin.py" 4 0.3
	for fw in "" --full-write; do
		for to in $(printf '%s\n' "$parent" "$U" | sort -u); do
			refuse "$who: the command cannot leave the cgroup that counts it for $to ${fw:-(default)}" -- \
				"${C[@]}" $fw --limit-cpu 30 -- sh -c 'echo $$ > '"$to"'/cgroup.procs'
		done
	done
	# During a run the command is in the run's cgroup beneath parent; cordon
	# killed, its guardian removes it; cordon and guardian killed, the next
	# run's sweep does.
	mark=$((8300000 + $$ + ${#who}))
	"${RUN[@]}" env RUN_MARK="$mark" "$CORDON" -w "$ws" -C "$ws" --limit-cpu 100 -- \
		sh -c "$SHOW"' exec sleep '"$mark" >"$W/cc1" 2>"$W/cc1.err" </dev/null &
	cpid=$!
	wait_for 300 grep -qs "^cg cordon-" "$W/cc1" || sed "s/^/         | /" "$W/cc1.err"
	n=$(run_name "$W/cc1")
	assert "$who: --limit-cpu: /proc/self/cgroup inside shows 0::/" -- grep -qx "0::/" "$W/cc1"
	sp=$(pgrep -f "^sleep $mark\$" | head -n 1)
	assert "$who: the command is in $parent/$n" -- test -n "$n" -a -d "$parent/$n"
	assert "$who: as the host sees it (0::$rel/$n)" -- grep -qsx "0::$rel/$n" "/proc/${sp:-0}/cgroup"
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null
	assert "$who: cordon killed: its guardian removes $n" -- wait_for 150 gone "$parent/$n"
	assert "$who: and the command is ended" -- wait_for 50 sh -c "! pgrep -f '^sleep $mark\$' >/dev/null"
	mark=$((mark + 1))
	"${RUN[@]}" env RUN_MARK="$mark" "$CORDON" -w "$ws" -C "$ws" --limit-cpu 100 -- \
		sh -c "$SHOW"' exec sleep '"$mark" >"$W/cc2" 2>/dev/null </dev/null &
	cpid=$!
	wait_for 300 grep -qs "^cg cordon-" "$W/cc2"
	n=$(run_name "$W/cc2")
	g=$(guardians_of "$mark")
	assert "$who: the run has a guardian to kill" -- test -n "$g"
	kill -9 $g "$cpid"
	wait "$cpid" 2>/dev/null
	assert "$who: cordon and guardian killed: $n is left" -- test -n "$n" -a -d "$parent/$n"
	expect 0 "$who: the next run with --limit-cpu" -- "${C[@]}" --limit-cpu 100 -- true
	assert "$who: the next run swept $n" -- test -n "$n" -a ! -e "$parent/$n"
	assert "$who: and ended what was in it" -- wait_for 50 sh -c "! pgrep -f '^sleep $mark\$' >/dev/null"
}
RUN=()
check_cpu root "$rws" "$U"
RUN=("${AS_USER[@]}")
if [ $PIDS_V2 = 1 ]; then
	check_cpu "$TU" "$uws" "$D"
else
	check_cpu "$TU" "$uws" "$LEAF"
fi

# --- the machine as before -----------------------------------------------------------
restore
assert "pids is back on cgroup v1 at $P1" -- mounted cgroup "$P1" pids
assert "and not in v2" -- sh -c "! grep -qw pids $U/cgroup.subtree_control"
assert "no test or run cgroup left in $U or $P1" -- \
	test -z "$(find "$U" "$P1" -mindepth 1 -type d -name 'cordon-*' 2>/dev/null)"
finish

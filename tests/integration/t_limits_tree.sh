#!/usr/bin/env bash
# t_limits_tree.sh: limits on the sandbox's whole process tree, not each
# process (issue 13 "Resource limits"): the process count across many
# processes, --limit-memory across many processes where the run gets a
# cgroup with the memory controller, and the run's cgroup gone after every
# end of the run, cordon killed included.  Each with a control under the
# limit.  Where this caller may make no cgroup (an unprivileged user here)
# the memory and cleanup parts say so and are skipped: the rlimits of
# t_limits.sh hold there.
. "$(dirname "$0")/lib.sh"
# Not while t_cgroup_v2 has the pids controller on cgroup v2.
cgroup_lock -s || { bad "the cgroup lock $CGROUP_LOCK stayed held for 2 minutes"; finish; exit; }

ws="$W/ws"
mkdir -p "$ws"
C=("$CORDON" -w "$ws" -C "$ws")
F="$HELPERS/forkloop"

# How a run here enforces each limit, as explain says.
how=$("$CORDON" explain -w "$ws" --limit-memory 100M -- true | grep '^limits:')
mem_cgroup=0
any_cgroup=0
case "$how" in *"memory "*"bytes (cgroup"*) mem_cgroup=1 ;; esac
case "$how" in *"(cgroup"*) any_cgroup=1 ;; esac
pids_v1=0
case "$how" in *"(cgroup v1 pids.max"*) pids_v1=1 ;; esac
cpu_how=$("$CORDON" explain -w "$ws" --limit-cpu 3 -- true | grep '^limits:')
cpu_cgroup=0
case "$cpu_how" in *"CPU 3 s (cgroup"*) cpu_cgroup=1 ;; esac
echo "  info [$WHO] $how"
assert "explain says how each limit is enforced" -- test -n "$how"
"$CORDON" doctor >"$W/doctor" 2>&1
if [ $mem_cgroup = 1 ]; then
	assert "doctor agrees: --limit-memory bounds the tree" -- \
		grep -q '^limits: --limit-memory: cgroup v[12] memory.* on the whole tree' "$W/doctor"
else
	assert "doctor agrees: --limit-memory is per process only" -- \
		grep -q "^limits: --limit-memory: RLIMIT_DATA per process; the sandbox's total is not bounded" "$W/doctor"
fi
if [ $cpu_cgroup = 1 ]; then
	assert "doctor agrees: --limit-cpu counts the tree's CPU time" -- \
		grep -q '^limits: --limit-cpu: cgroup v[12] cpu.* on the whole tree, and RLIMIT_CPU per process, counted in /' "$W/doctor"
else
	assert "doctor agrees: --limit-cpu is per process only" -- \
		grep -q "^limits: --limit-cpu: RLIMIT_CPU per process; the sandbox's total is not bounded" "$W/doctor"
fi

# --- processes, counted across the tree ------------------------------------------
# 150 processes held by the shell, then a loop of 200 forks: each part is
# under the limit of 300, together they are not.
held() { # N: the shell holds N sleeping processes, then runs the fork loop
	echo 'i=0; while [ $i -lt '"$1"' ]; do sleep 1000 & i=$((i+1)); done; exec "$0" 200'
}
if ! is_root || [ $any_cgroup = 1 ] || "$CORDON" explain -w "$ws" -- true | grep -q 'pid_max'; then
	expect_out 1 '^failed EAGAIN$' "--limit-pids 300 counts the whole tree (150 held + 200 forks)" -- \
		"${C[@]}" --limit-pids 300 -- sh -c "$(held 150)" "$F"
	assert "the fork loop stopped below 150 forks" -- \
		test "$(sed -n 's/^forked //p' "$OUT")" -lt 150
	expect_out 0 '^forked 200$' "control: 50 held + 200 forks fit under --limit-pids 300" -- \
		"${C[@]}" --limit-pids 300 -- sh -c "$(held 50)" "$F"
else
	echo "  skip [$WHO] root's processes are not counted here"
fi

# --- memory, counted across the tree ---------------------------------------------
# hog.py N MIB: N processes of MIB MiB each, each kept alive until all are
# there; prints how many of them were killed (SIGKILL: the OOM killer).
cat >"$ws/hog.py" <<'PY'
import os, signal, sys
n, mib = int(sys.argv[1]), int(sys.argv[2])
kids = []
for i in range(n):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        b = bytearray(mib << 20)
        for j in range(0, len(b), 4096):
            b[j] = 1
        os.write(w, b"r")
        signal.pause()
        os._exit(0)
    os.close(w)
    kids.append(pid)
    os.read(r, 1)
    os.close(r)
killed = 0
for p in kids:
    done, st = os.waitpid(p, os.WNOHANG)
    if done and os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGKILL:
        killed += 1
    elif not done:
        os.kill(p, signal.SIGKILL)
print("killed %d of %d" % (killed, n))
sys.exit(1 if killed else 0)
PY
if [ $mem_cgroup = 1 ]; then
	expect_out 1 '^killed [1-4] of 4$' "--limit-memory 100M stops 4 processes of 40 MiB (each under the limit)" -- \
		"${C[@]}" --limit-memory 100M -- python3 "$ws/hog.py" 4 40
	expect_out 0 '^killed 0 of 4$' "control: 4 processes of 10 MiB fit under --limit-memory 100M" -- \
		"${C[@]}" --limit-memory 100M -- python3 "$ws/hog.py" 4 10
	expect_out 0 '^killed 0 of 4$' "control: 4 processes of 40 MiB without a limit" -- \
		"${C[@]}" -- python3 "$ws/hog.py" 4 40
else
	echo "  skip [$WHO] no cgroup with the memory controller for this caller: RLIMIT_DATA per process only"
	expect_out 0 '^killed 0 of 4$' "without a memory cgroup only each process is bounded (4 x 40 MiB under 100M)" -- \
		"${C[@]}" --limit-memory 100M -- python3 "$ws/hog.py" 4 40
fi

# --- CPU time, counted across the tree --------------------------------------------
if [ $cpu_cgroup = 1 ]; then
	# --timeout only bounds the test should the limit not hold (124 fails it).
	expect_err 152 'limit-cpu 3: the sandbox.s processes used 3 s of CPU time together' \
		"--limit-cpu 3 ends 4 processes of 1.5 s CPU each (each under the limit)" -- \
		"${C[@]}" --timeout 60 --limit-cpu 3 --report "$W/cpu.json" -- python3 "$HELPERS/spin.py" 4 1.5
	assert "the report says the run ended at the CPU limit" -- \
		jq -e '.reason == "cpu_limit" and .status == 152' "$W/cpu.json" >/dev/null
	assert "the report says how the CPU time was counted" -- \
		jq -e '.limits.cpu.how | test("^cgroup v[12] cpu.* on the whole tree")' "$W/cpu.json" >/dev/null
	assert "the processes did not all finish" -- sh -c "! grep -q done '$OUT'"
	expect_out 0 '^done$' "control: 4 processes of 0.3 s CPU each fit under --limit-cpu 3" -- \
		"${C[@]}" --limit-cpu 3 -- python3 "$HELPERS/spin.py" 4 0.3
	expect_out 0 '^done$' "control: 4 processes of 1.5 s CPU each without a limit" -- \
		"${C[@]}" -- python3 "$HELPERS/spin.py" 4 1.5
	# The counter is the host's cgroupfs, read-only inside like all of
	# /sys: the command cannot reset it or leave the cgroup that counts.
	for fw in "" --full-write; do
		refuse "the command cannot leave the cgroup that counts its CPU time ${fw:-(default)}" -- \
			"${C[@]}" $fw --limit-cpu 30 -- sh -c 'for f in /sys/fs/cgroup/unified/cgroup.procs /sys/fs/cgroup/cpuacct/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e $f ] && echo $$ > $f && exit 0; done; exit 1'
	done
else
	echo "  skip [$WHO] no cgroup counts CPU time for this caller: RLIMIT_CPU per process only"
	expect_out 0 '^done$' "without a cgroup only each process is bounded (4 x 1.5 s under --limit-cpu 3)" -- \
		"${C[@]}" --limit-cpu 3 -- python3 "$HELPERS/spin.py" 4 1.5
fi

# --- the command cannot leave or loosen its cgroup --------------------------------
# (v1 here; the hierarchy is the host's, bound read-only like all of /sys.)
own_pids() { # the sandbox's own pids cgroup directory, found as a command would:
	# its /proc/self/cgroup shows "/", but the hierarchy is readable
	echo 'for d in /sys/fs/cgroup/pids/cordon-*; do grep -qx $$ $d/cgroup.procs && break; done;'
}
if [ $pids_v1 = 1 ] && [ -f /sys/fs/cgroup/pids/cgroup.procs ]; then
	for fw in "" --full-write; do
		refuse "the command cannot raise its cgroup's pids.max ${fw:-(default)}" -- \
			"${C[@]}" $fw --limit-pids 300 -- sh -c "$(own_pids)"' echo max > $d/pids.max'
		refuse "the command cannot move itself to the hierarchy's root ${fw:-(default)}" -- \
			"${C[@]}" $fw -- sh -c 'echo $$ > /sys/fs/cgroup/pids/cgroup.procs'
		refuse "the command cannot make a cgroup ${fw:-(default)}" -- \
			"${C[@]}" $fw -- mkdir /sys/fs/cgroup/pids/cordon-escape
	done
	expect_out 0 '^300$' "control: the command reads its own cgroup's pids.max" -- \
		"${C[@]}" --limit-pids 300 -- sh -c "$(own_pids)"' cat $d/pids.max'
	assert "control: no cgroup was made by the command" -- test ! -e /sys/fs/cgroup/pids/cordon-escape
fi

# --- the run's cgroup is removed after every end ----------------------------------
# The sandbox finds its own cgroups (cordon-RANDOM) in the read-only
# hierarchy, as the one of each that lists it: "cg NAME" lines.
FIND_OWN='for d in /sys/fs/cgroup/*/cordon-* /sys/fs/cgroup/cordon-*; do grep -qsx $$ "$d/cgroup.procs" && echo "cg ${d##*/}"; done; :;'
names() { sed -n 's/^cg \(cordon-[0-9a-f]\{16\}\)$/\1/p' "$1" | sort -u; }

# Nothing the command can read names cordon's host pid (issue 19 item 1: it
# learned it from /proc/self/cgroup, cordon-PID-START, and made in advance
# every name the quarantine would use).  The sandbox's PID 1 is born in the
# run's cgroup, the root of its cgroup namespace; the name is random.
for lim in "" "--limit-memory 100M --limit-cpu 100"; do
	"${C[@]}" $lim -- sh -c "cat /proc/self/cgroup; $FIND_OWN" >"$W/pid.out" 2>"$W/pid.err" </dev/null &
	cpid=$!
	wait "$cpid"
	st=$?
	assert "a run (${lim:-no --limit flag}) reads its cgroups" -- test "$st" -eq 0 -a -s "$W/pid.out"
	assert "/proc/self/cgroup inside shows / in every hierarchy (${lim:-no --limit flag})" -- \
		sh -c "! grep -v '^cg ' '$W/pid.out' | grep -qv ':/\$'"
	assert "no cgroup the command finds names cordon's pid $cpid (${lim:-no --limit flag})" -- \
		sh -c "! grep -q -- '-$cpid\\(-\\|\$\\)' '$W/pid.out'"
	if [ $any_cgroup = 1 ] && [ -n "$lim" ]; then
		assert "the command still finds its run's cgroup, named at random" -- \
			grep -Eq '^cg cordon-[0-9a-f]{16}$' "$W/pid.out"
	fi
done
present() { [ -n "$(find /sys/fs/cgroup -type d -name "$1" 2>/dev/null)" ]; }
absent() { ! present "$1"; }
if [ $any_cgroup = 1 ]; then
	expect 0 "a run finds its own cgroup" -- "${C[@]}" --limit-memory 100M --limit-cpu 100 -- sh -c "$FIND_OWN"
	cp "$OUT" "$W/cg1"
	n=$(names "$W/cg1")
	assert "the sandbox ran in a cgroup of its run ($n)" -- test -n "$n"
	for c in $n; do
		assert "after the run no cgroup $c is left" -- absent "$c"
	done
	expect 1 "a failing command" -- "${C[@]}" --limit-memory 100M --limit-cpu 100 -- sh -c "$FIND_OWN exit 1"
	for c in $(names "$OUT"); do
		assert "after a failed command no cgroup $c is left" -- absent "$c"
	done

	# cordon killed: its guardian removes the cgroup once the sandbox is gone.
	mark=$((8100000 + $$))
	env RUN_MARK="$mark" "${C[@]}" --limit-memory 100M --limit-cpu 100 -- sh -c "$FIND_OWN"' exec sleep '"$mark" \
		>"$W/cg2" 2>/dev/null </dev/null &
	cpid=$!
	wait_for 100 grep -qs "^cg cordon-" "$W/cg2"
	n=$(names "$W/cg2")
	assert "the killed run was in a cgroup ($n)" -- test -n "$n"
	for c in $n; do
		assert "during the run its cgroup $c exists" -- present "$c"
	done
	kill -9 "$cpid"
	wait "$cpid" 2>/dev/null
	for c in $n; do
		assert "cordon killed: its guardian removes the cgroup $c" -- wait_for 150 absent "$c"
	done
	assert "cordon killed: no guardian of the run is left" -- no_guardian_left "$mark"

	# cordon and its guardian killed: the next run sweeps the cgroup, and
	# ends what is still in it.
	mark=$((mark + 1))
	env RUN_MARK="$mark" "${C[@]}" --limit-memory 100M --limit-cpu 100 -- sh -c "$FIND_OWN"' exec sleep '"$mark" \
		>"$W/cg3" 2>/dev/null </dev/null &
	cpid=$!
	wait_for 100 grep -qs "^cg cordon-" "$W/cg3"
	n=$(names "$W/cg3")
	g=$(guardians_of "$mark")
	assert "the run has a guardian to kill" -- test -n "$g"
	kill -9 $g "$cpid"
	wait "$cpid" 2>/dev/null
	expect 0 "the next run" -- "${C[@]}" --limit-memory 100M --limit-cpu 100 -- true
	for c in $n; do
		assert "cordon and guardian killed: the next run removed the cgroup $c" -- absent "$c"
	done
	assert "and ended what was left in it" -- wait_for 50 sh -c "! pgrep -f '^sleep $mark\$' >/dev/null"

	# The same leftover, removed by cordon reclaim.
	mark=$((mark + 1))
	env RUN_MARK="$mark" "${C[@]}" --limit-memory 100M --limit-cpu 100 -- sh -c "$FIND_OWN"' exec sleep '"$mark" \
		>"$W/cg4" 2>/dev/null </dev/null &
	cpid=$!
	wait_for 100 grep -qs "^cg cordon-" "$W/cg4"
	n=$(names "$W/cg4")
	g=$(guardians_of "$mark")
	kill -9 $g "$cpid"
	wait "$cpid" 2>/dev/null
	for c in $n; do
		assert "cordon and guardian killed: the cgroup $c is left until a sweep" -- present "$c"
	done
	expect 0 "cordon reclaim" -- "$CORDON" reclaim
	for c in $n; do
		assert "cordon reclaim removed the cgroup $c" -- absent "$c"
	done
	assert "and ended what was left in it" -- wait_for 50 sh -c "! pgrep -f '^sleep $mark\$' >/dev/null"

	# --report says how each limit was enforced.
	expect 0 "a run with --report" -- "${C[@]}" --report "$W/r.json" --limit-memory 100M -- true
	assert "--report: the process count by the run's cgroup" -- \
		python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["limits"]
assert l["pids"]["max"] == 4096 and "pids.max on the whole tree" in l["pids"]["how"], l
assert l["memory"]["bytes"] == 100 << 20 and "cgroup" in l["memory"]["how"], l' "$W/r.json"
else
	echo "  skip [$WHO] this caller gets no cgroup here: nothing to remove"
fi

finish

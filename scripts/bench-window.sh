#!/usr/bin/env bash
# bench-window.sh: the window of --protect-missing watch (DESIGN.md s.5,
# issue 19 item 10): how long a protected name the command creates lasts.
#
# Each trial is one `cordon -w DIR -- probe` whose probe waits 20 ms (cordon
# is then idle in its loop, as in the middle of a run), reads the monotonic
# clock, makes DIR/.git, and then stores the clock into a shared page in a
# loop until it is killed.  A host process (the trial's runner) watches DIR
# with inotify.  Per trial:
#   alive   = the probe's last store - its clock read before mkdir: how long
#             the command went on running after it made .git (what "a few
#             shell commands can fit" means);
#   visible = when a host process woken by IN_MOVED_FROM of .git read the
#             clock - the probe's clock read before mkdir: how long a host
#             process could find .git there before cordon moved it aside (an
#             upper bound: it includes that host process's own wake-up).
# Both clocks are CLOCK_MONOTONIC, the same inside and outside (no time
# namespace).  Prints p50, p90, p99 and max of each over N trials, idle and
# then with the machine busy (2 x nproc busy loops and a writer of
# small files, for the length of the busy trials).  It is a benchmark: it
# prints numbers and asserts no timing.
#
# Usage: scripts/bench-window.sh [-n TRIALS] [-i|-b]   (default 200; -i idle
#        only, -b busy only)
# Env:   CORDON (default build/cordon), CORDON_OLD (another build, e.g. the
#        one before a change: its trials alternate with CORDON's, and it gets
#        lines of its own, "old"), BENCH_USER (default cordontest: run
#        as root, it re-runs as that user unless BENCH_USER=root),
#        BENCH_TMPDIR (default /var/tmp; not /tmp, which the sandbox hides),
#        BENCH_FLAGS (more cordon options for every trial, split on spaces:
#        "--limit-cpu 100" gives a run a cgroup v2 where it can have one).
set -euo pipefail

die() { echo "bench-window: $*" >&2; exit 1; }
SELF=$(readlink -f "$0")
ROOT=$(dirname "$(dirname "$SELF")")
N=200 IDLE=1 BUSY=1
while getopts n:ibh o; do
	case $o in n) N=$OPTARG ;; i) BUSY=0 ;; b) IDLE=0 ;; *) sed -n '2,29p' "$SELF"; exit 2 ;; esac
done
if ! [[ $N =~ ^[0-9]+$ ]] || ((N < 10)); then die "-n needs a number >= 10"; fi

if [[ $(id -u) == 0 && ${BENCH_USER:-cordontest} != root ]]; then
	BENCH_USER=${BENCH_USER:-cordontest}
	if id "$BENCH_USER" >/dev/null 2>&1; then
		opts=(-n "$N")
		((IDLE)) || opts+=(-b)
		((BUSY)) || opts+=(-i)
		exec runuser -u "$BENCH_USER" -- env CORDON="$(readlink -f "${CORDON:-$ROOT/build/cordon}")" \
			CORDON_OLD="${CORDON_OLD:+$(readlink -f "$CORDON_OLD")}" BENCH_FLAGS="${BENCH_FLAGS:-}" \
			BENCH_TMPDIR="${BENCH_TMPDIR:-}" BENCH_USER="$BENCH_USER" bash "$SELF" "${opts[@]}"
	fi
	echo "bench-window: warning: no user $BENCH_USER, measuring as root" >&2
fi

CORDON=$(readlink -f "${CORDON:-$ROOT/build/cordon}")
[[ -x $CORDON ]] || die "no $CORDON (run make all)"
OLD=${CORDON_OLD:-}
FLAGS=${BENCH_FLAGS:-}
[[ -z $OLD || -x $OLD ]] || die "no $OLD"
command -v gcc >/dev/null || die "gcc missing (scripts/deps.sh installs it)"
T=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/cordon-window.XXXXXX") || die "mktemp failed"
LOAD=()
stop_load() { local p; for p in "${LOAD[@]}"; do kill "$p" 2>/dev/null || true; done; LOAD=(); }
trap 'stop_load; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

cat >"$T/probe.c" <<'EOF'
/* probe TSFILE: inside the sandbox.  t[0] before mkdir(".git"), t[1] after
 * it, t[2] the last moment it ran (t[0] if it was killed in mkdir). */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
static int64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv) {
	int fd = argc > 1 ? open(argv[1], O_RDWR) : -1;
	volatile int64_t *t = fd < 0 ? MAP_FAILED : mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (t == MAP_FAILED) return 2;
	struct timespec w = { 0, 20000000 };
	nanosleep(&w, 0);
	t[2] = t[0] = now();
	if (mkdir(".git", 0755) != 0) return 3;
	t[1] = now();
	for (;;) t[2] = now();
}
EOF
cat >"$T/trial.c" <<'EOF'
/* trial DIR CORDON PROBE [OPTION...]: one run; prints "alive_ns visible_ns". */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
static int64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
int main(int argc, char **argv) {
	char ts[4096];
	if (argc < 4) return 2;
	snprintf(ts, sizeof ts, "%s/ts", argv[1]);
	int fd = open(ts, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) < 0) { perror(ts); return 1; }
	volatile int64_t *t = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (t == MAP_FAILED || in < 0 || inotify_add_watch(in, argv[1], IN_CREATE | IN_MOVED_FROM) < 0) { perror("setup"); return 1; }
	pid_t p = fork();
	if (p == 0) {
		int z = open("/dev/null", O_RDWR);
		dup2(z, 0); dup2(z, 1); dup2(z, 2);
		if (chdir(argv[1]) < 0) _exit(126);
		char *av[64];
		int n = 0;
		av[n++] = argv[2];
		for (int i = 4; i < argc && n < 56; i++) av[n++] = argv[i];
		av[n++] = "-w"; av[n++] = argv[1]; av[n++] = "-C"; av[n++] = argv[1];
		av[n++] = "--"; av[n++] = argv[3]; av[n++] = "ts"; av[n] = 0;
		execv(argv[2], av);
		_exit(127);
	}
	int64_t created = 0, moved = 0;
	char buf[4096] __attribute__((aligned(8)));
	while (!moved) {
		struct pollfd pf = { in, POLLIN, 0 };
		if (poll(&pf, 1, 10000) <= 0) { fprintf(stderr, "trial: no event in 10 s\n"); break; }
		int64_t at = now();
		ssize_t n = read(in, buf, sizeof buf);
		for (char *q = buf; n > 0 && q < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)q;
			if (e->len && !strcmp(e->name, ".git")) {
				if ((e->mask & IN_CREATE) && !created) created = at;
				if ((e->mask & IN_MOVED_FROM) && created) moved = at;
			}
			q += sizeof(*e) + e->len;
		}
	}
	int st;
	if (waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 1) { fprintf(stderr, "trial: cordon status 0x%x (wanted exit 1)\n", st); return 1; }
	if (!moved || !t[0] || !t[2]) { fprintf(stderr, "trial: incomplete\n"); return 1; }
	printf("%lld %lld\n", (long long)(t[2] - t[0]), (long long)(moved - t[0]));
	return 0;
}
EOF
gcc -O2 -static -o "$T/probe" "$T/probe.c" 2>/dev/null || gcc -O2 -o "$T/probe" "$T/probe.c"
gcc -O2 -o "$T/trial" "$T/trial.c"

# trials LABEL: N runs, each in a fresh directory; prints the summary.
trials() {
	local i d
	: >"$T/$1.txt"
	: >"$T/$1-old.txt"
	for i in $(seq "$N"); do
		d="$T/w$i"
		mkdir "$d"
		"$T/trial" "$d" "$CORDON" "$T/probe" $FLAGS >>"$T/$1.txt" || die "trial $i ($1) failed"
		rm -rf "$d"
		[ -n "$OLD" ] || continue
		mkdir "$d"
		"$T/trial" "$d" "$OLD" "$T/probe" $FLAGS >>"$T/$1-old.txt" || die "trial $i ($1, old) failed"
		rm -rf "$d"
	done
	summary "$1"
	[ -z "$OLD" ] || summary "$1-old"
}
# The nearest-rank percentile of one column, in microseconds.
summary() {
	local col name
	for col in 1 2; do
		name=$([ $col = 1 ] && echo "alive after creation" || echo "visible on the host ")
		sort -n -k$col,$col "$T/$1.txt" | awk -v c=$col -v label="$1" -v name="$name" '
			{ v[NR] = $c }
			function p(q) { i = int(q * NR + 0.999999); if (i < 1) i = 1; return v[i] / 1000 }
			END { printf "%-9s %s  p50 %8.1f us  p90 %8.1f us  p99 %8.1f us  max %8.1f us  (%d trials)\n",
				label, name, p(0.5), p(0.9), p(0.99), v[NR] / 1000, NR }'
	done
}

echo "bench-window: $CORDON${FLAGS:+ $FLAGS} as $(id -un), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$T/trial" "$T" "$CORDON" "$T/probe" $FLAGS >/dev/null || die "a first trial failed (is cordon built? run it by hand: $CORDON -w $T -- $T/probe ts)"
rm -f "$T/ts"
if ((IDLE)); then
	trials idle
fi
if ((BUSY)); then
	for _ in $(seq $((2 * $(nproc)))); do
		bash -c 'while :; do :; done' &
		LOAD+=($!)
	done
	mkdir "$T/churn"
	bash -c 'i=0; while :; do echo $i >"$1/f$((i % 500))"; i=$((i + 1)); done' _ "$T/churn" &
	LOAD+=($!)
	sleep 0.5
	echo "bench-window: busy: $((2 * $(nproc))) busy loops and a file writer; load $(cut -d' ' -f1-3 /proc/loadavg)"
	trials busy
	stop_load
fi

#!/usr/bin/env bash
# bench-prefix.sh: what cordon-prefix and cordon-sh add to a run of cordon.
#
# Measures side by side in one run (the commands alternated every round, the
# first one rotated, after a warm-up), in a scratch project holding a .git,
# the wall time of:
#   cordon -- true                     the floor of a run
#   cordon -w PROJECT -- true          what cordon-prefix runs without a policy
#   cordon-prefix -- true              no policy file: the project writable
#   cordon-prefix -- true, policy      a per-project policy file (write: PROJECT)
#   cordon-prefix true                 one argument: bash -c true in the sandbox
#   cordon-sh -c true                  bash -c true in the sandbox
#   cordon -- bash -c true             what bash itself costs there
# and prints p50 and p99 of each, and each p50 over `cordon -- true`'s.
# `true` is a static binary (no dynamic loader in the numbers).  It is a
# benchmark: it prints numbers and asserts no timing.
#
# Usage: scripts/bench-prefix.sh [-n RUNS]   (RUNS >= 20, default 100)
# Env:   CORDON (default build/cordon; cordon-prefix and cordon-sh are made
#        here as links to it), PREFIX_OLD (a directory holding another
#        cordon-prefix, e.g. the shell script of an earlier version beside its
#        cordon: timed in the same rounds, without and with the policy),
#        BENCH_USER (default cordontest: run as root, it
#        re-runs as that user), BENCH_TMPDIR (default /var/tmp; not /tmp,
#        which the sandbox hides).
set -euo pipefail

die() { echo "bench-prefix: $*" >&2; exit 1; }
SELF=$(readlink -f "$0")
ROOT=$(dirname "$(dirname "$SELF")")
RUNS=100 WARMUP=5
while getopts n:h o; do
	case $o in n) RUNS=$OPTARG ;; *) sed -n '2,26p' "$SELF"; exit 2 ;; esac
done
if ! [[ $RUNS =~ ^[0-9]+$ ]] || ((RUNS < 20)); then die "-n needs a number >= 20"; fi

if [[ $(id -u) == 0 ]]; then
	BENCH_USER=${BENCH_USER:-cordontest}
	if id "$BENCH_USER" >/dev/null 2>&1; then
		CORDON=$(readlink -f "${CORDON:-$ROOT/build/cordon}")
		exec runuser -u "$BENCH_USER" -- env CORDON="$CORDON" BENCH_TMPDIR="${BENCH_TMPDIR:-}" \
			PREFIX_OLD="${PREFIX_OLD:-}" \
			PATH=/usr/local/bin:/usr/bin:/bin bash "$SELF" -n "$RUNS"
	fi
	echo "bench-prefix: warning: no user $BENCH_USER, measuring as root" >&2
fi

CORDON=$(readlink -f "${CORDON:-$ROOT/build/cordon}")
[[ -x $CORDON ]] || die "no $CORDON (run make all)"
for c in gcc musl-gcc; do command -v $c >/dev/null || die "$c missing (scripts/deps.sh installs it)"; done
T=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/cordon-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/bin" "$T/proj/.git" "$T/plain/.git"

# cordon-prefix and cordon-sh are cordon under another name: links in a
# directory of their own, beside cordon's helpers (found from the binary).
ln -s "$CORDON" "$T/bin/cordon-prefix"
ln -s "$CORDON" "$T/bin/cordon-sh"
echo 'int main(void) { return 0; }' >"$T/true.c"
musl-gcc -static -O2 -s -o "$T/bin/true" "$T/true.c" || die "cannot build true.c"
cat >"$T/bt.c" <<'EOF'
/* bt RUNS WARMUP LOG DIR ARGV... [::: DIR ARGV...]...  Runs the commands in
 * turn, each in its DIR, the first one rotated each round; prints one row
 * of ns per timed round. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static struct cmd { char *dir; char **argv; } c[64];
int main(int argc, char **argv) {
	int runs = atoi(argv[1]), warm = atoi(argv[2]), n = 0;
	int log = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	for (int i = 4; i < argc && n < 64; n++) {
		c[n].dir = argv[i];
		for (c[n].argv = &argv[++i]; i < argc && strcmp(argv[i], ":::"); i++) ;
		if (i < argc) argv[i++] = NULL;
	}
	long long t[64];
	for (int r = 0; r < warm + runs; r++) {
		for (int k = 0, j, st; k < n; k++) {
			struct timespec a, b;
			j = (k + r) % n;
			clock_gettime(CLOCK_MONOTONIC, &a);
			pid_t p = fork();
			if (p == 0) {
				int z = open("/dev/null", O_RDWR);
				dup2(z, 0); dup2(z, 1); dup2(log, 2); close(z);
				if (chdir(c[j].dir) < 0) _exit(126);
				execv(c[j].argv[0], c[j].argv);
				_exit(127);
			}
			if (p < 0 || waitpid(p, &st, 0) < 0) { perror("bt"); return 1; }
			clock_gettime(CLOCK_MONOTONIC, &b);
			if (st) { fprintf(stderr, "bt: %s (column %d): status 0x%x\n", c[j].argv[0], j + 1, st); return 1; }
			t[j] = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
		}
		for (int k = 0; r >= warm && k < n; k++) printf("%lld%c", t[k], k + 1 < n ? '\t' : '\n');
	}
	return 0;
}
EOF
gcc -O2 -o "$T/bin/bt" "$T/bt.c" || die "cannot build bt.c"

# The policies: $T/cfg, private; a per-project file for $T/proj only, so
# that $T/plain runs without one (the project made writable).
export XDG_CONFIG_HOME=$T/cfg
install -d -m 700 "$T/cfg" "$T/cfg/cordon" "$T/cfg/cordon/projects"
name=$(printf '%s' "${T#/}/proj" | sed -e 's/%/%25/g' -e 's/-/%2D/g' -e 's|/|-|g')
printf '{"write": ["%s"]}\n' "$T/proj" >"$T/cfg/cordon/projects/$name.json"
chmod 600 "$T/cfg/cordon/projects/$name.json"
TRUE=$T/bin/true P=$T/plain J=$T/proj
BASH_BIN=$(PATH=/usr/bin:/bin type -P bash) || die "no bash"

labels=("cordon -- true" "cordon -w PROJECT -- true" "cordon-prefix -- true" "cordon-prefix -- true, policy"
	"cordon-prefix true (bash -c)" "cordon-sh -c true" "cordon -- bash -c true")
cmds=("$P" "$CORDON" -- "$TRUE" :::
      "$P" "$CORDON" -w "$P" -- "$TRUE" :::
      "$P" "$T/bin/cordon-prefix" -- "$TRUE" :::
      "$J" "$T/bin/cordon-prefix" -- "$TRUE" :::
      "$P" "$T/bin/cordon-prefix" true :::
      "$P" "$T/bin/cordon-sh" -c true :::
      "$P" "$CORDON" -- "$BASH_BIN" -c true)
if [[ -n ${PREFIX_OLD:-} ]]; then
	OLD=$(readlink -f "$PREFIX_OLD")/cordon-prefix
	[[ -x $OLD ]] || die "no cordon-prefix in $PREFIX_OLD"
	labels+=("old cordon-prefix -- true" "old cordon-prefix -- true, policy")
	cmds+=(::: "$P" "$OLD" -- "$TRUE" ::: "$J" "$OLD" -- "$TRUE")
fi
# Each must succeed once before anything is timed.
"$T/bin/bt" 1 0 "$T/bench.log" "${cmds[@]}" >/dev/null ||
	{ tail -5 "$T/bench.log" >&2; die "a command failed (log above)"; }
"$T/bin/bt" "$RUNS" "$WARMUP" "$T/bench.log" "${cmds[@]}" >"$T/rows" ||
	{ tail -5 "$T/bench.log" >&2; die "a timed run failed"; }

echo "bench-prefix: $RUNS rounds as $(id -un), $(uname -r), $(nproc) cores"
printf '%-32s %9s %9s %12s\n' command p50/ms p99/ms "p50 - floor"
floor=
for ((k = 1; k <= ${#labels[@]}; k++)); do
	read -r p50 p99 < <(cut -f"$k" "$T/rows" | sort -n | awk '{ v[NR] = $1 }
		END { i50 = int((NR + 1) * 0.50); i99 = int((NR + 1) * 0.99 + 0.999)
		      if (i99 > NR) i99 = NR; printf "%.2f %.2f\n", v[i50] / 1e6, v[i99] / 1e6 }')
	[[ -n $floor ]] || floor=$p50
	printf '%-32s %9s %9s %12s\n' "${labels[k - 1]}" "$p50" "$p99" \
		"$(awk -v a="$p50" -v b="$floor" 'BEGIN { printf "%+.2f ms", a - b }')"
done

#!/usr/bin/env bash
# bench-startup.sh: start-up cost of cordon against its floor (DESIGN.md s.11).
#
# Measures side by side in one run (the commands alternated every round, the
# first one rotated, after a warm-up) the median wall time of:
#   (a) a static `true` run directly;
#   (b) raw bwrap: the exact argv `cordon explain` prints for the same policy,
#       with --bind-fd/--ro-bind-fd N P turned into --bind/--ro-bind P P, each
#       --ro-bind-data fed an empty /dev/null descriptor, --info-fd dropped and
#       the inner stage (up to its "--") and command replaced by the static true;
#       --userns-block-fd is dropped too (it needs a parent that maps the user
#       namespace, as cordon does: alone, bwrap maps it itself, in two nested
#       namespaces, so the floor does a little more than cordon's bwrap);
#   (c) `cordon -w DIR -- true`.
# Then cost growth (1/10/50/100 writable roots, 10/105/200 --deny-read files),
# with per-root and per-mask slopes and a linearity check (first half against
# second half), and peak memory: cordon's own VmHWM at exit, the wait4 max RSS
# of its process tree, and cordon-inner's VmHWM (PID 1 in the sandbox).
# It is a benchmark: it prints numbers and asserts no timing.
#
# Usage: scripts/bench-startup.sh [-n RUNS] [-f]   (RUNS >= 20, default 40;
#        -f: the first table only, against the floor)
# Env:   CORDON (default build/cordon), BWRAP (default /usr/bin/bwrap),
#        CORDON_OLD (another build, e.g. the one before a change: timed in the
#        same rounds as a fourth column of the first table, with its ratio),
#        BENCH_USER (default cordontest: run as root, it re-runs as that user),
#        BENCH_TMPDIR (default /var/tmp; not /tmp, which the sandbox hides).
set -euo pipefail

die() { echo "bench-startup: $*" >&2; exit 1; }
SELF=$(readlink -f "$0")
ROOT=$(dirname "$(dirname "$SELF")")
RUNS=40 WARMUP=5 FLOOR_ONLY=
while getopts n:fh o; do
	case $o in n) RUNS=$OPTARG ;; f) FLOOR_ONLY=-f ;; *) sed -n '2,26p' "$SELF"; exit 2 ;; esac
done
if ! [[ $RUNS =~ ^[0-9]+$ ]] || ((RUNS < 20)); then die "-n needs a number >= 20"; fi

if [[ $(id -u) == 0 ]]; then
	BENCH_USER=${BENCH_USER:-cordontest}
	if id "$BENCH_USER" >/dev/null 2>&1; then
		exec runuser -u "$BENCH_USER" -- env CORDON="${CORDON:-}" CORDON_OLD="${CORDON_OLD:-}" BWRAP="${BWRAP:-}" \
			BENCH_TMPDIR="${BENCH_TMPDIR:-}" bash "$SELF" -n "$RUNS" $FLOOR_ONLY
	fi
	echo "bench-startup: warning: no user $BENCH_USER, measuring as root" >&2
fi

CORDON=$(readlink -f "${CORDON:-$ROOT/build/cordon}")
BWRAP=${BWRAP:-/usr/bin/bwrap}
[[ -x $CORDON ]] || die "no $CORDON (run make all)"
[[ -x $BWRAP ]] || die "no $BWRAP (install bubblewrap)"
for c in gcc musl-gcc; do command -v $c >/dev/null || die "$c missing (scripts/deps.sh installs it)"; done
T=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/cordon-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/bin" "$T/w/deny" "$T/roots"

# --- helpers, compiled here so the bench depends on nothing else ------------
echo 'int main(void) { return 0; }' >"$T/true.c"
cat >"$T/hwm.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int main(void) {  /* prints PID 1's comm and VmHWM (kB) */
	char l[256], comm[64] = "?"; long k = -1; FILE *f = fopen("/proc/1/comm", "r");
	if (f && fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
	if (!(f = fopen("/proc/1/status", "r"))) return 1;
	while (fgets(l, sizeof l, f)) if (!strncmp(l, "VmHWM:", 6)) sscanf(l + 6, "%ld", &k);
	printf("%s %ld\n", comm, k);
	return k < 0;
}
EOF
cat >"$T/bt.c" <<'EOF'
/* bt RUNS WARMUP LOG FDS ARGV... [::: FDS ARGV...]...  Runs the commands in
 * turn, the first one rotated each round; prints one row of ns per timed round.
 * FDS: comma list of descriptors opened on /dev/null in the child, or "-". */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static struct cmd { char **argv; int fds[4096], nfd; } c[64];
int main(int argc, char **argv) {
	int runs = atoi(argv[1]), warm = atoi(argv[2]), n = 0;
	int log = open(argv[3], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	for (int i = 4; i < argc && n < 64; n++) {
		for (char *s = strtok(argv[i], ","); s && *s != '-'; s = strtok(NULL, ","))
			c[n].fds[c[n].nfd++] = atoi(s);
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
				dup2(z, 1); dup2(log, 2); close(z);
				for (int f = 0, e; f < c[j].nfd; f++)
					if ((e = open("/dev/null", O_RDONLY)) != c[j].fds[f]) { dup2(e, c[j].fds[f]); close(e); }
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
cat >"$T/rss.c" <<'EOF'
/* rss CMD...: runs CMD, traced only to stop it at its exit; prints its own
 * VmHWM then (kB, -1 if ptrace is refused) and wait4's ru_maxrss (the max
 * over CMD and the descendants it reaped). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	int st; long self = -1; struct rusage ru; char path[64], l[256]; FILE *f;
	pid_t p = fork();
	if (argc < 2 || p < 0) return 2;
	if (p == 0) { ptrace(PTRACE_TRACEME, 0, 0, 0); execv(argv[1], argv + 1); _exit(127); }
	for (int first = 1; wait4(p, &st, 0, &ru) == p && WIFSTOPPED(st); first = 0) {
		int sig = WSTOPSIG(st), ev = st >> 16;
		if (first) ptrace(PTRACE_SETOPTIONS, p, 0, PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
		snprintf(path, sizeof path, "/proc/%d/status", (int)p);
		if (ev == PTRACE_EVENT_EXIT && (f = fopen(path, "r"))) {
			while (fgets(l, sizeof l, f)) if (!strncmp(l, "VmHWM:", 6)) sscanf(l + 6, "%ld", &self);
			fclose(f);
		}
		ptrace(PTRACE_CONT, p, 0, first || ev ? 0 : sig);
	}
	printf("%ld %ld\n", self, ru.ru_maxrss);
	return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
EOF
for h in true hwm; do musl-gcc -static -O2 -s -o "$T/bin/$h" "$T/$h.c" || die "cannot build $h.c"; done
for h in bt rss; do gcc -O2 -o "$T/bin/$h" "$T/$h.c" || die "cannot build $h.c"; done
TRUE=$T/bin/true LOG=$T/bench.log
cd "$T/w"

# --- policies and their raw bwrap twins --------------------------------------
policy() {  # policy NAME: sets OPTS, cordon's options for NAME
	local i
	OPTS=(-w "$T/w")
	case $1 in
	roots*) OPTS=(); for ((i = 1; i <= ${1#roots}; i++)); do
			mkdir -p "$T/roots/$i"; OPTS+=(-w "$T/roots/$i"); done ;;
	deny*) for ((i = 1; i <= ${1#deny}; i++)); do
			: >"$T/w/deny/f$i"; OPTS+=(--deny-read "$T/w/deny/f$i"); done ;;
	esac
}
# raw_bwrap < explain-output: prints FDS, then the raw bwrap argv, one a line
# (explain prints it last, from its header on).
# Options are walked by arity so no value is mistaken for an option.
raw_bwrap() {
	awk -v bw="$BWRAP" -v tr="$TRUE" '
	function set(list, k,  v, i) { split(list, v); for (i in v) ar[v[i]] = k }
	BEGIN { set("--unshare-user --unshare-user-try --unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try --unshare-all --share-net --die-with-parent --as-pid-1 --new-session --clearenv --disable-userns --assert-userns-disabled", 0)
		set("--chdir --unsetenv --uid --gid --hostname --remount-ro --proc --dev --tmpfs --mqueue --dir --cap-add --cap-drop --perms --size --argv0 --lock-file --exec-label --file-label --tmp-overlay --ro-overlay --overlay-src", 1)
		set("--setenv --bind --bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --symlink --chmod", 2)
		ar["--overlay"] = 3 }
	!hdr && /^bwrap argv/ { hdr = NR; next }
	hdr && NR > hdr + 1 { a[m++] = $0 }
	END {
		if (!hdr) err = "no bwrap argv header in the explain output"
		for (i = 0; !err && i < m && a[i] != "--"; i++) {
			x = a[i]
			if (x == "--info-fd" || x == "--sync-fd" || x == "--json-status-fd" || x == "--userns-block-fd") i++
			else if (x == "--bind-fd" || x == "--ro-bind-fd") {
				out[n++] = substr(x, 1, length(x) - 3); out[n++] = a[i+2]; out[n++] = a[i+2]; i += 2 }
			else if (x == "--ro-bind-data" || x == "--bind-data" || x == "--file") {
				fds = fds (fds == "" ? "" : ",") a[i+1]; out[n++] = x; out[n++] = a[i+1]; out[n++] = a[i+2]; i += 2 }
			else if (x in ar) { out[n++] = x; for (k = 0; k < ar[x]; k++) out[n++] = a[++i] }
			else err = "cannot translate bwrap option " x
		}
		if (!err && i >= m) err = "no inner stage in the explain output"
		if (err) { print "bench-startup: " err > "/dev/stderr"; exit 1 }
		print (fds == "" ? "-" : fds); print bw; for (k = 0; k < n; k++) print out[k]; print "--"; print tr
	}'
}
# mirror ARRAY: point the raw bwrap argv at a copy of the scratch tree
# ($T/raw), where every path it binds exists.  A run of cordon creates the
# missing protected names itself and removes them again; the floor must do
# the same mounts without leaving them in the tree cordon is timed on.
mirror() {
	local -n a=$1
	local i
	for ((i = 0; i < ${#a[@]}; i++)); do
		[[ ${a[i]} == "$T"/* && ${a[i]} != "$T"/bin/* ]] || continue
		a[i]=$T/raw/${a[i]#"$T"/}
		if [[ ${a[i - 2]-} == --ro-bind-data ]]; then
			mkdir -p "$(dirname "${a[i]}")" && : >"${a[i]}"
		elif [[ ${a[i - 1]} == --bind || ${a[i - 1]} == --ro-bind || ${a[i - 1]} == --chdir ]]; then
			mkdir -p "${a[i]}"
		fi
	done
}
cols() {  # cols POLICY...: appends "FDS raw-bwrap ::: - cordon OPTS -- true :::" to CMDS
	local p raw
	for p in "$@"; do
		policy "$p"
		"$CORDON" explain "${OPTS[@]}" -- true >"$T/explain.$p" 2>"$T/explain.err" ||
			{ cat "$T/explain.err" >&2; die "cordon explain failed ($p)"; }
		mapfile -t raw < <(raw_bwrap <"$T/explain.$p")
		((${#raw[@]} > 3)) || die "could not translate cordon's bwrap argv ($p)"
		mirror raw
		CMDS+=("${raw[@]}" ::: - "$CORDON" "${OPTS[@]}" -- "$TRUE" :::)
	done
}
run_bt() {  # run_bt ROWS: times CMDS into the file ROWS
	unset 'CMDS[${#CMDS[@]}-1]'
	"$T/bin/bt" "$RUNS" "$WARMUP" "$LOG" "${CMDS[@]}" >"$1" ||
		{ tail -n 5 "$LOG" >&2; die "a benchmarked command failed (above)"; }
}
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2) }'; }
ms() { awk -v c="$2" '{ print $c / 1e6 }' "$1" | med; }
ratio() { awk -v a="$2" -v b="$3" '{ print $a / $b }' "$1" | med; }

echo "cordon start-up benchmark: medians of $RUNS rounds after $WARMUP warm-up rounds, as $(id -un)"
echo "$("$CORDON" --version) ($CORDON), $("$BWRAP" --version) ($BWRAP), kernel $(uname -r), $(nproc) CPUs"
echo

# --- 1. against the floor ----------------------------------------------------
CMDS=(- "$TRUE" :::)
cols default
if [[ -n ${CORDON_OLD:-} ]]; then
	CORDON_OLD=$(readlink -f "$CORDON_OLD")
	[[ -x $CORDON_OLD ]] || die "no $CORDON_OLD"
	policy default
	CMDS+=(- "$CORDON_OLD" "${OPTS[@]}" -- "$TRUE" :::)
fi
run_bt "$T/rows.base"
printf '%-42s %9s\n' command "median ms" "true (static, direct)" "$(ms "$T/rows.base" 1)" \
	"raw bwrap (cordon's argv, static true)" "$(ms "$T/rows.base" 2)" \
	"cordon -w DIR -- true" "$(ms "$T/rows.base" 3)"
[[ -z ${CORDON_OLD:-} ]] || printf '%-42s %9s\n' "CORDON_OLD -w DIR -- true" "$(ms "$T/rows.base" 4)"
echo "cordon/bwrap $(ratio "$T/rows.base" 3 2)   cordon/true $(ratio "$T/rows.base" 3 1)" \
	"  bwrap/true $(ratio "$T/rows.base" 2 1)   (medians of per-round ratios)"
[[ -z ${CORDON_OLD:-} ]] || echo "CORDON_OLD/bwrap $(ratio "$T/rows.base" 4 2)   cordon/CORDON_OLD $(ratio "$T/rows.base" 3 4)" \
	"  ($CORDON_OLD)"
echo
[[ -z $FLOOR_ONLY ]] || exit 0

# --- 2. cost growth ----------------------------------------------------------
# Each policy's pair alternates on its own: mixed with the 100-root runs, the
# small policies would also time the kernel's deferred clean-up of the large
# ones' mounts (seen as a doubled 10-root median when all ran in one rotation).
GROWTH=(roots1 roots10 roots50 roots100 deny10 deny105 deny200)
declare -A M
printf '%-22s %10s %10s %13s\n' policy "bwrap ms" "cordon ms" "cordon/bwrap"
for p in "${GROWTH[@]}"; do
	CMDS=()
	cols "$p"
	run_bt "$T/rows.$p"
	M[B$p]=$(ms "$T/rows.$p" 1) M[C$p]=$(ms "$T/rows.$p" 2)
	label=${p/roots/writable roots: } label=${label/deny/deny-read files: }
	printf '%-22s %10s %10s %13s\n' "$label" "${M[B$p]}" "${M[C$p]}" "$(ratio "$T/rows.$p" 2 1)"
done
echo
slope() {  # slope UNIT KEY X1 X2 X3: per-unit cost over X1->X3, halves compared
	local w
	for w in bwrap cordon "cordon-bwrap"; do
		awk -v w="$w" -v u="$1" -v x1="$3" -v x2="$4" -v x3="$5" \
			-v b1="${M[B$2$3]}" -v b2="${M[B$2$4]}" -v b3="${M[B$2$5]}" \
			-v c1="${M[C$2$3]}" -v c2="${M[C$2$4]}" -v c3="${M[C$2$5]}" 'BEGIN {
			if (w == "bwrap") { t1 = b1; t2 = b2; t3 = b3 } else { t1 = c1; t2 = c2; t3 = c3 }
			if (w == "cordon-bwrap") { t1 -= b1; t2 -= b2; t3 -= b3 }
			h1 = (t2 - t1) / (x2 - x1); h2 = (t3 - t2) / (x3 - x2)
			printf "%-13s per-%s %7.4f ms (%d->%d); halves %7.4f (%d->%d), %7.4f (%d->%d): %s\n",
				w, u, (t3 - t1) / (x3 - x1), x1, x3, h1, x1, x2, h2, x2, x3,
				(h2 <= (h1 > 0 ? h1 : 0) * 1.25 + 0.01) ? "linear or better" : "worse than linear" }'
	done
}
slope root roots 1 50 100
slope mask deny 10 105 200
echo "(cordon-bwrap: cordon's own share, its median minus bwrap's at each point)"
echo

# --- 3. peak memory ----------------------------------------------------------
policy default
self=-1 tree=0 inner=0 bw=0
mapfile -t raw < <(raw_bwrap <"$T/explain.default")
[[ ${raw[0]} == - ]] || die "the default policy unexpectedly needs descriptors"
mirror raw
for _ in 1 2 3 4 5; do
	out=$("$T/bin/rss" "$CORDON" "${OPTS[@]}" -- "$TRUE") || die "cordon failed under the rss wrapper"
	read -r s t <<<"$out"
	out=$("$CORDON" "${OPTS[@]}" -- "$T/bin/hwm") || die "cannot read cordon-inner's VmHWM"
	read -r comm h <<<"$out"
	[[ $comm != hwm ]] || die "PID 1 in the sandbox is the command, not cordon-inner"
	out=$("$T/bin/rss" "${raw[@]:1}") || die "raw bwrap failed under the rss wrapper"
	read -r _ b <<<"$out"
	self=$((s > self ? s : self)) tree=$((t > tree ? t : tree)) inner=$((h > inner ? h : inner)) bw=$((b > bw ? b : bw))
done
kib() { awk -v k="$1" -v x="${2:-}" 'BEGIN { if (k < 0) print "n/a (ptrace refused)"; else
	printf "%6d KiB = %5.2f MiB  %s\n", k, k / 1024, x ? x : (k < 4096 ? "under the 4 MiB target" : "OVER the 4 MiB target") }'; }
echo "peak memory (max of 5 runs)"
printf '  %-36s %s\n' "cordon (its own VmHWM at exit)" "$(kib "$self")" \
	"cordon-inner (PID 1 VmHWM)" "$(kib "$inner")" \
	"cordon's tree (wait4 ru_maxrss)" "$(kib "$tree" "max over cordon, bwrap, inner, true")" \
	"raw bwrap's tree (wait4 ru_maxrss)" "$(kib "$bw" "for comparison")"

# --- 4. --git commit ---------------------------------------------------------
# A repository with two submodules and two linked worktrees: the default
# binds its .git read-only as one mount; --git commit pins each git dir
# (.git, modules/A, modules/B, worktrees/X, worktrees/Y and the holders in
# them), binds their config, hooks and info read-only and watches what is
# missing, and reads the refs before and after.
g=$T/git
gitq() { git -c user.name=b -c user.email=b@b -c init.defaultBranch=main -c protocol.file.allow=always "$@" >/dev/null 2>&1; }
for s in a b; do gitq init "$g/src$s" && gitq -C "$g/src$s" commit --allow-empty -m s || die "cannot build the bench repository"; done
gitq init "$g/repo" && gitq -C "$g/repo" commit --allow-empty -m one &&
	gitq -C "$g/repo" submodule add "$g/srca" a && gitq -C "$g/repo" submodule add "$g/srcb" b &&
	gitq -C "$g/repo" commit -m subs && gitq -C "$g/repo" worktree add "$g/wt1" &&
	gitq -C "$g/repo" worktree add "$g/wt2" || die "cannot build the bench repository"
CMDS=(- "$CORDON" -w "$g/repo" -- "$TRUE" ::: - "$CORDON" --git commit -w "$g/repo" -- "$TRUE" :::)
run_bt "$T/rows.git"
echo "--git commit on a repository with 2 submodules and 2 linked worktrees"
printf '  %-40s %9s\n' "cordon -w REPO -- true" "$(ms "$T/rows.git" 1)" \
	"cordon --git commit -w REPO -- true" "$(ms "$T/rows.git" 2)"
echo "  commit/default $(ratio "$T/rows.git" 2 1)   (median of per-round ratios)"

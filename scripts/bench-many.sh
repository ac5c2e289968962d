#!/usr/bin/env bash
# bench-many.sh: many cordon runs of one user at once (README, "Many runs at
# once"): the wall time and the peak memory of N concurrent `cordon -w WS --
# true` (N = 1 10 50 100 200, a workspace each, watch mode: beyond the
# user's inotify instances the later runs hold their names with
# placeholders), and of P concurrent `--net proxy` runs each fetching SIZE
# bytes from a server on the host's loopback through its own bridge; peak
# memory is the highest resident total of the user's processes over the
# batch's start (sampled every 50 ms, so a lower bound).  The
# load average is printed with each row: on a shared machine read the
# numbers beside it.  It is a benchmark: it prints numbers, asserts nothing
# but that every run exited 0.
#
# Usage: scripts/bench-many.sh [-n "1 10 50 100 200"] [-p PROXYRUNS] [-s BYTES]
# Env:   CORDON (default build/cordon)
set -euo pipefail

SELF=$(readlink -f "$0")
ROOT=$(dirname "$(dirname "$SELF")")
COUNTS="1 10 50 100 200" PROXY=50 SIZE=$((10 * 1024 * 1024))
while getopts n:p:s:h o; do
	case $o in n) COUNTS=$OPTARG ;; p) PROXY=$OPTARG ;; s) SIZE=$OPTARG ;;
		   *) sed -n '2,17p' "$SELF"; exit 2 ;; esac
done
CORDON=${CORDON:-$ROOT/build/cordon}
[ -x "$CORDON" ] || { echo "bench-many: no $CORDON (make first)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench-many: needs curl" >&2; exit 1; }

D=$(mktemp -d /var/tmp/cordon-bench-many.XXXXXX)
chmod 755 "$D"
spid= mpid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; [ -n "$mpid" ] && kill $mpid 2>/dev/null; rm -rf "$D"' EXIT

# The resident memory of every process of this user (the runs', their
# guardians' and bridges', and the benchmark's own), in KiB: the other
# users' work on a shared machine does not count.
rss_kib() { ps -u "$(id -u)" -o rss= | awk '{ s += $1 } END { print s + 0 }'; }
# sample_start: the highest of it while the batch runs, in $D/high.
sample_start() {
	rss_kib >"$D/high"
	( high=$(cat "$D/high")
	  while :; do
		r=$(rss_kib); [ "$r" -gt "$high" ] && high=$r && echo "$high" >"$D/high"
		sleep 0.05
	  done ) &
	mpid=$!
}
sample_stop() { kill "$mpid" 2>/dev/null; { wait "$mpid"; } 2>/dev/null || true; mpid=; }

# batch N ARGS...: N runs of `cordon ARGS` at once, each in a workspace of
# its own; prints wall seconds, peak MiB, failures.
batch() {
	local n=$1 i t0 t1 base fails=0
	shift
	rm -rf "$D/ws" && mkdir -p "$D/ws"
	for i in $(seq "$n"); do mkdir "$D/ws/$i"; done
	base=$(rss_kib)
	sample_start
	t0=$(date +%s.%N)
	local pids=()
	for i in $(seq "$n"); do
		"$CORDON" -w "$D/ws/$i" -C "$D/ws/$i" "$@" >/dev/null 2>"$D/ws/$i.err" || echo x >>"$D/fails" &
		pids+=($!)
	done
	wait "${pids[@]}"
	t1=$(date +%s.%N)
	sample_stop
	[ -f "$D/fails" ] && fails=$(wc -l <"$D/fails") && rm -f "$D/fails"
	awk -v t0="$t0" -v t1="$t1" -v b="$base" -v l="$(cat "$D/high")" -v n="$n" -v f="$fails" \
	    -v load="$(cut -d' ' -f1 /proc/loadavg)" -v label="$LABEL" \
	    'BEGIN { printf "%-28s %5d %8.2f %9.1f %7s %6d\n", label, n, t1 - t0, (l - b) / 1024, load, f }'
	[ "$fails" -eq 0 ] || { echo "  first failure:"; cat "$D"/ws/*.err | sort | uniq -c | sort -rn | head -3; }
}

printf '%-28s %5s %8s %9s %7s %6s\n' what runs wall_s peak_MiB load failed
for n in $COUNTS; do
	LABEL="true (watch mode)" batch "$n" -- true
done

truncate -s "$SIZE" "$D/blob"
python3 "$ROOT/scripts/blobserve.py" "$D/port" "$D/blob" &
spid=$!
for _ in $(seq 100); do [ -s "$D/port" ] && break; sleep 0.05; done
PORT=$(cat "$D/port")
LABEL="proxy, $((SIZE / 1048576)) MB each" batch "$PROXY" --net proxy --allow-domain "127.0.0.1:$PORT" -- \
	curl -sf --proxy http://127.0.0.1:3128 --noproxy '' -o /dev/null "http://127.0.0.1:$PORT/blob"

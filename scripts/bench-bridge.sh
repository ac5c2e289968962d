#!/usr/bin/env bash
# bench-bridge.sh: cordon-bridge against a direct loopback connection
# (DESIGN.md s.11), side by side in one run:
#   throughput: SIZE bytes (default 1 GiB) downloaded with curl from a
#     sendfile server on the host's 127.0.0.1: directly; from inside
#     `cordon --net proxy` through CONNECT (curl -p); through absolute-form
#     (curl -x); each RUNS times, alternated, the median MB/s and the ratio;
#   time to first byte of a small request on a fresh connection (curl's
#     time_starttransfer: connect + request + first byte; no process start),
#     N requests per path, median and p99, and the median added by the bridge.
# Targets: throughput >= 0.8x direct; <= 1 ms added to the median.
# It is a benchmark: it prints numbers and asserts no timing.
#
# Usage: scripts/bench-bridge.sh [-s BYTES] [-r RUNS] [-n REQUESTS]
# Env:   CORDON (default build/cordon; cordon-bridge beside it);
#        CORDON_OLD: another build, whose paths are measured in the same
#        rounds (connect-old, absolute-old), for a before/after in one run
set -euo pipefail

SELF=$(readlink -f "$0")
ROOT=$(dirname "$(dirname "$SELF")")
SIZE=1073741824 RUNS=3 REQS=300
while getopts s:r:n:h o; do
	case $o in s) SIZE=$OPTARG ;; r) RUNS=$OPTARG ;; n) REQS=$OPTARG ;;
		   *) sed -n '2,16p' "$SELF"; exit 2 ;; esac
done
CORDON=${CORDON:-$ROOT/build/cordon}
[ -x "$CORDON" ] || { echo "bench-bridge: no $CORDON (make first)" >&2; exit 1; }

D=$(mktemp -d /var/tmp/cordon-bench-bridge.XXXXXX)
chmod 755 "$D"
spid=
trap '[ -n "$spid" ] && kill $spid 2>/dev/null; rm -rf "$D"' EXIT
# A sparse file: sendfile serves it from the page cache's zero pages, so the
# server costs next to nothing and the path under test is what is measured.
truncate -s "$SIZE" "$D/blob"
python3 "$ROOT/scripts/blobserve.py" "$D/port" "$D/blob" &
spid=$!
for _ in $(seq 100); do [ -s "$D/port" ] && break; sleep 0.05; done
PORT=$(cat "$D/port")
URL="http://127.0.0.1:$PORT"
CP=("$CORDON" --allow-domain "127.0.0.1:$PORT" --)
CPOLD=("${CORDON_OLD:-$CORDON}" --allow-domain "127.0.0.1:$PORT" --)
PATHS=(connect absolute)
[ -n "${CORDON_OLD:-}" ] && PATHS+=(connect-old absolute-old)

speed() { # PATH-NAME: one download, MB/s on stdout
	local w='%{speed_download}\n'
	case $1 in
	direct) curl -sS --noproxy '*' -o /dev/null -w "$w" "$URL/blob" ;;
	connect) "${CP[@]}" curl -sS --noproxy '' -x http://127.0.0.1:3128 -p -o /dev/null -w "$w" "$URL/blob" ;;
	absolute) "${CP[@]}" curl -sS --noproxy '' -x http://127.0.0.1:3128 -o /dev/null -w "$w" "$URL/blob" ;;
	connect-old) "${CPOLD[@]}" curl -sS --noproxy '' -x http://127.0.0.1:3128 -p -o /dev/null -w "$w" "$URL/blob" ;;
	absolute-old) "${CPOLD[@]}" curl -sS --noproxy '' -x http://127.0.0.1:3128 -o /dev/null -w "$w" "$URL/blob" ;;
	esac | awk '{ printf "%.0f\n", $1 / 1e6 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p99() { sort -n | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; print v[i] }'; }

echo "bench-bridge: $SIZE bytes x $RUNS runs per path, $REQS small requests per path; $(nproc) CPUs"
declare -A tp
for r in $(seq "$RUNS"); do
	for p in direct "${PATHS[@]}"; do
		tp[$p]+="$(speed $p) "
	done
done
md=$(echo ${tp[direct]} | tr ' ' '\n' | median)
printf '%-22s %8s MB/s  (runs: %s)\n' "direct" "$md" "${tp[direct]}"
for p in "${PATHS[@]}"; do
	m=$(echo ${tp[$p]} | tr ' ' '\n' | median)
	printf '%-22s %8s MB/s  %.2fx direct   (runs: %s)\n' "bridge $p" "$m" "$(echo "$m $md" | awk '{ print $1 / $2 }')" "${tp[$p]}"
done

# In rounds of 20 requests per path, the paths rotated, so that a burst of
# load from elsewhere on the machine falls on all three alike.
direct= absolute= connect=
inside() { # CURL-OPTIONS: 20 requests from inside the sandbox
	"${CP[@]}" bash -c "for i in \$(seq 20); do curl -sS --noproxy '' -x http://127.0.0.1:3128 $1 -o /dev/null -w '%{time_starttransfer}\n' $URL/ok; done"
}
for r in $(seq $((REQS / 20))); do
	direct+=$(for i in $(seq 20); do curl -sS --noproxy '*' -o /dev/null -w '%{time_starttransfer}\n' "$URL/ok"; done)$'\n'
	absolute+=$(inside "")$'\n'
	connect+=$(inside -p)$'\n'
done
direct=$(echo "$direct" | grep .) absolute=$(echo "$absolute" | grep .) connect=$(echo "$connect" | grep .)
dmed=$(echo "$direct" | median)
printf '\n%-22s %8s %8s  (ms, time to first byte, fresh connection)\n' "" median p99
for p in direct absolute connect; do
	v=${!p}
	m=$(echo "$v" | median)
	printf '%-22s %8.3f %8.3f  %+.3f ms vs direct\n' "$p" "$(echo "$m" | awk '{ print $1 * 1000 }')" \
		"$(echo "$v" | p99 | awk '{ print $1 * 1000 }')" "$(echo "$m $dmed" | awk '{ print ($1 - $2) * 1000 }')"
done

#!/usr/bin/env bash
# bench-unix.sh: the cost of the Unix socket supervisor (issue 22).
#
# Times N connect()+accept() round trips on a Unix socket (tests/helpers/usock
# bench: socket, connect, accept, close, in one process) directly, inside
# cordon (each connect answered by cordon-inner), and inside cordon with
# --allow-unix-sockets (no supervisor), each R times; prints the median of
# each and the cost per connect.  It prints numbers and asserts nothing.
#
# Usage: scripts/bench-unix.sh [-n N] [-r R]   (defaults 10000 and 5)
# Env:   CORDON (default build/cordon), USOCK (default build/helpers/usock),
#        BENCH_TMPDIR (default /var/tmp; not /tmp, which the sandbox hides).
set -euo pipefail

N=10000
R=5
while getopts n:r: o; do
	case $o in
	n) N=$OPTARG ;;
	r) R=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-r R]" >&2; exit 2 ;;
	esac
done
CORDON=${CORDON:-build/cordon}
USOCK=${USOCK:-build/helpers/usock}
[ -x "$CORDON" ] && [ -x "$USOCK" ] || { echo "bench-unix: build first (make all)" >&2; exit 1; }
CORDON=$(realpath "$CORDON")
USOCK=$(realpath "$USOCK")
dir=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/cordon-bench-unix.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# median_ms LABEL COMMAND...: run R times, print the median in ms.
median_ms() {
	local label=$1 i
	shift
	for i in $(seq "$R"); do
		"$@" | sed -n 's/.* in \([0-9.]*\) ms.*/\1/p'
	done | sort -n | awk -v l="$label" -v n="$N" '{ v[NR] = $1 }
		END { m = v[int((NR + 1) / 2)]; printf "%-30s %9.1f ms  %6.2f us per round trip\n", l, m, m * 1000 / n }'
}

echo "$N connect+accept round trips, median of $R runs:"
median_ms "outside" "$USOCK" bench "$N" "$dir/o.sock"
median_ms "inside cordon (supervised)" "$CORDON" -w "$dir" -- "$USOCK" bench "$N" "$dir/i.sock"
median_ms "inside, --allow-unix-sockets" "$CORDON" -w "$dir" --allow-unix-sockets -- \
	"$USOCK" bench "$N" "$dir/u.sock"

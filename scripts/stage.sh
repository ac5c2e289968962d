#!/bin/sh
# stage.sh FILE NAME CMD...: one stage of `make check`.  Runs CMD, appends
# "NAME SECONDS STATUS" to FILE and says how long the stage took; exits with
# CMD's status, after printing every stage's time so far when it failed (a
# failed CI run shows where its time went too).
# stage.sh FILE --summary: prints the table of FILE and the total.
set -u
file=$1
shift
summary() {
	awk '{ printf "  %-12s %6d s  %s\n", $1, $2, ($3 == 0 ? "ok" : "FAILED (status " $3 ")"); t += $2 }
	     END { printf "  %-12s %6d s (%d min %d s)\n", "total", t, t / 60, t % 60 }' "$file"
}
if [ "${1:-}" = --summary ]; then
	echo "== make check: time per stage"
	summary
	exit 0
fi
name=$1
shift
mkdir -p "$(dirname "$file")"
start=$(date +%s)
echo "== stage $name: $*"
"$@"
st=$?
secs=$(( $(date +%s) - start ))
echo "$name $secs $st" >>"$file"
echo "== stage $name: $secs s$( [ $st -eq 0 ] || echo ", FAILED (status $st)")"
if [ $st -ne 0 ]; then
	echo "== make check stopped at $name: time per stage"
	summary
fi
exit $st

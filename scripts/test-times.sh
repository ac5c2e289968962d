#!/bin/sh
# test-times.sh [TSV...]: where the integration suite's time goes.  Reads the
# table tests/integration/run.sh writes (default build/test-times.tsv and,
# when present, build-asan/test-times.tsv: one line per file, pass and user:
# PASS USER FILE SECONDS PASSED FAILED) and prints one row per file with its
# seconds in each pass and user, its total, and the checks it counted,
# longest first; then each pass's sum.  The sums are the time the files
# would take one after another: run.sh runs them side by side, and prints
# its wall time at the end.
set -eu
[ $# -gt 0 ] || set -- build/test-times.tsv build-asan/test-times.tsv
for f in "$@"; do [ -f "$f" ] && cat "$f"; done | awk -F '\t' '
{
	col = $1 "/" ($2 == "root" ? "root" : "user")
	if (!(col in seen)) { seen[col] = 1; cols[++ncol] = col }
	t[$3, col] += $4; tot[$3] += $4; n[$3] += $5; nf[$3] += $6; sum[col] += $4
	files[$3] = 1
}
END {
	if (ncol == 0) { print "test-times: no times recorded (run tests/integration/run.sh first)" > "/dev/stderr"; exit 1 }
	printf "%-16s", "file"
	for (c = 1; c <= ncol; c++) printf " %18s", cols[c]
	printf " %8s %7s %6s\n", "total", "checks", "failed"
	# longest first: a selection sort over a few dozen files
	m = 0
	for (f in files) order[++m] = f
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
		if (tot[order[j]] > tot[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
	for (i = 1; i <= m; i++) {
		f = order[i]
		printf "%-16s", f
		for (c = 1; c <= ncol; c++) printf " %18s", ((f, cols[c]) in t) ? sprintf("%.1f", t[f, cols[c]]) : "-"
		printf " %8.1f %7d %6d\n", tot[f], n[f], nf[f]
	}
	printf "%-16s", "sum"
	all = 0
	for (c = 1; c <= ncol; c++) { printf " %18.1f", sum[cols[c]]; all += sum[cols[c]] }
	printf " %8.1f\n", all
}'

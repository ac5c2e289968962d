#!/usr/bin/env bash
# bench-git-status.sh: `git status` on a tree of N files (default 20000)
# whose files were all touched, outside, inside with the default (.git
# read-only: the refreshed index can never be written, so every status
# hashes every touched file again) and inside with --git commit (the first
# status writes the refreshed index, as outside).  For each: the files are
# touched, then `git status` runs twice; both times are printed.  A
# benchmark: it prints numbers and asserts nothing.
#
# Usage: scripts/bench-git-status.sh [N]
# Env:   CORDON (default build/cordon), BENCH_TMPDIR (default /var/tmp)
set -euo pipefail
N=${1:-20000}
ROOT=$(dirname "$(dirname "$(readlink -f "$0")")")
CORDON=$(readlink -f "${CORDON:-$ROOT/build/cordon}")
T=$(mktemp -d "${BENCH_TMPDIR:-/var/tmp}/cordon-gitstatus.XXXXXX")
trap 'rm -rf "$T"' EXIT
r=$T/repo
git init -q "$r"
mkdir -p "$r/d"
for ((i = 0; i < N; i++)); do echo "$i" >"$r/d/f$((i / 1000))-$i"; done
git -C "$r" add -A
git -C "$r" -c user.name=b -c user.email=b@b commit -qm files
ms() { local a b; a=$(date +%s%N); "$@" >/dev/null; b=$(date +%s%N); echo $(((b - a) / 1000000)); }
run() {  # run LABEL CMD...: touch every file, then two statuses
	local label=$1 one two
	shift
	find "$r/d" -type f -exec touch {} +
	one=$(ms "$@" git -C "$r" status --porcelain)
	two=$(ms "$@" git -C "$r" status --porcelain)
	printf '%-28s first %6s ms   second %6s ms\n' "$label" "$one" "$two"
}
echo "git status on $N touched files ($(git --version), $(nproc) CPUs)"
run outside env
run "cordon (default)" "$CORDON" -w "$r" -C "$r" --
run "cordon --git commit" "$CORDON" --git commit -w "$r" -C "$r" --

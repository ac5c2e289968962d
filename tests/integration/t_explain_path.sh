#!/usr/bin/env bash
# t_explain_path.sh: `cordon explain --path P` says, before a run, whether
# its command may write P, and what would allow it.  Each verdict is checked
# against the same write attempted in a real run with the same options: an
# answer that disagrees with the sandbox fails here, both ways.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
# Outside every root and not under /tmp (the sandbox's /tmp is its own).
out=$(mktemp -d /var/tmp/cordon-ep.XXXXXX) || exit 1
cleanup_dirs+=("$out")
mkdir -p "$ws/src" "$ws/ro" "$ws/secret"
echo s > "$ws/secret/key"
git -c init.defaultBranch=main init -q "$ws" || { echo "t_explain_path: git init failed" >&2; exit 1; }

# verdict OPTS... -- PATH: explain's "write" and "allow" for PATH (JSON).
verdict() {
	local args=("$@") path=${*: -1}
	unset 'args[${#args[@]}-1]' 'args[${#args[@]}-1]'
	"$CORDON" explain --json "${args[@]}" --path "$path" 2>"$ERR" |
		python3 -c 'import json,sys; p=json.load(sys.stdin)["paths"][0]
print("allowed" if p["write"] else "refused", p["allow"] or "")'
}
# attempt OPTS... -- PATH: "allowed" if the run's command could create PATH.
attempt() {
	local args=("$@") path=${*: -1}
	unset 'args[${#args[@]}-1]' 'args[${#args[@]}-1]'
	rm -f "$path" 2>/dev/null
	if "$CORDON" "${args[@]}" -- sh -c 'mkdir -p "${1%/*}" 2>/dev/null; : > "$1" && test -e "$1"' \
		sh "$path" >/dev/null 2>&1; then echo allowed; else echo refused; fi
	rm -rf "$ws/.codex"* 2>/dev/null
}
# case DESC WANT [ALLOW-PREFIX] -- OPTS... -- PATH
check() {
	local desc=$1 want=$2 allow=$3
	shift 4
	local v a
	v=$(verdict "$@")
	a=$(attempt "$@")
	assert "$desc: explain says $want" -- test "${v%% *}" = "$want"
	assert "$desc: and the run agrees" -- test "$a" = "$want"
	[ -z "$allow" ] || assert "$desc: to allow: $allow" -- test "${v#* }" != "${v#* "$allow"}"
}
R=(-w "$ws" -C "$ws")
check "a file in the root" allowed "" -- "${R[@]}" -- "$ws/src/a.c"
check "a file outside the roots" refused "-w $out" -- "${R[@]}" -- "$out/f"
ln -s "$out" "$ws/outl"
check "through a link in the root to a directory outside" refused "-w $out" -- "${R[@]}" -- "$ws/outl/f"
check "the private /tmp" allowed "" -- "${R[@]}" -- /tmp/x
check ".git/refs by default" refused "--git commit" -- "${R[@]}" -- "$ws/.git/refs/heads/x"
check ".git/refs with --git commit" allowed "" -- --git commit "${R[@]}" -- "$ws/.git/refs/heads/x"
check ".git/config with --git commit" refused "not allowed in any mode" -- --git commit "${R[@]}" -- "$ws/.git/config"
check ".git/hooks with --git commit" refused "not allowed in any mode" -- --git commit "${R[@]}" -- "$ws/.git/hooks/pre-commit"
check ".git/config with --unprotect .git" allowed "" -- --unprotect .git "${R[@]}" -- "$ws/.git/config"
check "a missing protected name (.codex)" refused "--unprotect .codex" -- "${R[@]}" -- "$ws/.codex/x"
check "a --read-only carve-out" refused "leave out --read-only $ws/ro" -- --read-only "$ws/ro" "${R[@]}" -- "$ws/ro/f"
check "a --deny-read path" refused "leave out --deny-read" -- --deny-read "$ws/secret" "${R[@]}" -- "$ws/secret/f"
expect 0 "read of a --deny-read path: explain says refused" -- sh -c \
	"'$CORDON' explain --deny-read '$ws/secret' -w '$ws' --path '$ws/secret/key' | grep -q 'read: *refused'"
expect 1 "and the run cannot read it" -- "$CORDON" --deny-read "$ws/secret" "${R[@]}" -- cat "$ws/secret/key"
expect 0 "control: without --deny-read it reads" -- "$CORDON" "${R[@]}" -- cat "$ws/secret/key"
expect_err 125 "--path goes with cordon explain" "--path outside explain is refused" -- \
	"$CORDON" --path /x -- true
finish

#!/usr/bin/env bash
# t_policy.sh: --policy in cordon's format and in srt's (escapes that must
# fail with their controls, refusals that run nothing), flags over a file,
# explain's table for each access kind, and explain --policy F printing the
# same effective policy as the matching flags, for both formats.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws/.git" "$ws/vendor" "$ws/sub" "$W/outside" "$W/pol"
echo secret > "$ws/secret.pem"
C=("$CORDON")

# --- cordon's format ------------------------------------------------------
# Relative paths resolve against the file's directory, not the caller's.
cat > "$W/pol/p.json" <<EOF
{
  "write": ["../ws"],
  "read_only": ["../ws/vendor"],
  "deny_read": ["../ws/*.pem"],
  "cwd": "../ws",
  "env": {"set": {"FROM_POLICY": "yes"}}
}
EOF
expect 0 "a policy's writable root is writable" -- \
	"${C[@]}" --policy "$W/pol/p.json" -- sh -c 'echo hi > from-policy'
assert "the write is on the host" -- test "$(cat "$ws/from-policy" 2>/dev/null)" = hi
refuse "outside the policy's roots stays read-only" -- \
	"${C[@]}" --policy "$W/pol/p.json" -- sh -c "echo x > '$W/outside/x'"
assert "nothing was written outside" -- test ! -e "$W/outside/x"
refuse "the policy's read_only carve-out is read-only" -- \
	"${C[@]}" --policy "$W/pol/p.json" -- sh -c 'echo x > vendor/x'
expect 0 "the policy's deny_read glob hides the file (control: it exists)" -- \
	"${C[@]}" --policy "$W/pol/p.json" -- sh -c 'test -e secret.pem && ! grep -q secret secret.pem'
expect_out 0 '^yes$' "the policy's env.set reaches the command" -- \
	"${C[@]}" --policy "$W/pol/p.json" -- sh -c 'echo "$FROM_POLICY"'
expect_out 0 '^flag$' "a --setenv flag overrides the file's value" -- \
	"${C[@]}" --policy "$W/pol/p.json" --setenv FROM_POLICY=flag -- sh -c 'echo "$FROM_POLICY"'
expect 0 "a -w flag extends the file's write list" -- \
	"${C[@]}" --policy "$W/pol/p.json" -w "$W/outside" -- sh -c "echo x > '$W/outside/y'"
assert "the flag's root took the write" -- test -e "$W/outside/y"
(cd "$W/pol" && "$CORDON" explain --policy p.json -- true >"$OUT" 2>"$ERR")
assert "a relative --policy path works from its own directory" -- grep -Eq "^  $ws +rw +policy write" "$OUT"

# --- refusals: 125, file:line:column: key, nothing ran ---------------------
refused() { # DESC REGEX FILE-CONTENT
	printf '%s' "$3" > "$W/pol/bad.json"
	rm -f "$ws/ran"
	expect_err 125 "$2" "$1" -- "${C[@]}" -w "$ws" --policy "$W/pol/bad.json" -- touch "$ws/ran"
	assert "$1: nothing ran" -- test ! -e "$ws/ran"
}
refused "an unknown key is refused" "bad.json:2:3: wirte: unknown key" $'{\n  "wirte": []\n}'
refused "a bad value names its nested key" "bad.json:1:14: network.mode: --net everything" \
	'{"network": {"mode": "everything"}}'
refused "a wrong type is refused" "bad.json:1:2: full_write: expected true or false" '{"full_write": "yes"}'
refused "malformed JSON is refused" "bad.json:1:[0-9]+: not valid JSON" '{"write": ["a",]}'
refused "a duplicate key is refused" "bad.json:1:[0-9]+: not valid JSON.*duplicate" '{"tmp": "host", "tmp": "private"}'
refused "~user is refused" "write: ~root/x: only ~ and ~/ expand" '{"write": ["~root/x"]}'
expect_err 125 "--policy $W/nope.json: cannot open it" "a missing policy file is refused" -- \
	"${C[@]}" --policy "$W/nope.json" -- true
refused "a policy cannot smuggle in a setting the flags refuse (--pid-ns bogus)" \
	"pid_ns: --pid-ns bogus: expected auto, isolate or inherit" '{"pid_ns": "bogus"}'

# --- srt's format ----------------------------------------------------------
cat > "$W/pol/srt.json" <<EOF
{
  "filesystem": {"allowWrite": ["$ws"], "denyWrite": ["$ws/vendor"], "denyRead": ["$ws/secret.pem"],
                 "allowRead": ["$ws/secret.pem"]},
  "network": {"allowedDomains": [], "deniedDomains": [], "allowLocalBinding": true}
}
EOF
expect 0 "srt allowWrite is writable" -- "${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- sh -c 'echo s > srt-wrote'
assert "srt's write is on the host" -- test -e "$ws/srt-wrote"
refuse "srt denyWrite is read-only" -- "${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- sh -c 'echo x > vendor/x'
refuse "srt outside allowWrite stays read-only" -- \
	"${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- sh -c "echo x > '$W/outside/srt'"
expect 0 "srt denyRead hides the file" -- "${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- sh -c '! grep -q secret secret.pem'
expect_err 0 "srt's filesystem.allowRead is not honoured: denyRead paths stay unreadable" \
	"srt allowRead is warned about by name" -- "${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- true
expect_err 0 "srt's network.allowLocalBinding is not honoured" "srt allowLocalBinding is warned about by name" -- \
	"${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- true
expect_out 0 '^lo$' "srt's empty allowedDomains is no network: loopback only" -- \
	"${C[@]}" --policy "$W/pol/srt.json" -C "$ws" -- ls /sys/class/net
cat > "$W/pol/srt-net.json" <<EOF
{"filesystem": {"allowWrite": [], "denyWrite": [], "denyRead": []},
 "network": {"allowedDomains": ["registry.npmjs.org"], "deniedDomains": []}}
EOF
if "$CORDON" explain --net proxy -- true >/dev/null 2>&1; then
	expect_out 0 '^network: proxy' "srt allowedDomains asks for the proxy" -- \
		"$CORDON" explain --policy "$W/pol/srt-net.json" -- true
else
	expect_err 125 "--net proxy is not available" "srt allowedDomains is refused like --net proxy (no proxy yet)" -- \
		"$CORDON" --policy "$W/pol/srt-net.json" -- true
fi

# --- explain --policy F = explain with the matching flags -----------------
# The "why" columns differ by design (policy key against flag): everything
# else must be equal, the bwrap argv included.
same() { # DESC POLICY-FILE -- FLAGS...
	local desc=$1 pol=$2
	shift 3
	local filter='{paths: [.paths[] | {path, access}], network: (.network | del(.why) |
		.allow |= map(.pattern) | .deny |= map(.pattern)), env: [.env.changes[] | del(.why)],
		effective, bwrap_argv}'
	"$CORDON" explain --json --policy "$pol" -- true 2>/dev/null | jq -S "$filter" > "$W/a.json"
	"$CORDON" explain --json "$@" -- true 2>/dev/null | jq -S "$filter" > "$W/b.json"
	if [ -s "$W/a.json" ] && cmp -s "$W/a.json" "$W/b.json"; then
		ok "$desc"
	else
		bad "$desc"
		diff "$W/a.json" "$W/b.json" | head -10 | sed 's/^/         | /'
	fi
}
cat > "$W/pol/eq.json" <<EOF
{"write": ["$ws", "$W/outside"], "read_only": ["$ws/vendor"], "deny_read": ["$ws/secret.pem"],
 "protect": [".hg"], "tmp": "private", "cwd": "$ws", "timeout": 30, "kill_after": 3,
 "env": {"clear": true, "unset": ["AWS_SECRET_ACCESS_KEY"], "set": {"CI": "1"}},
 "network": {"mode": "none", "allow_unix_sockets": true}}
EOF
same "explain --policy (cordon's format) prints what the flags print" "$W/pol/eq.json" -- \
	-w "$ws" -w "$W/outside" --read-only "$ws/vendor" --deny-read "$ws/secret.pem" --protect .hg \
	--tmp private -C "$ws" --timeout 30 --kill-after 3 --clear-env --unsetenv AWS_SECRET_ACCESS_KEY \
	--setenv CI=1 --net none --allow-unix-sockets
same "explain --policy (srt's format) prints what the flags print" "$W/pol/srt.json" -- \
	-w "$ws" --read-only "$ws/vendor" --deny-read "$ws/secret.pem"
"$CORDON" explain --json --policy "$W/pol/eq.json" -- true | jq .effective > "$W/pol/round.json"
same "the effective policy explain prints is itself a policy asking for the same" "$W/pol/round.json" -- \
	--policy "$W/pol/eq.json"

# --- explain's table: one row per rule, each access kind with its why -----
"$CORDON" explain -w "$ws" --read-only "$ws/vendor" --deny-read "$ws/secret.pem" --protect .hg \
	--policy "$W/pol/eq.json" --tmp host -- true >"$OUT" 2>"$ERR"
row() { # DESC REGEX
	assert "$1" -- grep -Eq -- "$2" "$OUT"
}
row "table header" '^  PATH +ACCESS +WHY$'
row "/ is ro by default" '^  / +ro +default'
row "a writable root is rw, from the policy" "^  $ws +rw +policy write$"
row "a flag overrides a policy scalar (tmp)" "^  /tmp +rw +--tmp \(tmp host\)$"
row "a carve-out is ro" "^  $ws/vendor +ro +policy read_only$"
row "a deny-read file is denied" "^  $ws/secret.pem +denied +policy deny_read$"
row "an existing protected name is protected" "^  $ws/.git +protected +default protected name: exists"
row "a missing protected name from the file is watched (the default)" \
	"^  $ws/.hg +watched +policy protect: missing; creating it stops the run"
row "a missing protected dotfile is watched" "^  $ws/.bashrc +watched +default protected dotfile: missing"
row "the network section follows" '^network: none +\(policy network.mode\)$'
row "environment changes with their origin" '^  set +CI=1 +\(policy env.set.CI\)$'
row "seccomp rules follow" '^seccomp rules'
assert "the bwrap argv comes last" -- test "$(grep -n '^bwrap argv' "$OUT" | cut -d: -f1)" -gt \
	"$(grep -n '^seccomp rules' "$OUT" | cut -d: -f1)"
assert "no bridge filter without --net proxy" -- sh -c "! grep -q '^bridge filter' '$OUT'"
expect_out 0 '^  execve +always \(the bridge runs no program\): Operation not permitted$' \
	"explain --net proxy shows the bridge's filter, from its table" -- "$CORDON" explain --net proxy -- true
row "... under its own heading" '^bridge filter'
assert "... and before the bwrap argv" -- test "$(grep -n '^bwrap argv' "$OUT" | cut -d: -f1)" -gt \
	"$(grep -n '^bridge filter' "$OUT" | cut -d: -f1)"
expect_out 0 '"bridge_seccomp":\[\{"syscall":"\(i386 or x32 ABI\)"' \
	"explain --json has the bridge's rules with --net proxy" -- "$CORDON" explain --json --net proxy -- true
expect 0 "explain --protect-missing mount" -- "$CORDON" explain --protect-missing mount -w "$ws" -- true
row "mount mode: a missing protected name is an empty read-only mount point" \
	"^  $ws/.codex +protected +default protected name: missing; an empty read-only mount point"
row "mount mode: a missing dotfile is still watched" "^  $ws/.bashrc +watched +default protected dotfile"
expect 0 "explain --cache private" -- "$CORDON" explain --cache private -w "$ws" -- true
row "the cache directory a run would bind is a cache row" "^  /.*/cordon/[^ ]+ +cache +--cache: the workspace's tool caches"
expect 0 "explain --cache none" -- "$CORDON" explain --cache none -w "$ws" -- true
assert "--cache none: no cache row" -- sh -c "! grep -Eq '^  [^ ]+ +cache ' '$OUT'"
expect_out 0 '"access":"denied"' "explain --json has the same rows" -- \
	"$CORDON" explain --json -w "$ws" --deny-read "$ws/secret.pem" -- true
expect_err 125 "--json goes with cordon explain" "--json outside explain is refused" -- "$CORDON" --json -- true

# --- explain lists every variable a run sets, replaces or removes ----------
# The command's environment inside against the caller's (env run directly,
# no shell to add its own), for each network mode: every name that differs
# must be a row of explain --json's env.changes, with a reason; an
# inherited GOCACHE is marked replaced.
jqt() { jq -e "$@" >/dev/null; }
envdiff() { # MODE-FLAGS...: the names that differ, one a line
	env | sort >"$W/env.out"
	"$CORDON" -w "$ws" -C "$ws" "$@" -- env 2>/dev/null | sort >"$W/env.in"
	# _ is the shell's (the last command's path), not cordon's.
	comm -3 "$W/env.out" "$W/env.in" | sed 's/^\t//; s/=.*//' | grep -v '^_$' | sort -u
}
for net in "--net none" "--net full" "--allow-domain example.com"; do
	# shellcheck disable=SC2086
	names=$(GOCACHE=/nonexistent/go-build NPM_CONFIG_CACHE=/nonexistent/npm envdiff $net)
	# shellcheck disable=SC2086
	GOCACHE=/nonexistent/go-build NPM_CONFIG_CACHE=/nonexistent/npm \
		"$CORDON" explain --json -w "$ws" -C "$ws" $net -- env >"$W/x.json" 2>/dev/null
	missing=
	for n in $names; do
		jq -e --arg n "$n" '.env.changes | any(.name == $n and (.why | length) > 0)' \
			"$W/x.json" >/dev/null || missing="$missing $n"
	done
	if [ -n "$names" ] && [ -z "$missing" ]; then
		ok "explain ($net) lists each of the $(echo $names | wc -w) variables a run changes, with a reason"
	else
		bad "explain ($net) leaves out:$missing (a run changes: $(echo $names))"
	fi
	assert "explain ($net): the inherited GOCACHE is marked replaced" -- \
		jqt '.env.changes | any(.name == "GOCACHE" and .replaced == true and (.why | startswith("--cache private")))' "$W/x.json"
	assert "explain ($net): NPM_CONFIG_CACHE (npm's other case) is removed" -- \
		jqt '.env.changes | any(.name == "NPM_CONFIG_CACHE" and .op == "unset")' "$W/x.json"
done
assert "explain --net proxy: the proxy variables with their reason" -- \
	jqt '.env.changes | any(.name == "HTTPS_PROXY" and (.why | startswith("--net proxy")))' "$W/x.json"
GOCACHE=/nonexistent/go-build "$CORDON" explain -w "$ws" -- true >"$OUT" 2>"$ERR"
row "text: an inherited variable cordon replaces says so" \
	"^  replace GOCACHE=/.*/go-build +\(--cache private: .*; the caller's value is replaced\)$"
row "text: --net none's retry settings" "^  set +PIP_RETRIES=0 +\(--net none: no retries"

# --- explain creates nothing: no socket, memfd, pipe or cache directory -----
xdg="$W/xdg"
mkdir -p "$xdg"
expect 0 "explain with --report, --allow-domain and --cache private" -- \
	env XDG_CACHE_HOME="$xdg" "$CORDON" explain -w "$ws" --report "$W/never.json" \
	--allow-domain example.com --cache private -- true
assert "explain made no cache directory" -- test ! -e "$xdg/cordon"
# The real binary, not the no-Landlock pass's wrapper (which makes a pipe
# of its own): what is traced is cordon alone.
if command -v strace >/dev/null 2>&1 &&
	strace -f -o "$W/strace" -e trace=socketpair,memfd_create,pipe2 \
		env XDG_CACHE_HOME="$xdg" "$CORDON_BIN" explain -w "$ws" --report "$W/never.json" \
		--allow-domain example.com -- true >/dev/null 2>&1; then
	assert "explain creates no socket, memfd or pipe ($(grep -cE 'socketpair|memfd_create|pipe2' "$W/strace") calls)" -- \
		sh -c "! grep -qE '(socketpair|memfd_create|pipe2)\(' '$W/strace'"
	# Control: a run makes them (the same trace sees them).
	strace -f -o "$W/strace" -e trace=socketpair,memfd_create,pipe2 \
		"$CORDON_BIN" -w "$ws" --report "$W/r.json" --allow-domain example.com -- true >/dev/null 2>&1
	assert "control: a run creates its sockets and memfd (strace sees them)" -- \
		grep -qE 'memfd_create\("cordon-net-decisions"' "$W/strace"
fi
# --- srt's relative paths mean what srt means: the run's working directory -
# srt resolves allowWrite ["."] against its working directory; read from
# ~/.srt-settings.json against the file's directory it made the whole home
# writable and the project read-only.  A home of the test's own.
H="$W/home"
proj="$H/proj"
mkdir -p "$proj/build" "$W/elsewhere"
printf '{\n  "filesystem": {"allowWrite": ["."]}\n}\n' >"$H/.srt-settings.json"
HC=(env HOME="$H" "$CORDON")
(cd "$proj" && "${HC[@]}" --policy "$H/.srt-settings.json" -- sh -c 'echo p > in-project' >"$OUT" 2>"$ERR")
assert "srt file in ~, run in the project: \".\" is the project (writable)" -- test -e "$proj/in-project"
(cd "$proj" && "${HC[@]}" --policy "$H/.srt-settings.json" -- sh -c "echo x > '$H/in-home'" >"$OUT" 2>"$ERR")
assert "... and the home directory is not writable (the escape: it was, with the file-relative rule)" -- \
	test ! -e "$H/in-home"
assert "... and no warning: no root holds the home directory" -- bash -c "! grep -q 'warning: .* is writable' '$ERR'"
(cd "$proj" && "${HC[@]}" explain --policy "$H/.srt-settings.json" -- true >"$OUT" 2>"$ERR")
assert "explain says srt's rule and the directory" -- \
	grep -q "(srt format; its relative paths resolve against $proj, the run's working directory, as srt does)" "$OUT"
assert "explain's table: the project is rw from the policy" -- grep -Eq "^  $proj +rw +policy filesystem.allowWrite" "$OUT"
(cd "$W/elsewhere" && "${HC[@]}" explain --json --policy "$H/.srt-settings.json" -C "$proj" -- true >"$OUT" 2>"$ERR")
assert "with -C: \".\" is -C's directory (explain --json relative_to, relative_base)" -- \
	grep -q "\"relative_to\": *\"working_directory\", *\"relative_base\": *\"$proj\"" "$OUT"
(cd "$W/elsewhere" && "${HC[@]}" --policy "$H/.srt-settings.json" -C "$proj" -- sh -c 'echo c > with-C' >"$OUT" 2>"$ERR")
assert "... and a run with -C writes there" -- test -e "$proj/with-C"
printf '{"filesystem": {"allowWrite": ["."], "denyWrite": ["./build"]}}\n' >"$proj/.srt.json"
(cd "$W/elsewhere" && "${HC[@]}" --policy "$proj/.srt.json" -C "$proj" -- sh -c 'echo b > out' >"$OUT" 2>"$ERR")
assert "srt file in the project, run with -C: \".\" is the project" -- test -e "$proj/out"
refuse "... and \"./build\" is its build/, read-only" -- \
	env -C "$W/elsewhere" HOME="$H" "$CORDON" --policy "$proj/.srt.json" -C "$proj" -- sh -c 'echo x > build/x'
(cd "$proj" && "${HC[@]}" --policy .srt.json -- sh -c 'echo b > out2' >"$OUT" 2>"$ERR")
assert "... the same run from the project itself" -- test -e "$proj/out2" -a ! -e "$proj/build/x"
printf '{\n  "write": [\n    "."\n  ]\n}\n' >"$H/cordon-policy.json"
expect_err 0 "^cordon: warning: $H is writable \\(from $H/cordon-policy\\.json:3\\), and it holds your home directory" \
	"cordon's format stays file-relative: \".\" in ~ is ~, and the warning names file:line" -- \
	env -C "$proj" HOME="$H" "$CORDON" --policy "$H/cordon-policy.json" -- true
expect_err 0 "^cordon: warning: $H is writable \\(from the flag -w $H\\)" \
	"a -w of the home directory is warned about, naming the flag" -- "${HC[@]}" -w "$H" -- true
expect_err 0 "^cordon: warning: $W is writable \\(from the flag -w $W\\/?\\), and it holds your home directory" \
	"... and one of a directory above it" -- "${HC[@]}" -w "$W/" -- true
expect 0 "control: a -w inside the home directory" -- "${HC[@]}" -w "$proj" -- true
assert "... is not warned about" -- bash -c "! grep -q 'warning' '$ERR'"

finish

#!/usr/bin/env bash
# t_report.sh: --report after each kind of end (normal exit, timeout, signal,
# refused flags, a sandbox that could not be built, a command not found), its
# contents, and that the command cannot turn the report into a write
# elsewhere.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws" "$W/reports"
R="$W/reports/r.json"
C=("$CORDON" -w "$ws" -C "$ws")

# q FILTER: the filter's value in the report, compact.
q() { jq -c "$1" "$R" 2>/dev/null; }
has() { # DESC FILTER WANT
	local got
	got=$(q "$2")
	if [ "$got" = "$3" ]; then ok "$1"; else bad "$1 ($2 is $got, wanted $3)"; fi
}

rm -f "$R"
expect 3 "a normal run keeps its status" -- "${C[@]}" --report "$R" -- sh -c 'echo hi; exit 3'
has "normal exit: status" .status 3
has "normal exit: reason" .reason '"exited"'
has "normal exit: no signal" .signal null
has "normal exit: no error" .error null
has "normal exit: the command" .command '["sh","-c","echo hi; exit 3"]'
has "normal exit: rusage of the process tree" '.rusage | (.user_s|type) + (.max_rss_kb > 0 | tostring)' '"numbertrue"'
has "normal exit: a duration" '.duration_s | type' '"number"'
has "normal exit: no violations" .violations '[]'
has "normal exit: network none, nothing decided" '.network | [.mode, .allowed, .refused]' '["none",0,0]'
has "normal exit: the effective policy" ".policy.effective.write" "[\"$ws\"]"
has "normal exit: the path rules" ".policy.paths | map(select(.path == \"$ws\")) | .[0].access" '"rw"'
if [ "$(q '.policy.effective.cache')" = '"private"' ] && [ -n "$(q '.policy.paths[] | select(.access == "cache")')" ]; then
	ok "normal exit: the workspace's cache directory is a cache row"
elif [ "$(q '.policy.effective.cache')" = '"private"' ]; then
	bad "normal exit: --cache private but no cache row in the report"
fi

# CPU the command's children spend is counted too (everything bwrap waited for).
rm -f "$R"
expect 0 "a busy child process" -- "${C[@]}" --report "$R" -- sh -c \
	'sh -c "i=0; while [ \$i -lt 200000 ]; do i=\$((i+1)); done" & wait'
has "rusage counts the children's CPU" '.rusage.user_s > 0.05' true

rm -f "$R"
expect 124 "a timeout ends with 124" -- "${C[@]}" --report "$R" --timeout 1 -- sleep 30
has "timeout: status" .status 124
has "timeout: reason" .reason '"timeout"'

# The CPU of processes cordon ends counts too: the sandbox's PID 1 kills and
# reaps them itself (a SIGKILL of PID 1 would have the kernel reap them
# with their times lost).  4 processes that would spin 60 s, ended by the
# timeout (its SIGTERM ends the shell, PID 1 kills the spinners): what they
# had used a moment before, read from inside, must be in rusage.  A
# comparison, not a fixed amount: on a loaded machine they get little CPU.
rm -f "$R" "$ws/spun"
expect 124 "a timeout ends busy processes" -- "${C[@]}" --report "$R" --timeout 3 -- \
	bash -c 'python3 "$0" 4 60 & sleep 2.5
		cat /proc/[0-9]*/stat 2>/dev/null | awk "/\(python3\)/ { t += \$14 + \$15 } END { print t }" > spun
		wait' "$HELPERS/spin.py"
spun=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", $1 / hz }' "$ws/spun" 2>/dev/null)
has "timeout: the ended processes' CPU ($spun s before the end) is in rusage ($(q '.rusage | [.user_s, .system_s]'))" \
	"(.rusage.user_s + .rusage.system_s) >= ${spun:-1000} and ${spun:-0} > 0" true

rm -f "$R"
expect 137 "a command killed by a signal" -- "${C[@]}" --report "$R" -- sh -c 'kill -9 $$'
has "signal: reason" .reason '"signaled"'
has "signal: which" .signal 9

rm -f "$R" "$ws/started"
"${C[@]}" --report "$R" -- sh -c 'touch started; exec sleep 30' >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do [ -e "$ws/started" ] && break; sleep 0.05; done
kill -TERM "$pid"
wait "$pid"
st=$?
assert "SIGTERM to cordon ends the run with 143" -- test "$st" -eq 143
has "SIGTERM: reason" .reason '"terminated"'
has "SIGTERM: the signal cordon was sent" .forwarded_signal 15

rm -f "$R"
expect 125 "a sandbox that cannot be built is 125" -- "$CORDON" --report "$R" -w "$W/nonexistent" -- true
has "125: status" .status 125
has "125: reason" .reason '"setup_failed"'
has "125: the message" '.error | test("--write .*nonexistent")' true
has "125: no rusage (nothing ran)" .rusage null

rm -f "$R"
expect 125 "refused flags are 125" -- "$CORDON" --report "$R" --tmp shared -- true
has "refused flags: reason" .reason '"setup_failed"'
has "refused flags: the message" .error '"--tmp shared: expected private or host"'
has "refused flags: no policy" .policy null

rm -f "$R"
printf '{"wirte": []}' > "$W/bad.json"
expect 125 "a refused policy is 125" -- "$CORDON" --report "$R" --policy "$W/bad.json" -- true
has "refused policy: the message names the key" '.error | test("bad.json:1:2: wirte: unknown key")' true

rm -f "$R"
expect 127 "a command not found is 127" -- "${C[@]}" --report "$R" -- /nonexistent-command
has "127: reason" .reason '"not_found"'
has "127: the message" '.error | test("not found")' true

# --- the report's own safety ------------------------------------------------
# The command can write where the report goes: a link it leaves there must
# be replaced, never written through.
echo precious > "$W/target"
chmod 644 "$W/target"
rm -f "$ws/r.json"
expect 0 "the command plants a link at the report's path" -- \
	"${C[@]}" --report "$ws/r.json" -- ln -s "$W/target" "$ws/r.json"
assert "the link's target is untouched" -- test "$(cat "$W/target")" = precious
assert "the report replaced the link" -- test -f "$ws/r.json" -a ! -L "$ws/r.json"
assert "the report is JSON" -- jq -e .status "$ws/r.json" >/dev/null
# A link planted in the directory part (an earlier run's command made
# $ws/out a link to a directory of the caller's): the report is not
# written through it (issue 30, item 12).
mkdir -p "$W/elsewhere" "$ws/realout"
rm -rf "$ws/out" && ln -s "$W/elsewhere" "$ws/out"
expect_err 125 "--report $ws/out/r.json: its directory goes through the symbolic link $ws/out" \
	"a link in the report's directory part is refused" -- \
	"${C[@]}" --report "$ws/out/r.json" -- touch "$ws/ran"
assert "nothing ran and nothing was written where it leads" -- test ! -e "$ws/ran" -a ! -e "$W/elsewhere/r.json"
expect 0 "control: the real directory is fine" -- "${C[@]}" --report "$ws/realout/r.json" -- true
assert "control: and the report is there" -- jq -e .status "$ws/realout/r.json" >/dev/null
rm -f "$ws/ran"
expect_err 125 "--report $W/no-such-dir/r.json: cannot open its directory" \
	"a report that cannot be written stops the run before it starts" -- \
	"${C[@]}" --report "$W/no-such-dir/r.json" -- touch "$ws/ran"
assert "nothing ran" -- test ! -e "$ws/ran"
expect 0 "explain writes no report" -- "$CORDON" explain --report "$W/reports/explain.json" -w "$ws" -- true
assert "no report from explain" -- test ! -e "$W/reports/explain.json"

# --- a protected-name violation -------------------------------------------
# Watch mode (the default) ends the run when a missing protected name
# appears, moves it aside and the report names all three.
rm -f "$R"
rm -rf "$ws/.git" "$ws"/.git.cordon-quarantine-*
refuse "creating .git in watch mode ends the run" -- \
	"${C[@]}" --protect-missing watch --report "$R" -- mkdir .git
has "violation: reason" .reason '"violation"'
has "violation: status 1" .status 1
has "violation: one" '.violations | length' 1
has "violation: the kind" '.violations[0].kind' '"protected_name"'
has "violation: the name" '.violations[0].name' '".git"'
has "violation: the path" '.violations[0].path' "\"$ws/.git\""
moved=$(q '.violations[0].quarantined' | tr -d '"')
case "$moved" in
"$ws"/.git.cordon-quarantine-*) ok "violation: the quarantined path" ;;
*) bad "violation: the quarantined path is $moved" ;;
esac
assert "violation: the quarantined directory is where the report says" -- test -d "$moved"
assert "violation: nothing left at .git" -- test ! -e "$ws/.git"
rm -rf "$moved"
# Control: the same run in a subdirectory is no violation.
rm -f "$R"
expect 0 "control: mkdir sub/.git is allowed" -- "${C[@]}" --report "$R" -- sh -c 'mkdir -p sub/.git'
has "control: no violations" .violations '[]'
rm -rf "$ws/sub"

# --- network decisions (--net proxy): a refused name is counted and named.
# Names refused by the allowlist are never resolved, so nothing leaves the
# machine.  curl is the client: bash's /dev/tcp would do, but curl says 403.
rm -f "$R"
expect 0 "a proxied run with two refusals ends normally" -- "${C[@]}" --allow-domain allowed.test \
	--report "$R" -- sh -c 'curl -s -o /dev/null http://denied.test/; curl -s -o /dev/null -x socks5h://127.0.0.1:1080 http://other.test:8080/; exit 0'
has "network: the mode" .network.mode '"proxy"'
has "network: both refusals counted" .network.refused 2
has "network: nothing allowed" .network.allowed 0
has "network: the first refusal names its host and port" '.network.refusals[0] | [.host, .port]' '["denied.test",80]'
has "network: the SOCKS5 refusal too" '.network.refusals[1] | [.host, .port]' '["other.test",8080]'
has "network: the reason" '.network.refusals[0].reason' '"unlisted"'
# Control: without the proxy there are no network decisions at all.
rm -f "$R"
expect 0 "control: a run without the proxy" -- "${C[@]}" --report "$R" -- true
has "control: no refusals" .network.refused 0

finish

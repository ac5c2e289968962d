#!/usr/bin/env bash
# t_net_policy.sh: what --net proxy reaches and says, kept lean (no TLS, no
# big transfers): --net-log never written through a link, a FIFO, a hard
# link or another user's file; a port-less --allow-domain never reaches
# this machine's services; the lines cordon prints on refused hosts and on
# a failed run that made no connection.  run.sh starts it in a network
# namespace of its own with only lo, with the test resolver map
# (allowed.test, other.test, ... are 127.0.0.1).
. "$(dirname "$0")/lib.sh"

in_test_netns || { finish; exit; }

ws="$W/ws"
mkdir -p "$ws"
NS="$HELPERS/netserve.py"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "${cleanup_dirs[@]}"' EXIT

# serve NAME [BIND]: an HTTP test server (/hello answers hello); its port in
# $PORT_NAME.
serve() {
	local name=$1
	NETSERVE_BIND=${2:-127.0.0.1} python3 "$NS" "$W/port.$name" http &
	pids+=($!)
	for _ in $(seq 200); do [ -s "$W/port.$name" ] && break; sleep 0.05; done
	printf -v "PORT_$name" '%s' "$(cat "$W/port.$name")"
}
# Two loopback-only services, as a database and a dev server would be.
serve a
serve b
A=$PORT_a
B=$PORT_b
C=("$CORDON" -w "$ws" -C "$ws")
GET=(curl -sS --max-time 20)

echo "-- --net-log: opened by cordon, never through a link, a FIFO or a file of someone else"
printf 'keep\n' >"$W/victim"
ln -s "$W/victim" "$ws/link.log"
expect_err 125 '^cordon: --net-log .*link\.log: a symbolic link' "a link at the log's name is refused" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/link.log" -- touch ran
assert "... before the command ran, and nothing was written through it" -- \
	bash -c "[ ! -e '$ws/ran' ] && [ \"\$(cat '$W/victim')\" = keep ]"
ln -s "$W/created-by-link" "$ws/dangling.log"
expect_err 125 'a symbolic link' "a dangling link is refused too" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/dangling.log" -- touch ran
assert "... and creates nothing where it points" -- test ! -e "$W/created-by-link" -a ! -e "$ws/ran"
# A link in the directory part, planted by an earlier run (issue 30, item 12).
mkdir -p "$W/logs-elsewhere" "$ws/logs"
ln -s "$W/logs-elsewhere" "$ws/logs-link"
expect_err 125 "^cordon: --net-log .*logs-link/n\.log: its directory goes through the symbolic link" \
	"a link in the log's directory part is refused" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/logs-link/n.log" -- touch ran
assert "... before the command ran, and nothing was created where it leads" -- \
	test ! -e "$ws/ran" -a ! -e "$W/logs-elsewhere/n.log"
expect 0 "control: the log in a real directory" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/logs/n.log" -- true
assert "control: the log file is there" -- test -f "$ws/logs/n.log"
mkfifo "$ws/fifo.log"
expect_err 125 '^cordon: --net-log .*fifo\.log: not a regular file' "a FIFO is refused (no reader: no hang)" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/fifo.log" -- touch ran
( exec 3<"$ws/fifo.log"; sleep 5 ) &
reader=$!
expect_err 125 'not a regular file' "a FIFO with a reader is refused too" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/fifo.log" -- touch ran
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
mkdir "$ws/logdir"
expect_err 125 '^cordon: --net-log .*logdir: not a regular file' "a directory is refused" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/logdir" -- touch ran
expect_err 125 'name a file, not a directory' "... and a path ending in /" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/logdir/" -- touch ran
printf 'keep\n' >"$W/orig"
ln "$W/orig" "$ws/hard.log"
expect_err 125 '^cordon: --net-log .*hard\.log: the file has 2 names' "a hard link of another file is refused" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/hard.log" -- touch ran
assert "... and nothing was appended to it" -- test "$(cat "$W/orig")" = keep -a ! -e "$ws/ran"
if is_root; then
	# Root may write anything: only cordon's owner check stops the append.
	printf 'keep\n' >"$ws/other.log"
	chown 65534 "$ws/other.log"
	chmod 666 "$ws/other.log"
	other="$ws/other.log"
	other_re='owned by uid 65534, not by you'
else
	other="$HELPERS/netserve.py" # root's
	other_re='^cordon: --net-log .*netserve\.py'
fi
cp "$other" "$W/other.before"
expect_err 125 "$other_re" "a file of another user is refused" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$other" -- touch ran
assert "... unchanged, and the command never ran" -- \
	bash -c "cmp -s '$other' '$W/other.before' && [ ! -e '$ws/ran' ]"
expect_out 0 '^hello$' "control: a new log file works" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/net.log" -- "${GET[@]}" "http://allowed.test:$A/hello"
assert "... created 0600 by the caller, one allowed line" -- \
	bash -c "[ \"\$(stat -c '%a %u' '$ws/net.log')\" = '600 $(id -u)' ] && [ \"\$(grep -c '\"decision\":\"allow\"' '$ws/net.log')\" = 1 ]"
expect_out 0 '^hello$' "control: an existing log of the caller's is appended to" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" --net-log "$ws/net.log" -- "${GET[@]}" "http://allowed.test:$A/hello"
assert "... two lines now" -- test "$(wc -l <"$ws/net.log")" -eq 2
expect 0 "explain with --net-log" -- "$CORDON" explain --allow-domain "allowed.test:$A" --net-log "$ws/explain.log" -- true
assert "... creates no log file (explain runs nothing, opens nothing to write)" -- test ! -e "$ws/explain.log"

echo "-- a rule without a port never reaches this machine's services"
expect_out 0 '^403 403$' "allowed.test (no port, 127.0.0.1) reaches neither loopback service" -- \
	"${C[@]}" --allow-domain allowed.test -- sh -c \
	"curl -s -o /dev/null -w '%{http_code} ' http://allowed.test:$A/hello; curl -s -o /dev/null -w '%{http_code}\n' http://allowed.test:$B/hello"
expect_out 0 "with its port: --allow-domain allowed\\.test:$A" "... and the 403 says to name the port" -- \
	"${C[@]}" --allow-domain allowed.test -- "${GET[@]}" "http://allowed.test:$A/hello"
expect_out 0 "^hello 403$" "control: allowed.test:$A reaches that port, and only that one" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" -- sh -c \
	"printf '%s ' \"\$(curl -s http://allowed.test:$A/hello)\"; curl -s -o /dev/null -w '%{http_code}\n' http://allowed.test:$B/hello"
expect_out 0 '^403$' "the address 127.0.0.1 named without a port is refused too" -- \
	"${C[@]}" --allow-domain 127.0.0.1 -- curl -s --noproxy "" -x http://127.0.0.1:3128 -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$A/hello"
expect_out 0 '^hello$' "control: 127.0.0.1:$A" -- \
	"${C[@]}" --allow-domain "127.0.0.1:$A" -- "${GET[@]}" --noproxy "" -x http://127.0.0.1:3128 "http://127.0.0.1:$A/hello"
expect_out 0 '^403$' "SOCKS5 the same: allowed.test without a port" -- \
	"${C[@]}" --allow-domain allowed.test -- sh -c \
	"curl -s -o /dev/null -x socks5h://127.0.0.1:1080 http://allowed.test:$A/hello; echo 403"
assert "... was refused (the SOCKS reply)" -- bash -c "! grep -q hello '$OUT'"
if is_root; then
	# An address of the host's own that is public: a service on it is the
	# machine's, as on loopback (the namespace is this test's own).
	ip addr add 1.2.3.4/32 dev lo
	serve own 1.2.3.4
	expect_out 0 '^403$' "a public address of this machine (1.2.3.4 on lo) without a port is refused" -- \
		"${C[@]}" --allow-domain 1.2.3.4 -- curl -s -o /dev/null -w '%{http_code}\n' "http://1.2.3.4:$PORT_own/hello"
	expect_out 0 '^hello$' "control: 1.2.3.4:$PORT_own named with its port" -- \
		"${C[@]}" --allow-domain "1.2.3.4:$PORT_own" -- "${GET[@]}" "http://1.2.3.4:$PORT_own/hello"
fi

echo "-- the lines after a run with refused or failed hosts"
expect_err 0 "^cordon: refused other\\.test:$A \\(not listed\\): add --allow-domain other\\.test\$" \
	"a refused host gets one line naming the flag" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" -- sh -c \
	"curl -s -o /dev/null http://other.test:$A/; curl -s -o /dev/null http://other.test:$A/x; curl -s -o /dev/null http://allowed.test:$A/hello"
assert "... once for two refusals, none for the allowed host" -- \
	bash -c "[ \"\$(grep -c '^cordon: ' '$ERR')\" = 1 ]"
expect_err 0 "^cordon: refused allowed\\.test:$B \\(resolves to 127\\.0\\.0\\.1, this machine; .*add --allow-domain allowed\\.test:$B\$" \
	"a port-less rule's refusal names the port to add" -- \
	"${C[@]}" --allow-domain allowed.test -- curl -s -o /dev/null "http://allowed.test:$B/"
expect_out 0 'could not resolve nx\.invalid' "a name that does not resolve: the 502 says so" -- \
	"${C[@]}" --allow-domain nx.invalid:80 --net-log "$ws/nx.log" -- curl -s http://nx.invalid/
assert "... the line too" -- grep -q '^cordon: failed nx\.invalid:80 (could not resolve)' "$ERR"
assert "... and the log" -- grep -q '"reason":"could-not-resolve"' "$ws/nx.log"
expect 0 "control: a run with only allowed connections" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" -- curl -s -o /dev/null "http://allowed.test:$A/hello"
assert "... prints nothing of cordon's" -- bash -c "! grep -q '^cordon' '$ERR'"

echo "-- a failed run that made no connection: the note on clients that ignore the proxy"
expect_err 3 "^cordon: note: the command made no connection through cordon's proxy; .*Node before 22\\.21.*Clients" \
	"a failed run with no connection gets the note" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" -- sh -c 'exit 3'
assert "... one line" -- test "$(grep -c '^cordon' "$ERR")" -eq 1
expect 3 "control: a failed run that did connect" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" -- sh -c "curl -s -o /dev/null http://allowed.test:$A/hello; exit 3"
assert "... gets no note" -- bash -c "! grep -q '^cordon' '$ERR'"
expect 0 "control: a run that succeeds without connecting" -- \
	"${C[@]}" --allow-domain "allowed.test:$A" -- true
assert "... gets no note" -- bash -c "! grep -q '^cordon' '$ERR'"

finish

#!/usr/bin/env bash
# t_net.sh: the network modes.  --net none gives the sandbox its own
# loopback only; --net full the host's network namespace, every other layer
# unchanged; --net proxy only cordon's filtering proxy (t_net_proxy.sh).
# run.sh starts this file in a network namespace of its own with only lo;
# the servers listen on 127.0.0.1 there, so no packet leaves the machine.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
C=("$CORDON" -w "$ws" -C "$ws")

# serve_hello PORTFILE: a TCP server on the host's 127.0.0.1 that answers
# every connection with "hello"; its port goes to PORTFILE.
serve_hello() {
	python3 - "$1" <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    c.sendall(b"hello\n")
    c.close()
PY
	SERVER_PID=$!
	for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.05; done
}
serve_hello "$W/port"
trap 'kill $SERVER_PID 2>/dev/null; rm -rf "${cleanup_dirs[@]}"' EXIT
port=$(cat "$W/port")
dial="exec 3<>/dev/tcp/127.0.0.1/$port && cat <&3"

expect_out 0 '^hello$' "control: the host loopback server answers outside the sandbox" -- bash -c "$dial"
expect_out 0 '^hello$' "--net full reaches a server on the host's loopback" -- \
	"${C[@]}" --net full -- bash -c "$dial"
refuse "--net none cannot reach a server on the host's loopback" -- \
	"${C[@]}" --net none -- bash -c "$dial"
refuse "the default (no --net) cannot reach a server on the host's loopback" -- \
	"${C[@]}" -- bash -c "$dial"
netns=$(readlink /proc/self/ns/net)
out=$("${C[@]}" --net full -- readlink /proc/self/ns/net)
assert "--net full runs in the caller's network namespace ($netns)" -- test "$out" = "$netns"
out=$("${C[@]}" -- readlink /proc/self/ns/net)
assert "control: --net none runs in a network namespace of its own ($out)" -- \
	test -n "$out" -a "$out" != "$netns"
expect_out 1 '^EPERM$' "--net full keeps seccomp (io_uring refused)" -- \
	"${C[@]}" --net full -- "$HELPERS/kprobe" io_uring_setup
expect_out 0 'CapEff:[[:space:]]*0+$' "--net full keeps no capability" -- \
	"${C[@]}" --net full -- grep CapEff /proc/self/status

finish

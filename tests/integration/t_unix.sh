#!/usr/bin/env bash
# t_unix.sh: Unix sockets that stay inside (issue 22, DESIGN.md section 6).
# Sockets bound inside the sandbox work as outside; a socket bound by a host
# process (started here, as this pass's user) stays unreachable however the
# command names it.  run.sh runs this file as root and as a user, with and
# without Landlock: the supervisor in cordon-inner holds alone.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
U="$HELPERS/usock"
C=("$CORDON" -w "$ws" -C "$ws")
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "${cleanup_dirs[@]}"' EXIT

# host_listen PATH [dgram]: a host listener on PATH, accepting (and closing)
# every connection after sending "H"; a datagram one writes PATH.got when anything arrives.
host_listen() {
	rm -f "$1" "$1.got"
	python3 - "$1" "${2:-}" <<'PY' &
import os, socket, sys
p, dgram = sys.argv[1], sys.argv[2] == "dgram"
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM if dgram else socket.SOCK_STREAM)
s.bind(p)
os.chmod(p, 0o777)
if dgram:
    s.recv(100)
    open(p + ".got", "w").close()
else:
    s.listen(64)
    while True:
        c = s.accept()[0]
        try:
            c.send(b"H")
        except OSError:
            pass
        c.close()
PY
	pids+=($!)
	wait_for 50 test -S "$1"
}

# --- which mechanism ---------------------------------------------------------
expect_out 0 'unix sockets: inside only.*seccomp user notification' \
	"explain says the supervisor confines Unix sockets" -- "$CORDON" explain -w "$ws" -- true
expect_out 0 'unix sockets: every host socket' "explain says what --allow-unix-sockets opens" -- \
	"$CORDON" explain -w "$ws" --allow-unix-sockets -- true
expect_out 0 'unix sockets: ok, inside only' "doctor says which mechanism runs here" -- \
	sh -c '"$1" doctor; true' sh "$CORDON"

# --- inside works as outside ------------------------------------------------
expect_out 0 '^ok$' "a socket bound and connected inside the private /tmp" -- \
	"${C[@]}" -- "$U" self /tmp/s.sock
expect_out 0 '^ok$' "a socket bound and connected inside a writable root" -- \
	"${C[@]}" -- "$U" self "$ws/in.sock"
expect_out 0 '^ok$' "a relative path, from the command's working directory" -- \
	"${C[@]}" -- "$U" self rel.sock
expect_out 0 '^ok$' "a socket inside reached through /proc/self/fd of an O_PATH descriptor" -- \
	"${C[@]}" -- sh -c "\"$U\" serve \"$ws/op.sock\" >/dev/null & sleep 0.3; \"$U\" opath \"$ws/op.sock\"; wait"
cat >"$ws/mp.py" <<'PY'
import asyncio, multiprocessing as mp, os, socket
def sq(x): return x * x
async def echo():
    async def h(r, w):
        w.write(await r.read(5)); await w.drain(); w.close()
    srv = await asyncio.start_unix_server(h, path="aio.sock")
    r, w = await asyncio.open_unix_connection("aio.sock")
    w.write(b"hello"); await w.drain()
    data = await r.read(5); w.close(); srv.close()
    return data.decode()
if __name__ == "__main__":
    mp.set_start_method("forkserver")
    with mp.Pool(2) as p:
        total = sum(p.map(sq, range(10)))
    with mp.Manager() as m:
        d = m.dict(); d["k"] = total
        got = d["k"]
    s = socket.socket(socket.AF_UNIX); s.bind("n.sock")
    print(total, got, asyncio.run(echo()), s.getsockname())
PY
expect_out 0 '^285 285 hello n.sock$' "control: forkserver Pool, Manager().dict(), asyncio Unix server+client outside" -- \
	sh -c "cd '$ws' && rm -f aio.sock n.sock && python3 mp.py"
expect_out 0 '^285 285 hello n.sock$' "the same inside (getsockname shows the path given)" -- \
	"${C[@]}" -- sh -c 'rm -f aio.sock n.sock && python3 mp.py'
if command -v tmux >/dev/null; then
	expect_out 0 'inside-tmux' "tmux new -d, send-keys, capture-pane inside" -- \
		"${C[@]}" -- sh -c 'tmux -S /tmp/t.sock new -d -x 80 -y 10 sh &&
			tmux -S /tmp/t.sock send-keys "echo inside-tmux" Enter && sleep 0.5 &&
			tmux -S /tmp/t.sock capture-pane -p; tmux -S /tmp/t.sock kill-server'
fi
if command -v node >/dev/null; then
	expect_out 0 '^pong$' "node net.createServer().listen(path) with a client inside" -- \
		"${C[@]}" -- node -e 'const net=require("net");
		  const s=net.createServer(c=>{c.end("pong")}).listen("/tmp/n.sock",()=>{
		  net.connect("/tmp/n.sock").on("data",d=>{console.log(String(d));s.close()})})'
fi

# --- stays unreachable --------------------------------------------------------
host_listen "$ws/host.sock"
expect_out 0 '^ok$' "control: the host listener in the writable root answers outside" -- \
	"$U" connect "$ws/host.sock"
expect_out 0 '^EACCES$' "a host socket in a writable root, bound before the run" -- \
	"${C[@]}" -- "$U" connect "$ws/host.sock"
expect_out 0 '^EACCES$' "... by a relative path" -- "${C[@]}" -- "$U" connect host.sock
expect_out 0 '^EACCES$' "... through a symlink planted inside" -- \
	"${C[@]}" -- sh -c "ln -s host.sock link.sock && \"$U\" connect link.sock"
expect_out 0 '^EACCES$' "... through /proc/self/fd of an O_PATH descriptor" -- \
	"${C[@]}" -- "$U" opath "$ws/host.sock"
expect_out 0 '^EACCES$' "... through /proc/PID/root" -- \
	"${C[@]}" -- sh -c "\"$U\" connect /proc/\$\$/root$ws/host.sock"
expect_out 0 '^(EPERM|EACCES)$' "... by sendto from a datagram socket" -- \
	"${C[@]}" -- "$U" dgram "$ws/host.sock"
expect_out 0 '^ok$' "control: with --allow-unix-sockets every host socket is reachable" -- \
	"${C[@]}" --allow-unix-sockets -- "$U" connect "$ws/host.sock"

# --- one host socket allowed by path (--allow-unix-socket) ---------------------
# Outside every root and outside /tmp (the sandbox's /tmp is its own).
hs=$(mktemp -d /var/tmp/cordon-us.XXXXXX) || exit 1
cleanup_dirs+=("$hs")
chmod 755 "$hs"
host_listen "$hs/allowed.sock"
host_listen "$hs/beside.sock"
expect_out 0 '^ok$' "--allow-unix-socket: the named host socket is reachable" -- \
	"${C[@]}" --allow-unix-socket "$hs/allowed.sock" -- "$U" connect "$hs/allowed.sock"
expect_out 0 '^EACCES$' "... the socket beside it is not" -- \
	"${C[@]}" --allow-unix-socket "$hs/allowed.sock" -- "$U" connect "$hs/beside.sock"
expect_out 0 '^EACCES$' "control: without the flag the named one is not either" -- \
	"${C[@]}" -- "$U" connect "$hs/allowed.sock"
expect_out 0 '^ok$' "... through a link the command makes in its root, it is the same socket" -- \
	"${C[@]}" --allow-unix-socket "$hs/allowed.sock" -- sh -c \
	"ln -s '$hs/allowed.sock' l.sock && \"$U\" connect l.sock"
expect_out 0 '^EACCES$' "... a link the command makes to the socket beside it does not widen it" -- \
	"${C[@]}" --allow-unix-socket "$hs/allowed.sock" -- sh -c \
	"ln -s '$hs/beside.sock' l2.sock && \"$U\" connect l2.sock"
expect_out 0 'Device or resource busy|Read-only' "... the command cannot remove or replace it" -- \
	"${C[@]}" --allow-unix-socket "$hs/allowed.sock" -- sh -c "rm -f '$hs/allowed.sock' 2>&1; true"
# A link planted in a writable root before the run does not choose the socket.
ln -s "$hs/beside.sock" "$ws/planted.sock"
expect_err 125 "goes through the symbolic link" \
	"a link in a writable root (an earlier run's) is not followed to a socket" -- \
	"${C[@]}" --allow-unix-socket "$ws/planted.sock" -- true
rm -f "$ws/planted.sock"
expect_err 125 "not a socket" "a path that is no socket is refused" -- \
	"${C[@]}" --allow-unix-socket "$hs" -- true
# Replaced on the host during the run: the sandbox keeps the socket it
# started with (bound at its path), never the new one.
"${C[@]}" --allow-unix-socket "$hs/allowed.sock" -- sh -c \
	"touch go2; i=0; while [ ! -e again ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i+1)); done
	 \"$U\" connect '$hs/allowed.sock'" >"$W/replaced.out" 2>&1 </dev/null &
rp=$!
wait_for 100 test -e "$ws/go2"
host_listen "$hs/allowed.sock"
touch "$ws/again"
wait "$rp"
assert "a socket replaced on the host during the run is not reached in its place" -- \
	grep -Eq '^(ECONNREFUSED|EACCES|ENOENT)$' "$W/replaced.out"
assert "and cordon says it was replaced" -- \
	grep -q "allow-unix-socket $hs/allowed.sock was replaced on the host during the run" "$W/replaced.out"
if command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null; then
	ssh-agent -a "$hs/agent.sock" >/dev/null 2>&1 && pids+=("$(pgrep -n -f "ssh-agent -a $hs/agent.sock")")
	expect 1 "an ssh agent allowed by path answers ssh-add (no identities: 1)" -- \
		"${C[@]}" --allow-unix-socket "$hs/agent.sock" --setenv SSH_AUTH_SOCK="$hs/agent.sock" -- ssh-add -l
	expect 2 "control: without the flag ssh-add cannot reach it (2)" -- \
		"${C[@]}" --setenv SSH_AUTH_SOCK="$hs/agent.sock" -- ssh-add -l
fi

# Bound by the host during the run, at a name the command bound and removed
# before (a reused inode number must not pass for the command's socket).
"${C[@]}" -- sh -c "\"$U\" self late.sock; rm late.sock; touch go; i=0
	while [ ! -S late.sock ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i+1)); done
	\"$U\" connect late.sock" >"$W/late.out" 2>&1 </dev/null &
runpid=$!
wait_for 100 test -e "$ws/go" && host_listen "$ws/late.sock"
wait "$runpid"
assert "a host socket bound in a writable root during the run ($(tr '\n' ' ' <"$W/late.out"))" -- \
	grep -qx EACCES "$W/late.out"

if [ -w /run ]; then
	rd=$(mktemp -d /run/cordon-it.XXXXXX); cleanup_dirs+=("$rd")
else
	rd=$(mktemp -d /var/tmp/cordon-it-xdg.XXXXXX); cleanup_dirs+=("$rd")
fi
chmod 755 "$rd"
host_listen "$rd/daemon.sock"
expect_out 0 '^EACCES$' "a host socket in /run (or \$XDG_RUNTIME_DIR's stand-in)" -- \
	"${C[@]}" -- "$U" connect "$rd/daemon.sock"
host_listen "$W/hosttmp.sock"
expect_out 0 '^EACCES$' "a host socket in the host's /tmp with --tmp host" -- \
	"${C[@]}" --tmp host -- "$U" connect "$W/hosttmp.sock"

host_listen "$ws/dgram.sock" dgram
expect_out 0 '^(EPERM|EACCES)$' "a datagram socket bound by the host: sendto" -- \
	"${C[@]}" -- "$U" dgram "$ws/dgram.sock"
expect_out 0 '^stream=(EOPNOTSUPP|EISCONN) seqpacket=ENOTCONN$' \
	"sendmsg with the host socket's address from a stream and a seqpacket socket" -- \
	"${C[@]}" -- "$U" sendmsg "$ws/dgram.sock"
assert "the host's datagram socket received nothing" -- test ! -e "$ws/dgram.sock.got"

# A directory renamed between check and use: a thread swaps a/ (served
# inside) and b/ (the host's) while 1000 connects to a/s run.
mkdir -p "$ws/race/a" "$ws/race/b"
host_listen "$ws/race/b/s"
expect_out 0 '^host=0 swaps=[1-9][0-9]* connected=[1-9]' "a directory swapped between check and use never reaches the host (1000 tries)" -- \
	"${C[@]}" -- "$U" race 1000 "$ws/race"
# The control needs the swapping thread to run beside the connects, which a
# loaded machine may not grant in one round: up to five rounds.
expect_out 0 '^host=[1-9]' "control: the same race outside reaches the host listener" -- \
	sh -c "for i in 1 2 3 4 5; do r=\$(\"$U\" race 1000 \"$ws/race\"); case \$r in host=0*) ;; *) break ;; esac; done; echo \"\$r\""

# With --net full the sandbox shares the host's abstract names: connect and
# bind there are refused (D-Bus's, X11's), while an unnamed bind still works.
K="$HELPERS/kprobe"
name="cordon-unix-$$-$RANDOM"
"$K" abstract_listen "$name" >"$W/alisten.out" &
pids+=($!)
wait_for 50 grep -q listening "$W/alisten.out"
expect_out 1 '^EACCES$' "--net full: a host abstract socket is refused" -- \
	"${C[@]}" --net full -- "$K" abstract_connect "$name"
expect_out 1 '^EACCES$' "--net full: binding an abstract name (squatting the host's) is refused" -- \
	"${C[@]}" --net full -- "$K" abstract_self "$name-squat"
expect_out 0 '^ok$' "control: the host abstract listener answers outside" -- "$K" abstract_connect "$name"
expect_out 0 '^ok$' "control: --net full, a path socket inside still works" -- \
	"${C[@]}" --net full -- "$U" self /tmp/nf.sock

# A host socket renamed over the name between the supervisor's bind and its
# look at what it bound: sock_diag tells the two files apart, so the host's
# is never recorded as the sandbox's own.
mkdir -p "$ws/br"
host_listen "$ws/br/host.sock"
expect_out 0 '^host=0 bound=[1-9]' "a host socket renamed over a name the command just bound (1000 tries)" -- \
	"${C[@]}" -- "$U" bindrace 1000 "$ws/br"

# A process that made itself non-dumpable cannot be served (its memory and
# descriptors need CAP_SYS_PTRACE): it is refused at once, not left hanging.
expect_out 0 '^EPERM$' "a non-dumpable process's bind is refused (EPERM), not hung" -- \
	"${C[@]}" --timeout 20 -- python3 -c 'import ctypes, socket
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
try:
    socket.socket(socket.AF_UNIX).bind("/tmp/nd.sock"); print("bound")
except PermissionError:
    print("EPERM")'

# --- the supervisor itself ----------------------------------------------------
expect_out 0 '^refused=100000 ' "100,000 refused connects are each answered" -- \
	"${C[@]}" -- "$U" flood 100000 "$ws/host.sock"
read -r _ before after < <(sed 's/[a-z_]*=//g' "$OUT")
assert "... and PID 1's memory did not grow (${before:-?} -> ${after:-?} kB)" -- \
	test -n "${after:-}" -a "${after:-0}" -le "$(( ${before:-0} + 64 ))"
expect_out 0 '^ok$' "a command killed mid-connect leaves the supervisor serving" -- \
	"${C[@]}" -- "$U" killmid /tmp/full.sock

finish

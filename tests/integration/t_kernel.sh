#!/usr/bin/env bash
# t_kernel.sh: the kernel surface (issue "Kernel surface"): each seccomp rule
# and the Landlock layer, tried from inside the sandbox, each with a control
# that shows the same action works where it is allowed.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws"
K="$HELPERS/kprobe"
C=("$CORDON" -w "$ws" -C "$ws")

# host_control PROBE: the probe outside the sandbox, to show that the EPERM
# comes from the sandbox: outside, the call reaches the kernel (it works, or
# fails for its arguments' sake with another errno).  A probe the host itself
# refuses to this user with EPERM is reported as such, never counted silently.
host_control() {
	local p=$1 out
	out=$("$K" "$p" 2>&1)
	if [ "$out" != EPERM ]; then
		ok "control: outside the sandbox $p reaches the kernel ($out)"
	else
		echo "  skip [$WHO] control: $p is refused on the host too ($out), so only the in-sandbox near-miss controls count"
	fi
}

# Host controls only for probes that change nothing outside their process.
for p in io_uring_setup ptrace process_vm_readv bpf perf_event_open userfaultfd \
	 modify_ldt uselib unshare_user open_by_handle_at keyctl_read_session; do
	expect_out 1 '^EPERM$' "$p is refused with EPERM" -- "${C[@]}" -- "$K" "$p"
	host_control "$p"
done
mkdir -p "$ws/mnt"
expect_out 1 '^EPERM$' "mount is refused with EPERM" -- "${C[@]}" -- "$K" mount "$ws/mnt"

expect_out 1 '^ENOSYS$' "clone3 answers ENOSYS (libc falls back to clone)" -- "${C[@]}" -- "$K" clone3
# Kernel AIO contexts are the machine's count (fs.aio-nr): one io_setup
# of 65536 in a sandbox made io_setup fail for every user (issue 30).
expect_out 1 '^ENOSYS$' "io_setup answers ENOSYS (libaio users fall back)" -- "${C[@]}" -- "$K" io_setup
expect_out 0 '^ok$' "control: outside the sandbox io_setup makes a context" -- "$K" io_setup
expect_out 0 '^ok$' "control: threads still work" -- "${C[@]}" -- "$K" threads
expect_out 0 '^a-b-c$' "control: fork and a shell pipeline still work" -- \
	"${C[@]}" -- sh -c 'printf "a b c\n" | tr " " - | cat'
expect_out 0 '^ok$' "control: python threads and subprocess work" -- \
	"${C[@]}" -- python3 -c 'import threading,subprocess; t=threading.Thread(target=lambda:None); t.start(); t.join(); subprocess.run(["true"], check=True); print("ok")'

# --- Unix sockets --------------------------------------------------------------
# Stream sockets are allowed; what they reach is cordon-inner's to decide
# (t_unix.sh has the escapes).
expect_out 0 '^ok$' "socket(AF_UNIX, SOCK_STREAM) is allowed" -- "${C[@]}" -- "$K" unix_socket
expect_out 0 '^ok$' "control: socketpair(AF_UNIX) works" -- "${C[@]}" -- "$K" socketpair
expect_out 0 '^ok$' "control: python multiprocessing (socketpair-based) works" -- \
	"${C[@]}" -- python3 -c 'import multiprocessing as m
def f(x): return x*2
if __name__ == "__main__":
    with m.get_context("fork").Pool(2) as p: print("ok" if p.map(f,[1,2]) == [2,4] else "bad")'
sock="$ws/host.sock"
"$K" unix_listen "$sock" > "$W/listen.out" &
lpid=$!
for _ in $(seq 50); do grep -q listening "$W/listen.out" 2>/dev/null && break; sleep 0.05; done
expect_out 1 '^EACCES$' "a host Unix socket is unreachable" -- "${C[@]}" -- "$K" unix_connect "$sock"
expect_out 0 '^ok$' "control: with --allow-unix-sockets the same connect works" -- \
	"${C[@]}" --allow-unix-sockets -- "$K" unix_connect "$sock"
kill $lpid 2>/dev/null; wait $lpid 2>/dev/null

name="cordon-test-$$-$RANDOM"
"$K" abstract_listen "$name" > "$W/alisten.out" &
lpid=$!
for _ in $(seq 50); do grep -q listening "$W/alisten.out" 2>/dev/null && break; sleep 0.05; done
refuse "a host abstract socket is unreachable even with --allow-unix-sockets" -- \
	"${C[@]}" --allow-unix-sockets -- "$K" abstract_connect "$name"
refuse "a host abstract socket is unreachable by default (the supervisor connects in the sandbox's namespace)" -- \
	"${C[@]}" -- "$K" abstract_connect "$name"
expect_out 0 '^ok$' "control: the host abstract listener is reachable outside the sandbox" -- \
	"$K" abstract_connect "$name"
wait $lpid 2>/dev/null
expect_out 0 '^ok$' "control: an abstract socket inside the same sandbox works with --allow-unix-sockets" -- \
	"${C[@]}" --allow-unix-sockets -- "$K" abstract_self "$name-in"
expect_out 0 '^ok$' "control: ... and by default" -- "${C[@]}" -- "$K" abstract_self "$name-in2"
expect_err 0 'Dangerous' "cordon --help says why --allow-unix-sockets is dangerous" -- sh -c "'$CORDON' --help >&2"

# Datagram sockets could address any named socket on the host: a listener
# the test binds in the workspace (visible inside) must receive nothing from
# the sandbox, and what the host sends it arrives (control).
expect_err 1 'Operation not permitted' "socketpair(AF_UNIX, SOCK_DGRAM) is refused" -- \
	"${C[@]}" -- python3 -c 'import socket; socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)'
expect_out 0 '^ok$' "control: socketpair(AF_UNIX, SOCK_STREAM) works" -- \
	"${C[@]}" -- python3 -c 'import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM); a.send(b"x"); print("ok" if b.recv(1) == b"x" else "bad")'
dsock="$ws/dgram.sock"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("listening", flush=True)
with open(sys.argv[2], "w") as out:
    while True:
        m = s.recv(100).decode()
        print(m, file=out, flush=True)
        if m == "stop":
            break
' "$dsock" "$W/dgram.got" > "$W/dgram.listen" &
lpid=$!
for _ in $(seq 50); do grep -q listening "$W/dgram.listen" 2>/dev/null && break; sleep 0.05; done
refuse "a datagram to the host's listener cannot be sent from the sandbox" -- \
	"${C[@]}" -- python3 -c '
import socket, sys
for make in (lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0],
             lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)):
    try:
        make().sendto(b"escape", sys.argv[1])
        sys.exit(0)
    except OSError as e:
        print(e, file=sys.stderr)
sys.exit(1)
' "$dsock"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(b"control", sys.argv[1]); s.sendto(b"stop", sys.argv[1])' "$dsock"
wait $lpid 2>/dev/null
assert "the host listener got nothing from the sandbox" -- sh -c "! grep -q escape '$W/dgram.got'"
assert "control: the host listener got the host's datagram" -- grep -q control "$W/dgram.got"

# --- setuid and setgid bits --------------------------------------------------
# A setuid file the command leaves in the workspace outlives the run; made by
# root, it is a root shell for any local user.
cp /bin/sh "$ws/sh"
cp /bin/true "$ws/src"
refuse "chmod 4755 on a file in the workspace fails" -- "${C[@]}" -- chmod 4755 "$ws/sh"
refuse "chmod u+s fails" -- "${C[@]}" -- chmod u+s "$ws/sh"
refuse "chmod g+s fails" -- "${C[@]}" -- chmod g+s "$ws/sh"
refuse "install -m 4755 fails" -- "${C[@]}" -- install -m 4755 "$ws/src" "$ws/installed"
refuse "a file created with mode 4755 (open O_CREAT) fails" -- \
	"${C[@]}" -- python3 -c 'import os, sys; os.umask(0); os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o4755)' "$ws/created"
refuse "mknod with the setgid bit fails" -- \
	"${C[@]}" -- python3 -c 'import os, stat, sys; os.mknod(sys.argv[1], stat.S_IFIFO | 0o2644)' "$ws/fifo"
assert "no setuid or setgid file was left in the workspace" -- \
	sh -c "[ -z \"\$(find '$ws' -perm /6000)\" ]"
expect 0 "control: chmod 755 works" -- "${C[@]}" -- chmod 755 "$ws/sh"
assert "control: and its mode reaches the host" -- sh -c "[ \"\$(stat -c %a '$ws/sh')\" = 755 ]"
expect 0 "control: install -m 755 works" -- "${C[@]}" -- install -m 755 "$ws/src" "$ws/installed"
expect 0 "control: chmod +t (sticky) works" -- "${C[@]}" -- chmod +t "$ws/src"

# --- network namespace -----------------------------------------------------------
expect_out 0 '^ok$' "TCP on 127.0.0.1 works inside the private network namespace" -- "${C[@]}" -- "$K" inet_loopback
expect_out 0 '^lo$' "only lo exists" -- "${C[@]}" -- sh -c "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"

# --- terminal ------------------------------------------------------------------
if command -v script >/dev/null 2>&1; then
	script -qec "'$CORDON' -w '$ws' -C '$ws' -- '$K' tiocsti" /dev/null > "$W/pty.out" 2>&1
	assert "TIOCSTI on the caller's terminal fails under a pty" -- grep -q EPERM "$W/pty.out"
	script -qec "'$CORDON' -w '$ws' -C '$ws' -- bash --norc -ic 'sleep 0.1 & jobs; wait; echo jc-done'" /dev/null > "$W/jc.out" 2>&1
	assert "job control works for an interactive shell under a pty" -- \
		sh -c "grep -q jc-done '$W/jc.out' && ! grep -qi 'no job control' '$W/jc.out'"
	"$CORDON" -w "$ws" -C "$ws" -- "$K" tiocsti < /dev/null > "$W/nopty.out" 2>&1
	assert "control: without a terminal the command gets a new session (no tty to inject into)" -- \
		grep -Eq 'EPERM|ENOTTY' "$W/nopty.out"
else
	bad "script(1) is missing: the pty tests cannot run (install util-linux)"
fi

# --- Landlock ------------------------------------------------------------------
abi=$("$CORDON" doctor 2>/dev/null | sed -n 's/^landlock: .*ABI \([0-9]*\).*/\1/p')
if [ -n "$abi" ] && [ "$abi" -gt 0 ]; then
	expect_out 0 '^ok$' "control: Landlock lets the command write in its root" -- "${C[@]}" -- "$K" write "$ws/ll"
	expect 0 "--require-landlock runs where Landlock exists" -- "${C[@]}" --require-landlock -- true
	# /proc/self/comm is writable as far as the mounts go (the fresh /proc
	# is read-write), but it is outside every Landlock write path: the
	# refusal shows Landlock confining writes on its own.
	expect_out 1 '^EACCES$' "Landlock alone refuses a write the mounts would allow (/proc/self/comm)" -- \
		"${C[@]}" -- "$K" write /proc/self/comm
	expect_out 0 '^ok$' "control: the same write works outside the sandbox" -- "$K" write /proc/self/comm
else
	echo "  skip [$WHO] Landlock probes: cordon doctor reports no Landlock on this kernel"
	expect_err 125 'require-landlock' "--require-landlock refuses where Landlock is missing" -- \
		"${C[@]}" --require-landlock -- true
fi

finish

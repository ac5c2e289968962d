#!/usr/bin/env bash
# demo.sh: what `make demo` runs.  One real sandboxed command over a scratch
# repository: it shows what the command may do and what cordon refuses.
set -u
CORDON=${CORDON:-build/cordon}
ws=$(mktemp -d "${HOME:-/var/tmp}/cordon-demo.XXXXXX") || exit 1
trap 'rm -rf "$ws"' EXIT
git -C "$ws" init -q 2>/dev/null || mkdir -p "$ws/.git"
echo "demo" > "$ws/README"

# A service on the host's loopback and one on a Unix socket (as Docker's or
# D-Bus's), both made by the host, to show the sandbox reaches neither.
sock=$(mktemp -d "${HOME:-/var/tmp}/cordon-demo-sock.XXXXXX") || exit 1
python3 -c 'import socket,sys
s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1)
u=socket.socket(socket.AF_UNIX); u.bind(sys.argv[1]); u.listen(1)
print(s.getsockname()[1], flush=True); s.settimeout(30)
try: s.accept()
except Exception: pass' "$sock/host.sock" > "$ws/.port" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$ws" "$sock"' EXIT
for _ in $(seq 50); do [ -s "$ws/.port" ] && break; sleep 0.05; done
port=$(cat "$ws/.port"); rm -f "$ws/.port"

echo "\$ cordon -w $ws -- sh -c '...'"
"$CORDON" -w "$ws" -C "$ws" --setenv PORT="$port" --setenv SOCK="$sock/host.sock" -- sh -c '
try() { desc=$1; shift; if "$@" 2>/dev/null; then echo "  allowed: $desc"; else echo "  refused: $desc"; fi; }
try "write a file in the writable root"     sh -c "echo built > out.txt"
try "read /etc/passwd (read-only view)"      sh -c "head -c1 /etc/passwd >/dev/null"
try "write to /etc"                          sh -c "echo x > /etc/cordon-demo"
try "write to the home directory"            sh -c "echo x > \$HOME/.cordon-demo"
try "plant a git hook (.git is read-only)"   sh -c "echo evil > .git/hooks/pre-commit"
try "use Unix sockets among its processes"   python3 -c "import socket; a, b = socket.socketpair(); a.send(b\"x\"); assert b.recv(1) == b\"x\""
try "connect to a host Unix socket (Docker)"  python3 -c "import socket,os; socket.socket(socket.AF_UNIX).connect(os.environ[\"SOCK\"])"
try "reach a host service on 127.0.0.1"      python3 -c "import socket,os; socket.create_connection((\"127.0.0.1\", int(os.environ[\"PORT\"])), 1)"
try "see host processes"                     sh -c "test \$(ls -d /proc/[0-9]* | wc -l) -gt 10"
try "use a private /tmp"                     sh -c "mktemp >/dev/null"
'
status=$?
echo "exit status: $status"

# A missing protected name (.codex here) stays absent; creating it stops the
# run at once and the new entry is moved aside on the host, never deleted.
echo
echo "\$ cordon -w $ws -- sh -c 'mkdir .codex && echo x > .codex/config.toml'"
"$CORDON" -w "$ws" -C "$ws" -- sh -c 'mkdir .codex && echo x > .codex/config.toml'
stopped=$?
echo "exit status: $stopped; on the host afterwards: $(ls -A "$ws" | tr '\n' ' ')"
[ "$status" -eq 0 ] && [ "$stopped" -ge 1 ] && [ "$stopped" -le 123 ]

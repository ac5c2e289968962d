#!/usr/bin/env bash
# t_netclients.sh: real clients through --net proxy (git over HTTPS, HTTP
# and ssh, pip, npm, go, Python requests/urllib/httpx, ssh, a WebSocket; git
# and go over the SOCKS5 side too), each with the environment cordon sets
# and nothing else about the proxy, against local servers on 127.0.0.1 of
# the private network namespace run.sh makes (its test resolver map names
# them allowed.test).  Each one has a control: the same client and server
# without cordon, by the address 127.0.0.1 (the certificate names it too),
# which shows the fixture works; the run inside must also show up in
# --net-log as an allowed allowed.test connection.
. "$(dirname "$0")/lib.sh"

in_test_netns || { finish; exit; }

ws="$W/ws"
www="$W/www"
mkdir -p "$ws" "$www"
NS="$HELPERS/netserve.py"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "${cleanup_dirs[@]}"' EXIT
# HOME is read-only inside; cordon's per-workspace tool caches (--cache
# private) go under $W, removed at the end; the controls' in the workspace.
export XDG_CACHE_HOME="$W/xdg"
mkdir -p "$XDG_CACHE_HOME"
export npm_config_cache="$ws/.npm" npm_config_update_notifier=false npm_config_audit=false \
	npm_config_fund=false GOPATH="$ws/.go" GOCACHE="$ws/.gocache" GOFLAGS=-modcacherw \
	GOSUMDB=off PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

# serve NAME ARGS...: start a netserve.py server; its port in $PORT_NAME.
serve() {
	local name=$1
	shift
	python3 "$NS" "$W/port.$name" "$@" 2>>"$W/serve.err" &
	pids+=($!)
	for _ in $(seq 200); do [ -s "$W/port.$name" ] && break; sleep 0.05; done
	printf -v "PORT_$name" '%s' "$(cat "$W/port.$name" 2>/dev/null)"
}

# A throw-away CA; the leaf names allowed.test (inside) and 127.0.0.1 (the
# controls).  Each client is told of the CA by its own variable.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=cordon-test-ca \
	-keyout "$W/ca.key" -out "$ws/ca.pem" >/dev/null 2>&1
openssl req -newkey rsa:2048 -nodes -subj /CN=allowed.test -keyout "$W/leaf.key" \
	-out "$W/leaf.csr" >/dev/null 2>&1
printf 'subjectAltName=DNS:allowed.test,IP:127.0.0.1\n' >"$W/ext"
openssl x509 -req -in "$W/leaf.csr" -CA "$ws/ca.pem" -CAkey "$W/ca.key" -CAcreateserial \
	-days 1 -extfile "$W/ext" -out "$W/leaf.pem" >/dev/null 2>&1
export SSL_CERT_FILE="$ws/ca.pem" GIT_SSL_CAINFO="$ws/ca.pem" PIP_CERT="$ws/ca.pem" \
	REQUESTS_CA_BUNDLE="$ws/ca.pem" NODE_EXTRA_CA_CERTS="$ws/ca.pem" npm_config_cafile="$ws/ca.pem"

serve https static "$www/root" "$W/leaf.pem" "$W/leaf.key"
serve http static "$www/root"
serve wss wss "$W/leaf.pem" "$W/leaf.key"
S=$PORT_https
root="$www/root"
mkdir -p "$root"

# git: a dumb-HTTP repository (static files after update-server-info).
git init -q "$W/src"
echo "cordon git fixture" >"$W/src/README"
git -C "$W/src" add README
git -C "$W/src" -c user.name=cordon -c user.email=cordon@test commit -qm fixture
git clone -q --bare "$W/src" "$root/git/repo.git"
git -C "$root/git/repo.git" update-server-info

# pip: a PEP 503 simple index with a wheel written by hand (zip + RECORD).
python3 - "$root" <<'EOF'
import base64, hashlib, os, sys, zipfile
root = sys.argv[1]
dist, ver = "cordon_pip_demo", "1.0"
files = {
    f"{dist}/__init__.py": b"VALUE = 42\n",
    f"{dist}-{ver}.dist-info/METADATA": b"Metadata-Version: 2.1\nName: cordon-pip-demo\nVersion: 1.0\n",
    f"{dist}-{ver}.dist-info/WHEEL":
        b"Wheel-Version: 1.0\nGenerator: cordon-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = f"{dist}-{ver}.dist-info/RECORD"
lines = []
for n, b in files.items():
    d = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
    lines.append(f"{n},sha256={d},{len(b)}")
files[rec] = ("\n".join(lines + [f"{rec},,"]) + "\n").encode()
whl = f"{dist}-{ver}-py3-none-any.whl"
os.makedirs(f"{root}/wheels")
with zipfile.ZipFile(f"{root}/wheels/{whl}", "w") as z:
    for n, b in files.items():
        z.writestr(n, b)
sha = hashlib.sha256(open(f"{root}/wheels/{whl}", "rb").read()).hexdigest()
os.makedirs(f"{root}/simple/cordon-pip-demo")
with open(f"{root}/simple/cordon-pip-demo/index.html", "w") as f:
    f.write(f'<html><body><a href="../../wheels/{whl}#sha256={sha}">{whl}</a></body></html>\n')
EOF

# npm: a packument and the tarball npm pack made.
mkdir -p "$W/npmsrc" "$root/npm" "$root/tarballs"
printf '{"name": "cordon-npm-demo", "version": "1.0.0", "main": "index.js"}\n' >"$W/npmsrc/package.json"
echo 'module.exports = 42;' >"$W/npmsrc/index.js"
(cd "$W/npmsrc" && npm pack --json --pack-destination "$root/tarballs" >"$W/npmpack.json" 2>/dev/null)
python3 - "$W/npmpack.json" "$root/npm/cordon-npm-demo" "https://allowed.test:$S" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))[0]
v = {"name": "cordon-npm-demo", "version": "1.0.0",
     "dist": {"tarball": f"{sys.argv[3]}/tarballs/{p['filename']}",
              "integrity": p["integrity"], "shasum": p["shasum"]}}
json.dump({"name": "cordon-npm-demo", "dist-tags": {"latest": "1.0.0"},
           "versions": {"1.0.0": v}}, open(sys.argv[2], "w"))
EOF

# go: a GOPROXY tree (list, .info, .mod, and the module zip).
python3 - "$root/goproxy/example.com/cordondemo/@v" <<'EOF'
import os, sys, zipfile
d = sys.argv[1]
os.makedirs(d)
mod = b"module example.com/cordondemo\n\ngo 1.19\n"
open(f"{d}/list", "w").write("v1.0.0\n")
open(f"{d}/v1.0.0.info", "w").write('{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}\n')
open(f"{d}/v1.0.0.mod", "wb").write(mod)
with zipfile.ZipFile(f"{d}/v1.0.0.zip", "w") as z:
    z.writestr("example.com/cordondemo@v1.0.0/go.mod", mod)
    z.writestr("example.com/cordondemo@v1.0.0/demo.go", b"package cordondemo\n\nconst Value = 42\n")
EOF
chmod -R a+rX "$W"

C=("$CORDON" -w "$ws" -C "$ws")
P=(--allow-domain "allowed.test:$S" --allow-domain "allowed.test:$PORT_http"
   --allow-domain "allowed.test:$PORT_wss")

# inside NAME [CORDON-OPTIONS...] -- COMMAND...: run it in cordon with the
# managed network and a --net-log of its own, which netlog_ok then reads.  A
# client that hangs fails (timeout's 124) instead of stalling the suite.
inside() {
	local name=$1 opts=()
	shift
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	timeout -k 5 120 "${C[@]}" "${P[@]}" --net-log "$W/net.$name" "${opts[@]}" -- "$@"
}
# netlog_ok NAME [PROTOCOL]: the run went through the bridge to
# allowed.test (by CONNECT unless told), and nothing was refused.  A tunnel
# still open when the sandbox ends (ssh's, when its ProxyCommand's close and
# the sandbox's end reach the bridge together) is logged as an error with
# the reason sandbox-ended, after its bytes went through.
netlog_ok() {
	grep -Eq '"protocol":"'"${2:-http-connect}"'","host":"allowed.test",.*"address":"127.0.0.1","decision":"(allow|error","reason":"sandbox-ended)"' \
		"$W/net.$1" && ! grep -q '"decision":"deny"' "$W/net.$1"
}
# direct COMMAND...: the control, without cordon and without a proxy.
direct() {
	(cd "$ws" && timeout -k 5 120 env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY \
		-u ALL_PROXY -u all_proxy "$@")
}

echo "-- git clone over HTTPS from a dumb-HTTP repository"
expect_out 0 'cordon git fixture' "control: git clone https://127.0.0.1 directly" -- \
	direct bash -c "git clone -q https://127.0.0.1:$S/git/repo.git gd && cat gd/README"
expect_out 0 'cordon git fixture' "git clone https://allowed.test through the proxy" -- \
	inside git -- bash -c "git clone -q https://allowed.test:$S/git/repo.git gi && cat gi/README"
assert "... and the bridge logged it" -- netlog_ok git
expect_out 0 'cordon git fixture' "control: git clone http://127.0.0.1 directly" -- \
	direct bash -c "git clone -q http://127.0.0.1:$PORT_http/git/repo.git gdh && cat gdh/README"
expect_out 0 'cordon git fixture' "git clone http://allowed.test through the proxy (absolute-form)" -- \
	inside gith -- bash -c "git clone -q http://allowed.test:$PORT_http/git/repo.git gih && cat gih/README"
assert "... and the bridge logged it (http)" -- netlog_ok gith http

echo "-- pip download from a static PEP 503 index"
pipdl() { # HOST DIR
	python3 -m pip download -q --no-deps -d "$2" --index-url "https://$1:$S/simple/" cordon-pip-demo &&
		ls "$2"
}
expect_out 0 '^cordon_pip_demo-1.0-py3-none-any.whl$' "control: pip download from 127.0.0.1 directly" -- \
	direct bash -c "$(declare -f pipdl); S=$S; pipdl 127.0.0.1 pd"
expect_out 0 '^cordon_pip_demo-1.0-py3-none-any.whl$' "pip download from allowed.test through the proxy" -- \
	inside pip -- bash -c "$(declare -f pipdl); S=$S; pipdl allowed.test pi"
assert "... and the bridge logged it" -- netlog_ok pip

echo "-- npm install from a static registry"
npmi() { # HOST DIR [NPM ARGS]
	local host=$1 dir=$2
	shift 2
	mkdir "$dir" && cd "$dir" && echo '{"name": "p", "version": "1.0.0"}' >package.json &&
		npm install -s --registry "https://$host:$S/npm/" "$@" cordon-npm-demo &&
		node -e 'console.log("value", require("cordon-npm-demo"))'
}
# npm takes the tarball's address from the packument (allowed.test); the
# control sends it to the registry's host instead.
expect_out 0 '^value 42$' "control: npm install from 127.0.0.1 directly" -- \
	direct bash -c "$(declare -f npmi); S=$S; npmi 127.0.0.1 nd --replace-registry-host=always"
expect_out 0 '^value 42$' "npm install from allowed.test through the proxy" -- \
	inside npm -- bash -c "$(declare -f npmi); S=$S; npmi allowed.test ni"
assert "... and the bridge logged it" -- netlog_ok npm

echo "-- go mod download from a static GOPROXY"
gomod() { # HOST MODCACHE: a module cache of its own, so that each run fetches
	GOMODCACHE="$PWD/$2" GOPROXY="https://$1:$S/goproxy" go mod download -json example.com/cordondemo@v1.0.0
}
expect_out 0 '"Sum": "h1:' "control: go mod download from 127.0.0.1 directly" -- \
	direct bash -c "$(declare -f gomod); S=$S; gomod 127.0.0.1 .gomod-direct"
sum=$(grep '"Sum"' "$OUT")
expect_out 0 '"Sum": "h1:' "go mod download from allowed.test through the proxy" -- \
	inside go -- bash -c "$(declare -f gomod); S=$S; gomod allowed.test .gomod-connect"
assert "... the same module hash as the control" -- test "$(grep '"Sum"' "$OUT")" = "$sum"
assert "... and the bridge logged it" -- netlog_ok go

echo "-- the same port as SOCKS5, with clients told to use it"
nohttps=(--unsetenv https_proxy --unsetenv HTTPS_PROXY)
expect_out 0 'cordon git fixture' "git clone https://allowed.test with all_proxy=socks5h://127.0.0.1:1080" -- \
	inside gitsocks "${nohttps[@]}" --setenv all_proxy=socks5h://127.0.0.1:1080 -- \
	bash -c "git clone -q https://allowed.test:$S/git/repo.git gis && cat gis/README"
assert "... and the bridge logged it (socks5)" -- netlog_ok gitsocks socks5
expect_out 0 '"Sum": "h1:' "go mod download with HTTPS_PROXY=socks5://127.0.0.1:1080" -- \
	inside gosocks "${nohttps[@]}" --setenv HTTPS_PROXY=socks5://127.0.0.1:1080 -- \
	bash -c "$(declare -f gomod); S=$S; gomod allowed.test .gomod-socks"
assert "... and the bridge logged it (socks5)" -- netlog_ok gosocks socks5

echo "-- Python requests, urllib, httpx over HTTPS (CONNECT) and HTTP (absolute-form)"
cat >"$ws/pyget.py" <<'PY'
import sys
lib, url = sys.argv[1], sys.argv[2]
if lib == "requests":
    import requests
    r = requests.get(url, timeout=30)
    r.raise_for_status()
    body = r.text
elif lib == "urllib":
    import urllib.request
    body = urllib.request.urlopen(url, timeout=30).read().decode()
else:
    import httpx
    r = httpx.Client(timeout=30).get(url)
    r.raise_for_status()
    body = r.text
print(body.strip())
PY
echo 'cordon python fixture' >"$root/py.txt"
for lib in requests urllib httpx; do
	for scheme in https http; do
		v=PORT_$scheme port=${!v}
		expect_out 0 '^cordon python fixture$' "control: $lib $scheme://127.0.0.1 directly" -- \
			direct python3 pyget.py $lib "$scheme://127.0.0.1:$port/py.txt"
		expect_out 0 '^cordon python fixture$' "$lib $scheme://allowed.test through the proxy" -- \
			inside "$lib$scheme" -- python3 pyget.py $lib "$scheme://allowed.test:$port/py.txt"
		proto=http-connect
		[ $scheme = http ] && proto=http
		assert "... and the bridge logged it ($proto)" -- netlog_ok "$lib$scheme" $proto
	done
done
# curl and urllib send a '\' in the query as is, curl UTF-8 too (the proxy
# once answered 400 where a direct request worked).
rawget() { # URL: urllib unless the URL is not ASCII (http.client refuses it), and curl
	{ LC_ALL=C; [[ $1 == *[![:print:]]* ]] || python3 pyget.py urllib "$1"; } &&
		curl -sS "$1"
}
n=0
for q in 'a\b' $'caf\xc3\xa9'; do
	n=$((n + 1))
	expect_out 0 '^cordon python fixture$' "control: curl (and urllib) with ?q=$q directly" -- \
		direct bash -c "$(declare -f rawget); rawget \"\$1\"" sh "http://127.0.0.1:$PORT_http/py.txt?q=$q"
	expect_out 0 '^cordon python fixture$' "curl (and urllib) with ?q=$q through the proxy" -- \
		inside "raw$n" -- bash -c "$(declare -f rawget); rawget \"\$1\"" sh \
		"http://allowed.test:$PORT_http/py.txt?q=$q"
done
expect_out 0 '^constructed$' "httpx clients construct under cordon's environment (ALL_PROXY included)" -- \
	inside httpxc -- python3 -c 'import httpx; httpx.Client(); httpx.AsyncClient(); print("constructed")'

echo "-- ssh and git over ssh through cordon-connect (GIT_SSH_COMMAND)"
# GIT_SSH_COMMAND is a shell string: run it the way git does, with the
# options this fixture needs after cordon's own.
sshopts="-i ./id -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
sshrun() { # SSH-COMMAND HOST
	sh -c "$1 $sshopts -p $SP $WHO@$2 echo ssh-ok-\$(id -un)"
}
gitssh() { # SSH-COMMAND HOST DIR
	GIT_SSH_COMMAND="$1 $sshopts" git clone -q "ssh://$WHO@$2:$SP$root/git/repo.git" "$3" && cat "$3/README"
}
ssh-keygen -q -t ed25519 -N '' -f "$W/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$ws/id" &&
	cp "$ws/id.pub" "$W/authorized_keys"
SP=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$W/sshd_config" <<CFG
Port $SP
ListenAddress 127.0.0.1
HostKey $W/hostkey
AuthorizedKeysFile $W/authorized_keys
StrictModes no
UsePAM no
PidFile none
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
LogLevel ERROR
CFG
# sshd needs an absolute path to re-exec itself.  Started by root it wants
# its privilege-separation directory, /run/sshd: made in a mount namespace
# of its own rather than on the host.
if is_root; then
	unshare -m -- sh -c 'mount -t tmpfs -o mode=755 cordon-sshd /run && mkdir /run/sshd &&
		exec /usr/sbin/sshd -D -e -f "$1"' sh "$W/sshd_config" 2>>"$W/sshd.err" &
else
	/usr/sbin/sshd -D -e -f "$W/sshd_config" 2>>"$W/sshd.err" &
fi
pids+=($!)
for _ in $(seq 100); do grep -q ":$(printf '%04X' "$SP") 00000000:0000 0A" /proc/net/tcp && break; sleep 0.05; done
P+=(--allow-domain "allowed.test:$SP")
expect_out 0 "^ssh-ok-$WHO\$" "control: ssh to 127.0.0.1 directly" -- \
	direct bash -c "$(declare -f sshrun); sshopts='$sshopts' SP=$SP WHO=$WHO; sshrun ssh 127.0.0.1"
expect_out 0 "^ssh-ok-$WHO\$" "ssh to allowed.test through \$GIT_SSH_COMMAND's cordon-connect" -- \
	inside ssh -- bash -c "$(declare -f sshrun); sshopts='$sshopts' SP=$SP WHO=$WHO; sshrun \"\$GIT_SSH_COMMAND\" allowed.test"
assert "... and the bridge logged it" -- netlog_ok ssh
expect_out 0 'cordon git fixture' "control: git clone ssh://127.0.0.1 directly" -- \
	direct bash -c "$(declare -f gitssh); sshopts='$sshopts' SP=$SP WHO=$WHO root=$root; gitssh ssh 127.0.0.1 sd"
expect_out 0 'cordon git fixture' "git clone ssh://allowed.test with cordon's GIT_SSH_COMMAND" -- \
	inside gitssh -- bash -c "$(declare -f gitssh); sshopts='$sshopts' SP=$SP WHO=$WHO root=$root; gitssh \"\$GIT_SSH_COMMAND\" allowed.test si"
assert "... and the bridge logged it" -- netlog_ok gitssh
# The caller's own GIT_SSH_COMMAND (their key and options) keeps working:
# cordon appends its ProxyCommand instead of replacing it.
GIT_SSH_COMMAND="ssh $sshopts" expect_out 0 'cordon git fixture' \
	"git clone ssh://allowed.test with the caller's own GIT_SSH_COMMAND, kept and proxied" -- \
	inside usergit -- bash -c "git clone -q ssh://$WHO@allowed.test:$SP$root/git/repo.git su && cat su/README"
assert "... and the bridge logged it" -- netlog_ok usergit
expect_out 0 "^ssh $sshopts -o ProxyCommand='.*cordon-connect %h %p'\$" "... it is the caller's, with cordon's ProxyCommand after it" -- \
	env GIT_SSH_COMMAND="ssh $sshopts" "${C[@]}" "${P[@]}" -- printenv GIT_SSH_COMMAND
expect_err 128 'Could not resolve hostname allowed.test' \
	"control: the same command as is (--setenv keeps it unchanged) cannot reach the server" -- \
	inside usergit2 --setenv "GIT_SSH_COMMAND=ssh $sshopts" -- \
	bash -c "git clone -q ssh://$WHO@allowed.test:$SP$root/git/repo.git sc"
printf '#!/bin/sh\nexec ssh %s "$@"\n' "$sshopts" >"$ws/my ssh"
chmod +x "$ws/my ssh"
GIT_SSH="$ws/my ssh" expect_out 0 'cordon git fixture' \
	"git clone ssh://allowed.test with the caller's GIT_SSH program (a path with a space)" -- \
	inside usergitssh -- bash -c "git clone -q ssh://$WHO@allowed.test:$SP$root/git/repo.git sg && cat sg/README"
assert "... and the bridge logged it" -- netlog_ok usergitssh

echo "-- a WebSocket echo over TLS through CONNECT"
# python3-websockets 10 has no proxy support: the client opens the tunnel
# itself, to the proxy its https_proxy names, as browsers and ws libraries do.
cat >"$ws/wsecho.py" <<'PY'
import asyncio, os, socket, ssl, sys, urllib.parse
import websockets

url = urllib.parse.urlsplit(sys.argv[1])
proxy = os.environ.get("https_proxy")


def tunnel():
    if not proxy:
        return socket.create_connection((url.hostname, url.port))
    p = urllib.parse.urlsplit(proxy)
    s = socket.create_connection((p.hostname, p.port))
    auth = f"{url.hostname}:{url.port}"
    s.sendall(f"CONNECT {auth} HTTP/1.1\r\nHost: {auth}\r\n\r\n".encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        b = s.recv(1)
        if not b:
            sys.exit("the proxy closed the connection")
        head += b
    if head.split()[1] != b"200":
        sys.exit("the proxy answered " + head.decode(errors="replace"))
    return s


async def main():
    ctx = ssl.create_default_context()
    async with websockets.connect(sys.argv[1], sock=tunnel(), ssl=ctx,
                                  server_hostname=url.hostname) as ws:
        for m in ("ping", "x" * 100000):
            await ws.send(m)
            r = await ws.recv()
            print("echo", len(r), r == m)
asyncio.run(main())
PY
expect_out 0 '^echo 100000 True$' "control: a wss:// echo from 127.0.0.1 directly" -- \
	direct python3 wsecho.py "wss://127.0.0.1:$PORT_wss/"
expect_out 0 '^echo 100000 True$' "a wss:// echo from allowed.test through CONNECT" -- \
	inside ws -- python3 wsecho.py "wss://allowed.test:$PORT_wss/"
assert "... and the bridge logged it" -- netlog_ok ws

if [ "$FAIL" -gt 0 ]; then
	echo "  the servers said:"
	tail -n 20 "$W/serve.err" "$W/sshd.err" 2>/dev/null | sed 's/^/         | /'
fi
finish

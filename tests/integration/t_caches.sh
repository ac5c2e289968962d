#!/usr/bin/env bash
# t_caches.sh: --cache private (issue 11): each workspace's tool caches in a
# directory of their own, writable; the host's caches never written; the
# directory cordon binds is never reached through a link a run planted; and
# the smaller things a user sees: --net none failing fast and saying so,
# cordon-inner's name, nesting refused with a clear message.
. "$(dirname "$0")/lib.sh"

# A cache base of this test's own: `reclaim --caches` here must not remove
# the caches of other tests running as the same user.
export XDG_CACHE_HOME="$W/xdg"
mkdir -p "$XDG_CACHE_HOME"
ws="$W/ws"
ws2="$W/ws2"
mkdir -p "$ws" "$ws2"
C=("$CORDON" -w "$ws" -C "$ws")

# --- the directory and the variables ------------------------------------------
expect_out 0 "^$W/xdg/cordon/ws-[0-9a-f]{16}$" "the workspace's cache directory is named to the command" -- \
	"${C[@]}" -- printenv XDG_CACHE_HOME
cache=$(cat "$OUT")
expect_out 0 "^$cache/go-build $cache/go-mod $cache/npm $cache/pip$" "each tool's own variable names it" -- \
	"${C[@]}" -- sh -c 'echo $GOCACHE $GOMODCACHE $npm_config_cache $PIP_CACHE_DIR'
expect 0 "a tool may write its cache" -- "${C[@]}" -- sh -c 'mkdir -p "$GOCACHE" && echo x > "$GOCACHE/entry"'
assert "the entry is in the workspace's cache directory on the host" -- test -f "$cache/go-build/entry"
assert "the cache directories are the user's alone (0700)" -- \
	test "$(stat -c %a "$XDG_CACHE_HOME/cordon")$(stat -c %a "$cache")" = 700700
refuse "the host's own cache stays read-only" -- "${C[@]}" -- sh -c "mkdir -p '$HOME/.cache/cordon-test-escape'"
assert "nothing was written in the host's cache" -- test ! -e "$HOME/.cache/cordon-test-escape"
expect_out 0 "^$W/xdg/cordon/ws2-[0-9a-f]{16}$" "another workspace gets another directory" -- \
	"$CORDON" -w "$ws2" -C "$ws2" -- printenv XDG_CACHE_HOME
expect_out 0 "^$W/mine$" "a variable set with --setenv wins" -- \
	"${C[@]}" --setenv GOCACHE="$W/mine" -- printenv GOCACHE
expect_out 0 "^unset$" "--cache none names no cache" -- \
	env -u XDG_CACHE_HOME "${C[@]}" --cache none -- sh -c 'echo ${GOCACHE:-unset}'
expect_out 0 "^file://$W/gp/pkg/mod/cache/download,https://proxy.golang.org,direct$" \
	"Go reads the host's module cache first" -- \
	env GOPATH="$W/gp" "${C[@]}" -- printenv GOPROXY

# --- a planted link ------------------------------------------------------------
ln -s "$W/victim" "$cache/escape"
mkdir -p "$W/victim"
refuse "a link inside the cache does not lead out of the sandbox's view" -- \
	"${C[@]}" -- sh -c 'echo x > "$XDG_CACHE_HOME/escape/x"'
assert "nothing was written through it" -- test ! -e "$W/victim/x"
rm "$cache/escape"
mv "$cache" "$W/real-cache"
ln -s "$W/victim" "$cache"
expect_err 125 "is a symbolic link" "a cache directory replaced by a link is refused" -- \
	"${C[@]}" -- true
assert "and nothing was bound through it" -- test -z "$(ls -A "$W/victim")"
rm "$cache"
mv "$W/real-cache" "$cache"
chmod 777 "$XDG_CACHE_HOME/cordon"
expect_err 125 "writable by others" "a cache base others can write is refused" -- "${C[@]}" -- true
expect_out 0 "^caches: PROBLEM, .*writable by others" "cordon doctor reports it" -- \
	sh -c '"$0" doctor | grep "^caches:"' "$CORDON"
chmod 700 "$XDG_CACHE_HOME/cordon"
expect 0 "control: the same run with the directory restored works" -- "${C[@]}" -- true
expect_err 0 "caches stay read-only: cache directory: $W/missing does not exist" \
	"a cache directory that cannot be made is a note, and the run goes on" -- \
	env XDG_CACHE_HOME="$W/missing/cache" "${C[@]}" -- sh -c 'test -z "$GOCACHE"'

# --- pruned in the background, at most once a day ------------------------------------
base="$XDG_CACHE_HOME/cordon"
cache_of() { "$CORDON" -w "$1" -C "$1" -- printenv XDG_CACHE_HOME 2>/dev/null; }
mkdir -p "$W/gone" "$W/old" "$W/outside"
c_gone=$(cache_of "$W/gone")
c_old=$(cache_of "$W/old")
c_ws=$(cache_of "$ws")
assert "a run records its workspace beside its cache directory" -- \
	test "$(cat "$c_gone.workspace")" = "$W/gone"
echo keep >"$W/outside/file"
rmdir "$W/gone"
touch -d '40 days ago' "$c_old.workspace"
# What cordon did not make stays, however old: a directory of another
# name, a link and a file with a cache's name (the link to a directory
# with a file, which must not be followed).
mkdir -p "$base/mine" && touch -d '400 days ago' "$base/mine"
ln -s "$W/outside" "$base/link-0123456789abcdef"
echo x >"$base/file-0123456789abcdef" && touch -d '400 days ago' "$base/file-0123456789abcdef"
touch -d '40 days ago' "$base/link-0123456789abcdef.workspace" 2>/dev/null
# Not due yet: a prune a few hours ago means none now.
touch -d '3 hours ago' "$base/.pruned"
before=$(stat -c %Y "$base/.pruned")
expect 0 "a run while a prune is not due" -- "${C[@]}" -- true
sleep 0.5
assert "not due: nothing pruned, the stamp unchanged" -- \
	test -d "$c_gone" -a -d "$c_old" -a "$(stat -c %Y "$base/.pruned")" = "$before"
touch -d '2 days ago' "$base/.pruned"
expect 0 "a run when a prune is due" -- "${C[@]}" -- true
wait_for 300 test ! -e "$c_gone" -a ! -e "$c_old"
assert "the cache of a deleted workspace was removed, with its record" -- \
	test ! -e "$c_gone" -a ! -e "$c_gone.workspace"
assert "a cache unused for 30 days (its record backdated) was removed" -- test ! -e "$c_old"
assert "the workspace's own cache, just used, stays" -- test -d "$c_ws" -a -f "$c_ws.workspace"
assert "a directory cordon did not name stays" -- test -d "$base/mine"
assert "a link with a cache's name stays, and what it points to is untouched" -- \
	test -L "$base/link-0123456789abcdef" -a "$(cat "$W/outside/file" 2>/dev/null)" = keep
assert "a file with a cache's name stays" -- test -f "$base/file-0123456789abcdef"
assert "the stamp says when (today)" -- test "$(stat -c %Y "$base/.pruned")" -gt "$before"
rm -rf "$base/mine" "$base/link-0123456789abcdef" "$base/link-0123456789abcdef.workspace" \
	"$base/file-0123456789abcdef"
expect_out 0 "^caches: ok, .* in [0-9]+ workspace caches?; a run removes those of workspaces gone or unused for 30 days, once a day \(last: [0-9-]+ " \
	"cordon doctor says the total and when caches were last pruned" -- \
	sh -c '"$0" doctor | grep "^caches:"' "$CORDON"

# --- doctor and reclaim ------------------------------------------------------------
expect_out 0 "^caches: ok, $W/xdg/cordon, " "cordon doctor names the cache directory and its size" -- \
	sh -c '"$0" doctor | grep "^caches:"' "$CORDON"
"${C[@]}" -- sh -c 'mkdir -p "$GOMODCACHE/m@v1" && echo x > "$GOMODCACHE/m@v1/f" && chmod 555 "$GOMODCACHE/m@v1" && ln -s / "$XDG_CACHE_HOME/root"' >/dev/null 2>&1
expect_out 0 "^caches: removed everything in $W/xdg/cordon" "cordon reclaim --caches removes them" -- \
	"$CORDON" reclaim --caches
assert "read-only directories (Go's module cache) went too" -- test -z "$(ls -A "$XDG_CACHE_HOME/cordon")"
assert "a link inside was removed, not followed" -- test -d /usr/bin

# --- no network --------------------------------------------------------------------
expect_err 1 "tried to reach the network, which this sandbox does not have" \
	"--net none: a failed attempt to reach another host is named" -- \
	"${C[@]}" -- sh -c 'python3 -c "import socket; socket.create_connection((\"192.0.2.1\", 80), 1)" 2>/dev/null; exit 1'
"${C[@]}" -- sh -c 'exit 1' 2>"$ERR" >/dev/null
assert "control: a failure without a network attempt gets no note" -- test ! -s "$ERR"
expect_out 0 "^0 0 0$" "--net none: npm, pip and cargo do not retry" -- \
	"${C[@]}" -- sh -c 'echo $npm_config_fetch_retries $PIP_RETRIES $CARGO_NET_RETRY'

# --- names and nesting -----------------------------------------------------------
expect_out 0 "^cordon-inner cordon-inner " "ps shows cordon-inner by name" -- \
	"${C[@]}" -- sh -c 'echo "$(cat /proc/1/comm) $(tr "\0" " " < /proc/1/cmdline)"'
# (A sanitizer build of the inner cordon needs LeakSanitizer off in there,
# as any: ptrace is refused.)
expect_err 125 "nesting is not supported" "cordon inside cordon says nesting is not supported" -- \
	"${C[@]}" -- env ASAN_OPTIONS=detect_leaks=0 "$CORDON" -w "$ws" -- true
finish

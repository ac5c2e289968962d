#!/bin/sh
# agents-setup.sh [--find claude|codex|tsls|pyright]: the real agents that
# tests/integration/t_agents.sh drives and the language servers
# t_standin.sh drives, at the versions pinned here (the one place they are
# named), installed once from the npm registry into a cache
# outside the repository: /var/cache/cordon-test/agents when run as root
# (readable by the test user), else ~/.cache/cordon-test/agents.  Each
# package goes to a directory named with its version, made under a temporary
# name and renamed when complete, under a lock: an interrupted or concurrent
# install never leaves a half one in place.
#
# Needs the network once: 360 MB of downloads (Claude Code 186 MB, Codex
# 172 MB, about 20 s here), 810 MB installed.
# Without it, it says so and exits 0: make check goes on, and t_agents skips
# with a line, never passes.
#
# --find NAME prints the agent's command (the npm package's own entry point)
# when it is installed, in the root cache first, then the user's; exits 1
# otherwise.
set -u

CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
TSLS_VERSION=4.3.3
TYPESCRIPT_VERSION=5.6.3
PYRIGHT_VERSION=1.1.389

SYSTEM_DIR=/var/cache/cordon-test/agents
USER_DIR=${HOME:-/nonexistent}/.cache/cordon-test/agents

# entry NAME: its version directory, its command under it, and the
# packages (PKG@VERSION...) installed there.
entry() {
	case $1 in
	claude) echo "claude-code-$CLAUDE_CODE_VERSION node_modules/.bin/claude @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" ;;
	codex) echo "codex-$CODEX_VERSION node_modules/.bin/codex @openai/codex@$CODEX_VERSION" ;;
	tsls) echo "tsls-$TSLS_VERSION-$TYPESCRIPT_VERSION node_modules/.bin/typescript-language-server typescript-language-server@$TSLS_VERSION typescript@$TYPESCRIPT_VERSION" ;;
	pyright) echo "pyright-$PYRIGHT_VERSION node_modules/.bin/pyright pyright@$PYRIGHT_VERSION" ;;
	*) return 1 ;;
	esac
}

if [ "${1:-}" = --find ]; then
	e=$(entry "${2:-}") || { echo "agents-setup: --find claude|codex|tsls|pyright" >&2; exit 2; }
	set -- $e
	for d in "$SYSTEM_DIR" "$USER_DIR"; do
		[ -x "$d/$1/$2" ] && { echo "$d/$1/$2"; exit 0; }
	done
	exit 1
fi

if [ "$(id -u)" -eq 0 ]; then DIR=$SYSTEM_DIR; else DIR=$USER_DIR; fi
command -v npm >/dev/null 2>&1 || { echo "agents-setup: no npm: t_agents will skip"; exit 0; }
mkdir -p "$DIR" && chmod 755 "$DIR" || { echo "agents-setup: cannot create $DIR" >&2; exit 1; }
exec 9>"$DIR/.lock" && flock -w 600 9 || { echo "agents-setup: $DIR is locked" >&2; exit 1; }

for name in claude codex tsls pyright; do
	set -- $(entry "$name")
	sub=$1 cmd=$2
	shift 2
	pkgs="$*"
	[ -x "$DIR/$sub/$cmd" ] && continue
	tmp="$DIR/.$sub.$$"
	rm -rf "$tmp"
	start=$(date +%s)
	echo "agents-setup: installing $pkgs into $DIR/$sub"
	# The registry's scripts run: Claude Code's postinstall puts its native
	# binary in place of the stub its command names.
	if npm install --prefix "$tmp" --no-audit --no-fund --no-save --no-update-notifier \
		--fetch-retries=0 --fetch-timeout=60000 "$@" >"$DIR/.npm.log" 2>&1 &&
	   [ -x "$tmp/$cmd" ] && "$tmp/$cmd" --version >/dev/null 2>&1; then
		chmod -R a+rX "$tmp" && mv "$tmp" "$DIR/$sub" ||
			{ echo "agents-setup: cannot move $tmp into place" >&2; rm -rf "$tmp"; exit 1; }
		echo "agents-setup: $pkgs installed in $(( $(date +%s) - start )) s, $(du -sh "$DIR/$sub" | cut -f1)"
	else
		echo "agents-setup: cannot install $pkgs (no network?): the tests that drive it skip; npm said:"
		tail -n 3 "$DIR/.npm.log" | sed 's/^/  /'
		rm -rf "$tmp"
	fi
done
exit 0

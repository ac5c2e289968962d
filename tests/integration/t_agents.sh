#!/usr/bin/env bash
# t_agents.sh: the real agents, end to end and offline, against a scripted
# model server on the host's loopback (tests/helpers/agentmodel.py):
# Claude Code through the README's recipe (CLAUDE_CODE_SHELL_PREFIX=
# cordon-prefix: Bash tool calls, a PostToolUse hook and a stdio MCP server
# all pass through it), and Codex run whole inside cordon with its own
# sandbox off.  Each scripted session runs twice, without cordon and with it,
# on the same paths: what the agent sent back to the model for each call
# (output, status) and the files left must be the same, but where cordon
# refuses by design (a protected name, a write outside the writable roots),
# which is checked on its own with its control in the run without cordon.
#
# The agents are npm packages at the versions pinned in
# scripts/agents-setup.sh (make check installs them once, into a cache
# outside the repository); where they are missing, each part skips with a
# line and passes nothing.
. "$(dirname "$0")/lib.sh"

# The no-Landlock pass skips the file: what an agent meets of cordon is its
# wrappers, its process tree, its signal relay and its mounts, none of which
# Landlock changes; the protected names without Landlock are t_core's.
in_landlock_pass "the real agents end to end" "Landlock changes nothing the agents meet" ||
	{ finish; exit; }

CLAUDE=$("$HELPERS/agents-setup.sh" --find claude) || CLAUDE=
CODEX=$("$HELPERS/agents-setup.sh" --find codex) || CODEX=

# Outside /tmp: the sandbox's private /tmp would hide the project, the home
# and Claude Code's temporary directory, and a refused write there would be
# a write into that tmpfs, not a refusal.
AG=$(mktemp -d /var/tmp/cordon-agents.XXXXXX)
chmod 755 "$AG"
cleanup_dirs+=("$AG")
P="$AG/proj"     # the project, the same path in both runs
H="$AG/home"     # the agent's HOME, made anew for each run
SRV=
trap 'kill $SRV 2>/dev/null; rm -rf "${cleanup_dirs[@]}"' EXIT

# serve API SCRIPT LOGDIR: the scripted model server, its port in $PORT.
serve() {
	mkdir -p "$3"
	python3 "$HELPERS/agentmodel.py" "$3/port" "$3" "$1" "$2" 2>"$3/server.err" &
	SRV=$!
	wait_for 100 test -s "$3/port" && PORT=$(cat "$3/port")
}
unserve() { kill "$SRV" 2>/dev/null; wait "$SRV" 2>/dev/null; SRV=; }

# fresh: the project (a git repository with a subdirectory) and the home,
# as they are before each run.
fresh() {
	rm -rf "$P" "$H"
	mkdir -p "$P/sub" "$H" && git init -q "$P"
}
# files_of DIR: each file under DIR with its sha256 (git's objects left out).
files_of() {
	(cd "$1" && find . -path ./.git/objects -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
# result MODE STEP: what the agent sent back for tool call STEP of the run
# MODE: "is_error" and the content, Codex's per-call chunk id and wall time
# dropped (they differ between any two runs).
result() {
	jq -r --argjson i "$2" '.[$i] | "\(.is_error) \(.content)"' "$AG/out-$1/results.json" 2>/dev/null |
		grep -Ev '^(false |true )?(Chunk ID|Wall time): '
}
# same STEP DESCRIPTION: the call's result with cordon is the one without.
same() {
	local a b
	a=$(result plain "$1")
	b=$(result cordon "$1")
	if [ -n "$a" ] && [ "$a" = "$b" ]; then
		ok "$2: the same with cordon as without"
	else
		bad "$2: differs with cordon"
		diff <(echo "$a") <(echo "$b") | sed 's/^/         | /' | head -8
	fi
}
# secs START: seconds since START ($EPOCHREALTIME), one decimal.
secs() { awk -v s="$1" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.1f", e - s }'; }
# call_ms MODE: the median time from one model request to the next (a tool
# call, its hook, and the agent's own work), in ms.
call_ms() {
	jq -r .time "$AG/out-$1/requests.jsonl" 2>/dev/null |
		awk 'NR > 1 { print int(($1 - p) * 1000) } { p = $1 }' | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "?" }'
}

# --- Claude Code through cordon-prefix ------------------------------------
# cordon-prefix as a user's link to the installed one (t_recipes does the
# same; under CORDON_TEST_FULL's no-Landlock pass, a script running cordon's
# subcommand under the helper).
BIN="$W/bin"
mkdir -p "$BIN"
if [ -n "${CORDON_NO_LANDLOCK:-}" ]; then
	printf '#!/bin/sh\nexec "%s" "%s" %s prefix "$@"\n' "$HELPERS/nolandlock" "$CORDON_BIN" \
		"$(is_root && echo --allow-no-landlock)" >"$BIN/cordon-prefix"
	chmod 755 "$BIN/cordon-prefix"
else
	ln -s "$(dirname "$CORDON_BIN")/cordon-prefix" "$BIN/cordon-prefix"
fi

# The recipe's policy: the project and Claude Code's own temporary directory
# writable.  Claude Code learns where a command left the shell by reading a
# file the command writes there ("pwd -P >| $CLAUDE_CODE_TMPDIR/claude-ID-cwd");
# in the default /tmp that file would land in the sandbox's private /tmp,
# and a `cd` would not carry over to the next call.
CFG="$AG/config"
CCTMP="$AG/cctmp"
install -d -m 700 "$CFG" "$CFG/cordon" "$CFG/cordon/projects"
name=$(printf '%s' "${P#/}" | sed -e 's/%/%25/g' -e 's/-/%2D/g' -e 's|/|-|g')
printf '{"write": ["%s", "%s"]}\n' "$P" "$CCTMP" >"$CFG/cordon/projects/$name.json"
chmod 600 "$CFG/cordon/projects/$name.json"

# The task: each step one tool call (Bash unless named).  Claude Code's
# timeout of a Bash call sends SIGTERM to the command's process group and
# every descendant, then SIGKILL 1.5 s later, as its interrupt (Esc) does:
# the TERM trap of step 8 must finish its cleanup with cordon as without.
CC_STEPS=(0 "a file written and read back"
	  1 "cd in one call"
	  2 "the next call starts where cd left it"
	  3 "a failing call's output and status"
	  6 "the MCP server writes in the project")
cat >"$AG/cc-script.json" <<JSON
[{"tool": "Bash", "input": {"command": "echo hello > a.txt; cat a.txt; pwd", "description": "hello"}},
 {"tool": "Bash", "input": {"command": "cd sub && pwd", "description": "cd"}},
 {"tool": "Bash", "input": {"command": "pwd; echo b > b.txt; ls ..", "description": "where"}},
 {"tool": "Bash", "input": {"command": "echo out; echo err >&2; exit 3", "description": "fail"}},
 {"tool": "Bash", "input": {"command": "echo x > '$P/.git/hooks/x'; echo status=\$?", "description": "hook"}},
 {"tool": "Bash", "input": {"command": "echo '# planted' >> ~/.bashrc; echo status=\$?", "description": "rc"}},
 {"tool": "mcp__notes__note", "input": {"path": "note.txt", "text": "from the MCP server"}},
 {"tool": "mcp__notes__note", "input": {"path": "$H/mcp-outside", "text": "from the MCP server"}},
 {"tool": "Bash", "input": {"command": "trap 'sleep 0.3; echo cleaned > \"$P/cleanup.txt\"; exit 7' TERM; echo started; sleep 30.$$ & wait", "description": "grace", "timeout": 2000}},
 {"text": "done"}]
JSON
cat >"$AG/cc-settings.json" <<JSON
{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
  "command": "python3 '$HELPERS/agenthook.py' '$P/hook.log'; echo hook >> ~/hook-outside; true"}]}]}}
JSON
cat >"$AG/cc-mcp.json" <<JSON
{"mcpServers": {"notes": {"command": "python3", "args": ["$HELPERS/agentmcp.py"]}}}
JSON

# claude_session MODE: one scripted session, with cordon-prefix (cordon) or
# without (plain); what it leaves goes to $AG/out-MODE.
claude_session() {
	local m=$1 out="$AG/out-$1" pre=() t st
	fresh
	rm -rf "$out" "$CCTMP" && mkdir -p "$CCTMP"
	[ "$m" = cordon ] && pre=(CLAUDE_CODE_SHELL_PREFIX="$BIN/cordon-prefix")
	serve anthropic "$AG/cc-script.json" "$out" || { bad "Claude Code ($m): the model server did not start"; return; }
	t=$EPOCHREALTIME
	# Nothing but the model server: no telemetry, updates or error reports;
	# MCP tools offered up front (not behind tool search), and a timed-out
	# command killed rather than moved to the background.
	(cd "$P" && env HOME="$H" XDG_CONFIG_HOME="$CFG" CLAUDE_CODE_TMPDIR="$CCTMP" "${pre[@]}" \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-ant-scripted \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
		DISABLE_ERROR_REPORTING=1 ENABLE_TOOL_SEARCH=false CLAUDE_CODE_DISABLE_BACKGROUND_TASKS=1 \
		timeout 120 "$CLAUDE" -p "Run the scripted task." --settings "$AG/cc-settings.json" \
		--mcp-config "$AG/cc-mcp.json" --strict-mcp-config \
		--allowedTools "Bash mcp__notes__note" --output-format text) \
		>"$out/stdout" 2>"$out/stderr" </dev/null
	st=$?
	eval "cc_secs_$m=$(secs "$t")"
	unserve
	expect_out 0 '^done$' "Claude Code ($m): the session ends with the script's last word" -- \
		sh -c 'cat "$1"; exit "$2"' sh "$out/stdout" "$st"
	[ "$st" -eq 0 ] || sed 's/^/         | /' "$out/stderr" | head -5
	assert "Claude Code ($m): no command of the session is left running" -- \
		wait_for 30 eval '! pgrep -f "sleep 30\.$$" >/dev/null'
	files_of "$P" >"$out/tree"
	cp "$P/hook.log" "$out/hook.log" 2>/dev/null
	for f in .bashrc hook-outside mcp-outside; do [ -e "$H/$f" ] && echo "$f"; done >"$out/home"
}

if [ -z "$CLAUDE" ]; then
	echo "  skip [$WHO] Claude Code: not installed (scripts/agents-setup.sh installs it; it needs the network once)"
else
	claude_session plain
	claude_session cordon
	assert "Claude Code: every scripted call was made, in both runs" -- test \
		"$(jq length "$AG/out-plain/results.json") $(jq length "$AG/out-cordon/results.json")" = "9 9"
	for ((i = 0; i < ${#CC_STEPS[@]}; i += 2)); do
		same "${CC_STEPS[i]}" "Claude Code: ${CC_STEPS[i + 1]}"
	done
	assert "cd carries over between calls (with cordon, as without)" -- \
		test "$(result cordon 2 | head -1)" = "false $P/sub"

	# Protected names: the control writes them, the sandbox refuses.
	assert "without cordon, the Bash tool writes .git/hooks/x (the control)" -- \
		test "$(result plain 4)" = "false status=0"
	assert "with cordon, .git/hooks/x is refused" -- eval \
		'result cordon 4 | grep -q "Read-only file system" && result cordon 4 | grep -q "^status=1$"'
	assert "without cordon, the Bash tool appends to ~/.bashrc (the control)" -- \
		test "$(result plain 5)" = "false status=0"
	assert "with cordon, ~/.bashrc is refused" -- eval \
		'result cordon 5 | grep -q "Read-only file system" && result cordon 5 | grep -q "^status=1$"'
	assert "without cordon, the MCP server writes outside the project (the control)" -- \
		test "$(result plain 7)" = "false wrote $H/mcp-outside in $P"
	assert "with cordon, the MCP server runs sandboxed: a write outside is refused" -- \
		test "$(result cordon 7)" = "false cannot write $H/mcp-outside: Read-only file system"
	assert "outside the project, the run without cordon wrote ~/.bashrc, the hook's and the MCP server's files" -- \
		test "$(tr '\n' ' ' <"$AG/out-plain/home")" = ".bashrc hook-outside mcp-outside "
	assert "with cordon, none of them" -- test ! -s "$AG/out-cordon/home"
	# PostToolUse runs after each call that completed (not 3, which failed,
	# nor 8, which timed out): 0, 1, 2, 4, 5.
	assert "without cordon, the hook logged each completed Bash call (the control)" -- test \
		"$(cut -d' ' -f1-3 "$AG/out-plain/hook.log" 2>/dev/null | tr '\n' '|')" = \
		"PostToolUse Bash echo|PostToolUse Bash cd|PostToolUse Bash pwd;|PostToolUse Bash echo|PostToolUse Bash echo|"
	assert "with cordon, the hook logged the same" -- \
		cmp -s "$AG/out-plain/hook.log" "$AG/out-cordon/hook.log"
	# The grace: both runs report the timeout alike (step 8) and the trap
	# finished its cleanup in both.
	same 8 "Claude Code: a timed-out command (SIGTERM, SIGKILL 1.5 s later)"
	assert "the TERM trap finished its cleanup without cordon (the control)" -- \
		grep -q ' ./cleanup.txt$' "$AG/out-plain/tree"
	assert "the TERM trap finished its cleanup with cordon" -- \
		grep -q ' ./cleanup.txt$' "$AG/out-cordon/tree"
	# Every file the session left in the project is the same, the refused
	# .git/hooks/x apart (hook.log holds each call's command, in order).
	if diff <(grep -v ' ./.git/hooks/x$' "$AG/out-plain/tree") "$AG/out-cordon/tree" >"$OUT"; then
		ok "Claude Code: the project's files are the same with cordon as without"
	else
		bad "Claude Code: the project's files differ with cordon"
		sed 's/^/         | /' "$OUT" | head -8
	fi
	echo "  note [$WHO] Claude Code session: ${cc_secs_plain:-?} s without cordon, ${cc_secs_cordon:-?} s with;" \
	     "median call $(call_ms plain) ms without, $(call_ms cordon) ms with"
fi

# --- Codex inside cordon ----------------------------------------------------
# Codex has no setting that hands its commands to an external sandbox: all
# of `codex exec` runs inside cordon, its own sandbox off.  Its model server
# is on the host's loopback, which the sandbox's network namespace does not
# reach: the request goes through cordon's proxy, allowed by exact address
# and port, with NO_PROXY unset (cordon sets it to the loopback names, which
# would send the request to the sandbox's own empty loopback).  CODEX_HOME
# must be writable (sessions, state databases); its config.toml stays
# read-only, or a command could add to it what every later Codex runs.
# Step 2 writes only to stderr: Codex reads a command's stdout and stderr
# from two pipes and joins them in the order it happens to read them, with
# cordon or without (seen both ways in runs without cordon).
CX_STEPS=(0 "a file written and read back"
	  1 "cd in one call (Codex starts each call afresh)"
	  2 "a failing call's output (on stderr) and status"
	  4 "a call with its own working directory"
	  5 "a call on a terminal")
cat >"$AG/cx-script.json" <<JSON
[{"tool": "exec_command", "input": {"cmd": "echo hello > a.txt; cat a.txt; pwd"}},
 {"tool": "exec_command", "input": {"cmd": "cd sub && pwd"}},
 {"tool": "exec_command", "input": {"cmd": "pwd >&2; echo err >&2; exit 3"}},
 {"tool": "exec_command", "input": {"cmd": "echo x > .git/hooks/x; echo status=\$?"}},
 {"tool": "exec_command", "input": {"cmd": "ls -a; cat ../a.txt", "workdir": "$P/sub"}},
 {"tool": "exec_command", "input": {"cmd": "test -t 1 && echo on-a-tty", "tty": true}},
 {"tool": "exec_command", "input": {"cmd": "echo '# planted' >> \"\$CODEX_HOME/config.toml\"; echo status=\$?"}},
 {"text": "done"}]
JSON

# codex_session MODE: as claude_session, for Codex.
codex_session() {
	local m=$1 out="$AG/out-$1" pre=() t st
	fresh
	rm -rf "$out"
	serve responses "$AG/cx-script.json" "$out" || { bad "Codex ($m): the model server did not start"; return; }
	mkdir -p "$H/.codex"
	# Only the model server: the plugin and app catalogues (github.com,
	# chatgpt.com) and analytics off.
	cat >"$H/.codex/config.toml" <<TOML
model = "scripted"
model_provider = "scripted"
[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:$PORT/v1"
wire_api = "responses"
[features]
plugins = false
remote_plugin = false
apps = false
[analytics]
enabled = false
TOML
	[ "$m" = cordon ] && pre=("$CORDON" -w "$P" -w "$H/.codex" --read-only "$H/.codex/config.toml"
		--allow-domain "127.0.0.1:$PORT" --unsetenv NO_PROXY --unsetenv no_proxy
		--net-log "$AG/net.log" --)
	t=$EPOCHREALTIME
	(cd "$P" && env HOME="$H" CODEX_HOME="$H/.codex" timeout 120 "${pre[@]}" \
		"$CODEX" exec --dangerously-bypass-approvals-and-sandbox "Run the scripted task.") \
		>"$out/stdout" 2>"$out/stderr" </dev/null
	st=$?
	eval "cx_secs_$m=$(secs "$t")"
	unserve
	expect_out 0 '^done$' "Codex ($m): the session ends with the script's last word" -- \
		sh -c 'cat "$1"; exit "$2"' sh "$out/stdout" "$st"
	[ "$st" -eq 0 ] || grep -v '^$' "$out/stderr" | tail -n 5 | sed 's/^/         | /'
	files_of "$P" >"$out/tree"
}

if [ -z "$CODEX" ]; then
	echo "  skip [$WHO] Codex: not installed (scripts/agents-setup.sh installs it; it needs the network once)"
else
	codex_session plain
	codex_session cordon
	assert "Codex: every scripted call was made, in both runs" -- test \
		"$(jq length "$AG/out-plain/results.json") $(jq length "$AG/out-cordon/results.json")" = "7 7"
	for ((i = 0; i < ${#CX_STEPS[@]}; i += 2)); do
		same "${CX_STEPS[i]}" "Codex: ${CX_STEPS[i + 1]}"
	done
	assert "without cordon, Codex writes .git/hooks/x (the control)" -- \
		eval 'result plain 3 | grep -q "^status=0"'
	assert "with cordon, .git/hooks/x is refused" -- eval \
		'result cordon 3 | grep -q "Read-only file system" && result cordon 3 | grep -q "^status=1"'
	assert "without cordon, a command rewrites Codex's config.toml (the control)" -- \
		eval 'result plain 6 | grep -q "^status=0"'
	assert "with cordon, config.toml stays read-only" -- eval \
		'result cordon 6 | grep -q "Read-only file system" && result cordon 6 | grep -q "^status=1"'
	assert "Codex's requests went through cordon's proxy to the model server, and nowhere else" -- \
		test "$(jq -r '"\(.host):\(.port) \(.decision)"' "$AG/net.log" | sort -u)" = "127.0.0.1:$PORT allow"
	if diff <(grep -v ' ./.git/hooks/x$' "$AG/out-plain/tree") "$AG/out-cordon/tree" >"$OUT"; then
		ok "Codex: the project's files are the same with cordon as without"
	else
		bad "Codex: the project's files differ with cordon"
		sed 's/^/         | /' "$OUT" | head -8
	fi
	echo "  note [$WHO] Codex session: ${cx_secs_plain:-?} s without cordon, ${cx_secs_cordon:-?} s with;" \
	     "median call $(call_ms plain) ms without, $(call_ms cordon) ms with"
fi

finish

#!/usr/bin/env bash
# t_recipes.sh: the README's "Recipes for agents", each through the contract
# the agent uses.  Claude Code: a stand-in that runs each command the way
# its CLAUDE_CODE_SHELL_PREFIX is documented and implemented (its spawned
# shell runs `'PREFIX' 'COMMAND STRING'`: the prefix gets the whole command
# as one argument), with cordon-prefix's policy lookup and its refusals;
# cordon-sh against bash itself; an srt settings file used as the project's
# policy.
. "$(dirname "$0")/lib.sh"

# cordon-prefix and cordon-sh are cordon itself (links to it, told apart by
# their names): $BIN holds a link to each installed link, as a user's
# ~/bin/cordon-prefix would be.  The no-Landlock pass runs them as cordon's
# subcommands under its helper instead (and, for root, with
# --allow-no-landlock), from a script that runs nothing through PATH.
inst=$(dirname "$CORDON_BIN")
assert "make install puts cordon-prefix beside cordon" -- test -x "$inst/cordon-prefix"
assert "make install puts cordon-sh beside cordon" -- test -x "$inst/cordon-sh"
assert "both are links to cordon itself" -- test \
	"$(readlink -f "$inst/cordon-prefix") $(readlink -f "$inst/cordon-sh")" = \
	"$(readlink -f "$CORDON_BIN") $(readlink -f "$CORDON_BIN")"
BIN="$W/bin"
mkdir -p "$BIN"
if [ -n "${CORDON_NO_LANDLOCK:-}" ]; then
	ll=$(is_root && echo --allow-no-landlock)
	for t in prefix:cordon-prefix shell:cordon-sh; do
		printf '#!/bin/sh\nexec "%s" "%s" %s %s "$@"\n' "$HELPERS/nolandlock" "$CORDON_BIN" \
			"$ll" "${t%%:*}" >"$BIN/${t#*:}"
		chmod 755 "$BIN/${t#*:}"
	done
else
	ln -s "$inst/cordon-prefix" "$BIN/cordon-prefix"
	ln -s "$inst/cordon-sh" "$BIN/cordon-sh"
fi

# Outside /tmp, so that the sandbox sees the configuration (read-only) and a
# write to it is refused by the sandbox, not missed in a private /tmp.
CFG=$(mktemp -d /var/tmp/cordon-recipes.XXXXXX)
chmod 700 "$CFG"
cleanup_dirs+=("$CFG")
export XDG_CONFIG_HOME="$CFG"
proj="$W/my proj-x"
mkdir -p "$proj/.git" "$proj/sub" "$W/outside"
echo secret > "$proj/secret.pem"
# The name README documents: the path without its leading /, % -> %25,
# - -> %2D, / -> - ($W holds a - already: cordon-it.XXXXXX).
name=$(printf '%s' "${proj#/}" | sed -e 's/%/%25/g' -e 's/-/%2D/g' -e 's|/|-|g')
PP="$CFG/cordon/projects/$name.json"
install -d -m 700 "$CFG/cordon" "$CFG/cordon/projects"

# --- the Claude Code stand-in ---------------------------------------------
# Claude Code builds `quote([PREFIX]) + " " + quote([COMMAND])` and runs it
# with `bash -c -l`; COMMAND is its own wrapper around the model's command
# (snapshot, eval, then the working directory written to a file).
sq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
export CLAUDE_CODE_SHELL_PREFIX="$BIN/cordon-prefix"
claude() { # CMD: one Bash tool call, in $CWD (default: the project)
	local cmd
	cmd="eval $(sq "$1") && pwd -P >| /tmp/claude-$$-cwd"
	(cd "${CWD:-$proj}" && bash -c -l "$(sq "$CLAUDE_CODE_SHELL_PREFIX") $(sq "$cmd")")
}

ln -s "$BIN/cordon-sh" "$W/cordon-sh-link"
expect_out 0 '^through-a-link$' "cordon-sh through a link still finds cordon-prefix and cordon" -- \
	sh -c 'cd "$1" && "$2" -c "echo through-a-link"' sh "$proj" "$W/cordon-sh-link"
# A copy of cordon named cordon-prefix, away from its helpers, finds them
# beside the binary or nowhere: never through PATH.
mkdir -p "$W/lonely"
cp "$CORDON_BIN" "$W/lonely/cordon-prefix"
ln -s "$inst/../libexec/cordon/cordon-inner" "$BIN/cordon-inner"
expect_err 125 "cordon-inner not found" "cordon-prefix away from cordon's helpers: 125, none from PATH" -- \
	sh -c 'cd "$1" && PATH="$2:$PATH" "$3/cordon-prefix" "touch ran"' sh "$proj" "$BIN" "$W/lonely"
assert "away from its helpers: nothing ran" -- test ! -e "$proj/ran"

# --- defaults: no policy file ---------------------------------------------
CWD="$proj/sub" expect 0 "no policy: the git top level is writable (from a subdirectory)" -- \
	claude "echo d > '$proj/d'"
assert "the write is on the host" -- test -s "$proj/d"
refuse "no policy: outside the project stays read-only" -- claude "echo x > '$W/outside/x'"
assert "nothing was written outside" -- test ! -e "$W/outside/x"
expect 7 "the command's exit status comes back" -- claude 'exit 7'
fed() { # INPUT COMMAND...: COMMAND with INPUT on its stdin
	local in=$1
	shift
	printf '%s' "$in" | "$@"
}
expect_out 0 '^got-ping$' "stdin reaches the command (a stdio MCP server's start-up)" -- \
	fed $'ping\n' claude 'read l; echo "got-$l"'
expect_out 0 "^a b\|'c'\$" "the command string arrives whole (quotes, spaces)" -- \
	claude "printf '%s|%s\n' 'a b' \"'c'\""
# Claude Code ends a command by signalling the process it spawned: that is
# cordon itself (the shell and cordon-prefix exec), which ends the run.
rm -f "$proj/started"
(cd "$proj" && exec bash -c -l "$(sq "$CLAUDE_CODE_SHELL_PREFIX") $(sq "touch started; sleep 30.$$")") &
spid=$!
wait_for 100 test -e "$proj/started"
assert "the spawned process is cordon, not a shell in between" -- \
	test "$(readlink "/proc/$spid/exe" 2>/dev/null)" = "$(readlink -f "$CORDON_BIN")"
kill -TERM "$spid"
wait "$spid"
assert "SIGTERM to the spawned process: 143" -- test $? -eq 143
assert "and the command is gone" -- wait_for 50 eval '! pgrep -f "sleep 30\.$$" >/dev/null'

mkdir -p "$W/nogit"
CWD="$W/nogit" HOME="$W/nogit" expect_err 125 "the project directory would be $W/nogit" \
	"no .git and the working directory is HOME: refused, not made writable" -- \
	claude "touch '$W/nogit/ran'"
assert "HOME refusal: nothing ran" -- test ! -e "$W/nogit/ran"
CWD="$W/nogit" XDG_CONFIG_HOME="$W/nogit/.config" expect_err 125 "the project $W/nogit holds $W/nogit/.config" \
	"no policy, and the project holds the configuration: refused, not made writable" -- \
	claude "touch '$W/nogit/ran'"
assert "configuration in the project: nothing ran" -- test ! -e "$W/nogit/ran"

# --- the project's policy file, and the global one -------------------------
pol() { # FILE JSON: a policy file as the user writes one
	printf '%s\n' "$2" > "$1" && chmod 600 "$1"
}
pol "$PP" "{\"write\": [\"$proj\"], \"env\": {\"set\": {\"FROM\": \"project\"}}}"
expect_out 0 '^project$' "the project's policy file is used" -- claude 'echo "$FROM"'
pol "$CFG/cordon/policy.json" '{"env": {"set": {"FROM": "global"}}}'
expect_out 0 '^project$' "the project's file wins over policy.json" -- claude 'echo "$FROM"'
mv "$PP" "$PP.off"
expect_out 0 '^global$' "without one, policy.json is used" -- claude 'echo "$FROM"'
expect 0 "policy.json: the project is writable" -- claude "echo g > '$proj/g'"
rm -f "$CFG/cordon/policy.json"
mv "$PP.off" "$PP"

# The attack: a command rewrites the policy to widen the next command.
refuse "the command cannot rewrite its project's policy" -- \
	claude "echo '{\"write\": [\"$W/outside\"]}' > '$PP'"
refuse "nor add policy.json beside it" -- claude "echo '{}' > '$CFG/cordon/policy.json'"
assert "the policy file is unchanged" -- grep -q '"project"' "$PP"

# The command plants a .git in a subdirectory, where the agent goes next:
# the project's policy still applies there (its deny_read included), not
# the defaults of a new "project".
pol "$PP" "{\"write\": [\"$proj\"], \"deny_read\": [\"$proj/*.pem\"]}"
expect 0 "the command may create sub/.git (not directly in a root)" -- claude 'mkdir sub/.git'
CWD="$proj/sub" expect 0 "below a planted .git, the project's deny_read still hides the file" -- \
	claude 'test -e ../secret.pem && ! grep -q secret ../secret.pem'
rmdir "$proj/sub/.git"

# A policy whose sandbox can write the policy itself (it writes the
# configuration directory, as one writing ~ writes ~/.config) is refused.
pol "$PP" "{\"write\": [\"$proj\", \"$CFG\"]}"
rm -f "$proj/ran"
expect_err 125 "policy $PP is writable inside the sandbox it makes" \
	"a policy that makes its own file writable is refused" -- claude "touch '$proj/ran'"
assert "a policy that makes its own file writable: nothing ran" -- test ! -e "$proj/ran"
pol "$PP" "{\"write\": [\"$proj\", \"$CFG\"], \"read_only\": [\"$CFG/cordon\"]}"
expect_err 125 "policy .* is writable inside the sandbox it makes \($CFG is\)" \
	"so is one that writes a directory above it, even with the file's directory read-only" -- \
	claude "touch '$proj/ran'"
assert "a directory above: nothing ran" -- test ! -e "$proj/ran"
pol "$PP" "{\"write\": [\"$proj\", \"$CFG/cordon/projects\"]}"
expect_err 125 "policy $PP is writable inside the sandbox it makes \($CFG/cordon/projects is\): refused" \
	"so is one that writes the policies' directory" -- claude "touch '$proj/ran'"
assert "the policies' directory: nothing ran" -- test ! -e "$proj/ran"
# ~ and ~/.config, with a home of its own and the configuration in it.
H=$(mktemp -d /var/tmp/cordon-recipes-home.XXXXXX)
chmod 700 "$H"
cleanup_dirs+=("$H")
install -d -m 700 "$H/.config" "$H/.config/cordon" "$H/.config/cordon/projects"
HP="$H/.config/cordon/projects/$name.json"
for w in "~" "~/.config"; do
	pol "$HP" "{\"write\": [\"$proj\", \"$w\"]}"
	HOME="$H" XDG_CONFIG_HOME='' expect_err 125 "policy $HP is writable inside the sandbox it makes \\(${w/\~/$H} is\\)" \
		"a policy that writes $w is refused" -- claude "touch '$proj/ran'"
	assert "a policy that writes $w: nothing ran" -- test ! -e "$proj/ran"
done
pol "$HP" "{\"write\": [\"$proj\"], \"read_only\": [\"$H\"]}"
HOME="$H" XDG_CONFIG_HOME='' expect 0 "control: the same home, the project alone writable, runs" -- \
	claude "touch '$proj/ran'"
assert "control: it ran" -- test -e "$proj/ran"
rm -f "$proj/ran"
pol "$PP" '{"write": ["/var/tmp/nonexistent-cordon-recipes-root"]}'
expect_err 125 "^cordon: .*nonexistent-cordon-recipes-root" \
	"a policy cordon refuses is refused, with cordon's message" -- claude true
pol "$PP" "{\"write\": [\"$proj\"], \"env\": {\"set\": {\"FROM\": \"project\"}}}"

# Refusals: 125, a message naming the file, nothing ran.
refused() { # DESC REGEX
	rm -f "$proj/ran"
	expect_err 125 "$2" "$1" -- claude "touch '$proj/ran'"
	assert "$1: nothing ran" -- test ! -e "$proj/ran"
}
cp "$PP" "$CFG/real.json"
rm "$PP"
ln -s "$CFG/real.json" "$PP"
refused "a symlinked policy file is refused" "policy $PP is a symbolic link"
rm "$PP"
pol "$PP" "{\"write\": [\"$proj\"]}"
chmod 666 "$PP"
refused "a world-writable policy file is refused" "policy $PP is writable by group or others"
chmod 620 "$PP"
refused "a group-writable policy file is refused" "writable by group or others \(mode 620\)"
chmod 600 "$PP"
chmod 777 "$CFG/cordon/projects"
refused "a policy directory others can write is refused" "projects is writable by group or others"
chmod 700 "$CFG/cordon/projects"
if is_root && id cordontest >/dev/null 2>&1; then
	chown cordontest "$PP"
	refused "another user's policy file is refused" "policy $PP belongs to uid [0-9]+, not to you"
	chown 0 "$PP"
fi
ln "$PP" "$CFG/other-name.json"
refused "a policy file with another name (a hard link) is refused" "policy $PP has 2 names"
rm -f "$CFG/other-name.json"
expect 0 "control: the same file, the caller's, mode 600, is used" -- claude "touch '$proj/ran'"

# A policy the command could write is never read: one inside the project
# (the configuration of a project that is HOME, say) is refused ...
mkdir -p "$proj/cfg/cordon/projects"
chmod -R 700 "$proj/cfg"
pol "$proj/cfg/cordon/projects/$name.json" "{\"write\": [\"$proj\", \"$W/outside\"]}"
XDG_CONFIG_HOME="$proj/cfg" refused "a policy inside the project (a writable root) is refused" \
	"is inside the project $proj"
# ... and a policy-looking file in the project is not looked for at all.
pol "$proj/.cordon.json" "{\"write\": [\"$proj\", \"$W/outside\"]}"
pol "$proj/cordon.json" "{\"write\": [\"$proj\", \"$W/outside\"]}"
refuse "a policy file in the project widens nothing" -- claude "echo x > '$W/outside/x'"
assert "nothing was written outside" -- test ! -e "$W/outside/x"

# --- srt users: the same settings file for srt and cordon ------------------
pol "$PP" "{
  \"filesystem\": {\"allowWrite\": [\"$proj\"], \"denyWrite\": [\"$proj/sub\"], \"denyRead\": [\"$proj/*.pem\"]},
  \"network\": {\"allowedDomains\": [\"registry.npmjs.org\"], \"deniedDomains\": []}
}"
expect 0 "srt file: allowWrite is writable" -- claude "echo s > '$proj/s'"
refuse "srt file: denyWrite is read-only" -- claude "echo x > '$proj/sub/x'"
refuse "srt file: outside allowWrite is read-only" -- claude "echo x > '$W/outside/x'"
expect 0 "srt file: denyRead hides the file (control: it exists)" -- \
	claude 'test -e secret.pem && ! grep -q secret secret.pem'
expect_out 0 '^http://127\.0\.0\.1:[0-9]+$' "srt file: allowedDomains opens the allowlisting proxy" -- \
	claude 'echo "$HTTPS_PROXY"'
expect_out 0 'allow +registry\.npmjs\.org +\(policy network\.allowedDomains\)' \
	"srt file: the allowlist is the file's" -- "$CORDON" explain --policy "$PP" -- true
rm -f "$PP"

# --- cordon-sh: bash -c, in the sandbox ------------------------------------
# Each case runs bash and cordon-sh with the same arguments and stdin, in
# the project, and compares status and stdout.
mkdir -p "$proj/home"
printf 'export LOGIN_MARK=from-profile\n' > "$proj/home/.bash_profile"
like_bash() { # DESC STDIN -- ARGS...
	local desc=$1 in=$2 a b sa sb
	shift 3
	a=$(cd "$proj" && printf '%s' "$in" | HOME="$proj/home" "$BIN/cordon-sh" "$@" 2>"$ERR")
	sa=$?
	b=$(cd "$proj" && printf '%s' "$in" | HOME="$proj/home" bash "$@" 2>/dev/null)
	sb=$?
	if [ "$sa" -eq "$sb" ] && [ "$a" = "$b" ]; then
		ok "$desc (status $sa)"
	else
		bad "$desc (cordon-sh: status $sa, '$a'; bash: status $sb, '$b')"
		sed 's/^/         | /' "$ERR" | head -5
	fi
}
like_bash "exit status" "" -- -c 'exit 42'
like_bash "killed by SIGTERM: 143" "" -- -c 'kill -TERM $$'
like_bash "a child killed by SIGTERM, waited for: 143" "" -- -c 'sleep 5 & kill $!; wait $!'
like_bash "killed by SIGKILL: 137" "" -- -c 'echo before; kill -KILL $$'
like_bash "stdin reaches the command" $'line one\nline two\n' -- -c 'read a; read b; echo "[$b|$a]"'
like_bash "no -c: the commands come from stdin" $'echo from-stdin\nexit 5\n' --
like_bash "\$0 and the arguments after -c" "" -- -c 'printf "%s|" "$0" "$1" "$2" "$#"' name 'a b' '$HOME'
like_bash "-lc sources the login profile" "" -- -lc 'echo "${LOGIN_MARK-unset}"'
like_bash "control: -c does not" "" -- -c 'echo "${LOGIN_MARK-unset}"'
assert "the login profile was read in the sandbox" -- \
	test "$(cd "$proj" && HOME="$proj/home" "$BIN/cordon-sh" -lc 'echo "$LOGIN_MARK"' 2>/dev/null)" = from-profile
expect 0 "cordon-sh writes the project" -- sh -c 'cd "$1" && "$2" -c "echo c > c"' sh "$proj" "$BIN/cordon-sh"
assert "cordon-sh's write is on the host" -- test -s "$proj/c"
refuse "cordon-sh: outside the project stays read-only" -- \
	sh -c 'cd "$1" && "$2" -c "echo x > \"\$0\"" "$3"' sh "$proj" "$BIN/cordon-sh" "$W/outside/x"
assert "nothing was written outside" -- test ! -e "$W/outside/x"

# --- nothing of the caller's environment runs on the host ----------------
# An agent's PATH often starts in the project (an activated .venv/bin,
# node_modules/.bin), which a sandboxed command writes: it can plant there
# every tool a wrapper script would run.  Each planted tool leaves a mark
# in $W/outside, which only the host can write, and one in the project,
# which the sandbox can write too; then runs the real tool.
evil="$proj/.venv/bin"
mkdir -p "$evil"
planted="readlink dirname sed stat realpath id pwd env cat bash sh cordon cordon-prefix git"
for t in $planted; do
	real=$(PATH=/usr/bin:/bin type -P "$t" || echo /bin/false)
	printf '#!/bin/sh\necho ran >"%s/ran-%s" 2>/dev/null\n: >"%s/inside-%s" 2>/dev/null\nexec %s "$@"\n' \
		"$W/outside" "$t" "$proj/.venv" "$t" "$real" >"$evil/$t"
	chmod 755 "$evil/$t"
done
cat >"$CFG/envmark.sh" <<ENVMARK
echo ran >"$W/outside/ran-env" 2>/dev/null
: >"$proj/.venv/inside-env" 2>/dev/null
ENVMARK
chmod 644 "$CFG/envmark.sh"
hostile() { # WRAPPER ARGS...: in the project, the planted PATH first, BASH_ENV and ENV the marker
	local w=$1
	shift
	sh -c 'cd "$1" && p=$2 m=$3 && shift 3 && exec env PATH="$p:$PATH" BASH_ENV="$m" ENV="$m" "$@"' \
		sh "$proj" "$evil" "$CFG/envmark.sh" "$w" "$@"
}
expect 0 "control: a planted tool run on the host leaves its host mark" -- "$evil/dirname" /x
assert "control: the host mark is there" -- test -e "$W/outside/ran-dirname"
rm -f "$W/outside"/ran-* "$proj/.venv"/inside-*
expect_out 0 '^in-sandbox$' "cordon-prefix with the planted PATH, BASH_ENV and ENV" -- \
	hostile "$BIN/cordon-prefix" 'echo in-sandbox'
expect_out 0 '^d$' "cordon-prefix -- CMD with them" -- hostile "$BIN/cordon-prefix" -- sed -n p "$proj/d"
expect_out 0 '^in-sh$' "cordon-sh -c with them" -- hostile "$BIN/cordon-sh" -c 'echo in-sh; dirname /x >/dev/null'
expect 125 "a refusal with them (no .git, HOME)" -- \
	sh -c 'cd "$1" && exec env PATH="$2:$PATH" BASH_ENV="$3" HOME="$1" "$4" true' sh \
	"$W/nogit" "$evil" "$CFG/envmark.sh" "$BIN/cordon-prefix"
ran=$(cd "$W/outside" && ls -d ran-* 2>/dev/null | tr '\n' ' ')
assert "nothing planted ran on the host (${ran:-none})" -- test -z "$ran"
assert "control: inside, the sandbox's bash came through PATH (the planted one ran there)" -- \
	test -e "$proj/.venv/inside-bash"
assert "control: inside, bash read BASH_ENV (there, not on the host)" -- test -e "$proj/.venv/inside-env"
assert "control: inside, cordon-sh's command ran the planted dirname" -- test -e "$proj/.venv/inside-dirname"
rm -rf "$proj/.venv"

# Through a link of the user's to the installed link (~/bin/cordon-prefix).
mkdir -p "$W/home/bin"
ln -s "$inst/cordon-prefix" "$W/home/bin/cordon-prefix"
ln -s "$inst/cordon-sh" "$W/home/bin/cordon-sh"
expect_out 0 '^via-link$' "~/bin/cordon-prefix, a link to the installed one" -- \
	sh -c 'cd "$1" && "$2" "echo via-link"' sh "$proj" "$W/home/bin/cordon-prefix"
expect_out 0 '^via-link 3$' "~/bin/cordon-sh, a link to the installed one" -- \
	sh -c 'cd "$1" && "$2" -c "echo via-link \$1" n 3' sh "$proj" "$W/home/bin/cordon-sh"

# The subcommands: `cordon shell` is cordon-sh, `cordon sh` still runs sh
# with nothing writable.
rm -f "$proj/sub-wrote"
expect 0 "cordon shell is cordon-sh (the project writable)" -- \
	sh -c 'cd "$1" && "$2" shell -c "echo x > sub-wrote"' sh "$proj" "$CORDON"
assert "cordon shell wrote the project" -- test -s "$proj/sub-wrote"
rm -f "$proj/sub-wrote"
refuse "cordon sh is sh, read-only as ever" -- \
	sh -c 'cd "$1" && "$2" sh -c "echo x > sub-wrote"' sh "$H" "$CORDON"
assert "cordon sh wrote nothing" -- test ! -e "$H/sub-wrote"
expect_out 0 '^p a b$' "cordon prefix is cordon-prefix" -- \
	sh -c 'cd "$1" && "$2" prefix -- printf "%s %s %s\n" p a b' sh "$proj" "$CORDON"

# The root directory: no policy name to suggest there, only a project.
expect_err 125 'project directory would be / .*cd into a project \(a directory holding \.git\)$' \
	"cd / && cordon-prefix true: refused, told to cd into a project" -- \
	sh -c 'cd / && "$1" true' sh "$BIN/cordon-prefix"
assert "no policy named .json suggested" -- eval '! grep -q "/\.json" "$ERR"'

finish

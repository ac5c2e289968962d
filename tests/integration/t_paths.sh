#!/usr/bin/env bash
# t_paths.sh: what the mount plan itself keeps out of reach (issue 9,
# "Writable roots", "Denial of service" and the /proc/sys item): the kernel
# tunables in /proc, writable roots reached through planted links or on
# pseudo filesystems, the real git directory and hooks directory, deny-read
# paths that went missing, and the size of every tmpfs the command can fill.
# Each holds without Landlock: the assertions that matter look at the mounts.
. "$(dirname "$0")/lib.sh"

ws="$W/ws"
mkdir -p "$ws/sub"
C=("$CORDON" -w "$ws" -C "$ws")

# --- /proc: kernel tunables read-only, kernel state masked -------------------
# Writing the value the host already has: should the write go through, the
# host is unchanged, and the test still fails.
cur=$(cat /proc/sys/kernel/core_pattern)
refuse "writing /proc/sys/kernel/core_pattern fails" -- \
	"${C[@]}" -- sh -c 'printf "%s\n" "$1" > /proc/sys/kernel/core_pattern' sh "$cur"
assert "the host's core_pattern is unchanged" -- test "$(cat /proc/sys/kernel/core_pattern)" = "$cur"
expect_out 0 '^ro$' "/proc/sys is a read-only mount (not only Landlock's refusal)" -- \
	"${C[@]}" -- sh -c 'while read -r _ _ _ _ mp opts _; do [ "$mp" = /proc/sys ] && echo "${opts%%,*}"; done < /proc/self/mountinfo | tail -n 1'
if [ -e /proc/sysrq-trigger ]; then
	# Opening is enough to show it is writable; nothing is written.
	refuse "opening /proc/sysrq-trigger for writing fails" -- "${C[@]}" -- sh -c ': > /proc/sysrq-trigger'
else
	echo "  skip [$WHO] /proc/sysrq-trigger does not exist on this kernel"
fi
if [ -r /proc/keys ] && head -c 1 /proc/keys >/dev/null 2>&1; then
	refuse "/proc/keys is masked" -- "${C[@]}" -- sh -c 'test -s /proc/keys && cat /proc/keys'
fi
expect_out 0 '^Linux$' "control: /proc/sys stays readable" -- "${C[@]}" -- cat /proc/sys/kernel/ostype
expect_out 0 '^Name:' "control: /proc/self is readable" -- "${C[@]}" -- head -n 1 /proc/self/status
expect_out 0 '^all default lo $' "control: /proc/sys/net shows the sandbox's own network" -- \
	"${C[@]}" -- sh -c 'ls /proc/sys/net/ipv4/conf | tr "\n" " "'

# --- every tmpfs the command can fill has a size ------------------------------
expect_err 1 'No space left' "writing past the --tmp-size cap of /tmp fails with ENOSPC" -- \
	"${C[@]}" --tmp-size 4M -- dd if=/dev/zero of=/tmp/big bs=1M count=8
expect_err 1 'No space left' "/dev/shm has the same cap" -- \
	"${C[@]}" --tmp-size 4M -- dd if=/dev/zero of=/dev/shm/big bs=1M count=8
expect 0 "control: writing under the cap works" -- \
	"${C[@]}" --tmp-size 4M -- dd if=/dev/zero of=/tmp/small bs=1M count=2
mem_k=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
want_k=$((mem_k / 4 < 1048576 ? mem_k / 4 : 1048576))
expect_out 0 "^$want_k\$" "without --tmp-size /tmp is capped (1 GiB, at most a quarter of the memory)" -- \
	"${C[@]}" -- sh -c 'df -k /tmp | awk "NR==2 {print \$2}"'
refuse "the rest of /dev is read-only (its tmpfs is uncapped)" -- "${C[@]}" -- sh -c 'echo x > /dev/cordon-fill'
expect 0 "control: /dev/null is still writable" -- "${C[@]}" -- sh -c 'echo x > /dev/null'

# --- links owned by anyone but root are not followed --------------------------
# An earlier run could plant `build -> $HOME` in the workspace; as root the
# planted link is handed to the test user, as it would be had that user's
# command made it.
ln -s "$HOME" "$ws/build"
ln -s "$ws/sub" "$ws/sublink"
if is_root; then chown -h cordontest "$ws/build" "$ws/sublink"; fi
expect_err 125 "symbolic link $ws/build" "-w through a planted link is refused, naming the link" -- \
	"${C[@]}" -w "$ws/build" -- true
expect_err 125 "symbolic link $ws/build" "a path beneath a planted link is refused" -- \
	"${C[@]}" -w "$ws/build/." -- true
expect_err 125 "symbolic link $ws/sublink" "--read-only through a planted link is refused" -- \
	"${C[@]}" --read-only "$ws/sublink" -- true
expect_err 125 "symbolic link $ws/sublink" "--deny-read through a planted link is refused" -- \
	"${C[@]}" --deny-read "$ws/sublink" -- true
expect_err 125 "symbolic link $ws/sublink" "-C through a planted link is refused" -- \
	"$CORDON" -w "$ws" -C "$ws/sublink" -- true
(cd "$ws" && expect_err 125 "symbolic link $ws/build" "a relative path through a planted link is refused" -- \
	"$CORDON" -w build -- true)
if is_root; then
	# A sandbox run as root owns every link it makes: ownership says nothing
	# there, so a root caller's writable roots follow only the system's own
	# links.  Run 1 plants, run 2 names it.
	expect 0 "a sandbox run as root can make a link in its workspace" -- \
		"${C[@]}" -- ln -s / "$ws/planted-by-root"
	expect_err 125 "symbolic link $ws/planted-by-root; a root caller's writable roots follow only the system's own" \
		"-w through a link a root-run sandbox planted is refused" -- \
		"$CORDON" -w "$ws/planted-by-root/etc" -C "$ws" -- true
	ln -s "$ws/sub" "$ws/rootlink"
	expect_err 125 "only the system's own links" "-w through any root-owned link in a workspace is refused" -- \
		"$CORDON" -w "$ws/rootlink" -C "$ws/sub" -- true
	expect 0 "control: -C and --read-only still follow root's links" -- \
		"$CORDON" -w "$ws" --read-only "$ws/rootlink" -C "$ws/rootlink" -- true
	if [ -L /var/run ] && [ "$(stat -c %u /var/run)" = 0 ] && [ -d /run ]; then
		rd=$(mktemp -d /run/cordon-paths.XXXXXX)
		expect 0 "control: the system's /var/run link is followed for a root caller's -w" -- \
			"$CORDON" -w "/var/run/${rd#/run/}" -C "/var/run/${rd#/run/}" -- sh -c 'echo x > via-system-link'
		assert "control: the write through the system's link landed" -- test -e "$rd/via-system-link"
		rm -rf "$rd"
	fi
fi
if [ -L /var/run ] && [ "$(stat -c %u /var/run)" = 0 ]; then
	expect_out 0 '^/run$' "control: the system's root-owned /var/run link is followed" -- \
		"$CORDON" -C /var/run -- pwd
fi
expect 0 "control: the same root named directly works" -- "${C[@]}" -w "$ws/sub" -- true

# --- no writable root on a pseudo filesystem ------------------------------------
for d in /proc /sys /dev /sys/fs/cgroup /proc/sys; do
	[ -e "$d" ] || continue
	expect_err 125 "filesystem" "-w $d is refused by its filesystem type" -- "$CORDON" -w "$d" -C "$ws" -- true
done
expect_err 125 "holds a proc filesystem at /proc" "-w / is refused: it holds /proc" -- \
	"$CORDON" -w / -C "$ws" -- true
shm=$(mktemp -d /dev/shm/cordon-it.XXXXXX) && cleanup_dirs+=("$shm")
expect 0 "control: -w on a tmpfs directory works" -- "$CORDON" -w "$shm" -C "$shm" -- sh -c "echo x > '$shm/x'"
assert "control: the tmpfs write landed" -- test -e "$shm/x"
expect 0 "control: -w on this disk's filesystem works" -- "${C[@]}" -- sh -c 'echo x > sub/disk'
expect_out 0 '^ro$' "--full-write keeps /sys read-only" -- \
	"$CORDON" --full-write -C / -- sh -c 'while read -r _ _ _ _ mp opts _; do [ "$mp" = /sys ] && echo "${opts%%,*}"; done < /proc/self/mountinfo | tail -n 1'

# --- the real git directory and the hooks directory -----------------------------
# A worktree whose .git file names a git directory inside the writable root,
# and a common directory beside it (git worktree's layout).
g="$W/g"
mkdir -p "$g/realgit/hooks" "$g/main/.git/hooks" "$g/main/.git/worktrees/wt/hooks"
printf 'gitdir: realgit\n' > "$g/.git"
G=("$CORDON" -w "$g" -C "$g")
refuse "a hook cannot be planted in the gitdir a .git file names" -- \
	"${G[@]}" -- sh -c 'echo "#!/bin/sh" > realgit/hooks/pre-commit'
assert "no hook arrived in the gitdir" -- test ! -e "$g/realgit/hooks/pre-commit"
expect 0 "control: other files of the root stay writable" -- "${G[@]}" -- sh -c 'echo x > other'
printf 'gitdir: main/.git/worktrees/wt\n' > "$g/.git"
printf '../..\n' > "$g/main/.git/worktrees/wt/commondir"
refuse "a hook cannot be planted in a worktree's common git directory" -- \
	"${G[@]}" -- sh -c 'echo "#!/bin/sh" > main/.git/hooks/pre-commit'
refuse "nor in its own git directory" -- \
	"${G[@]}" -- sh -c 'echo "#!/bin/sh" > main/.git/worktrees/wt/hooks/pre-commit'
expect 0 "control: the rest of the root is writable" -- "${G[@]}" -- sh -c 'echo x > main/file'
printf 'gitdir: missing-gitdir\n' > "$g/.git"
expect_err 125 "missing-gitdir" "a .git file naming a missing gitdir inside a writable root is refused" -- \
	"${G[@]}" -- true

h="$W/h"
mkdir -p "$h/.git" "$h/myhooks"
printf '[core]\n\trepositoryformatversion = 0\n\thooksPath = myhooks\n' > "$h/.git/config"
H=("$CORDON" -w "$h" -C "$h")
refuse "a hook cannot be planted in the core.hooksPath directory" -- \
	"${H[@]}" -- sh -c 'echo "#!/bin/sh" > myhooks/pre-commit'
assert "no hook arrived in core.hooksPath" -- test ! -e "$h/myhooks/pre-commit"
expect 0 "control: a sibling of the hooks directory is writable" -- "${H[@]}" -- sh -c 'echo x > notes'
printf '[core]\n\thooksPath = "nothooks"\n' > "$h/.git/config"
expect_err 125 "nothooks" "a core.hooksPath missing inside a writable root is refused" -- "${H[@]}" -- true
printf '[core]\n\thooksPath = %s\n' "$W/outside-hooks" > "$h/.git/config"
expect 0 "control: a core.hooksPath outside every writable root is left alone" -- "${H[@]}" -- true
expect 0 "control: --no-default-protect leaves the git metadata writable" -- \
	"$CORDON" --no-default-protect -w "$g" -C "$g" -- sh -c 'echo x > other2'

# --- a --deny-read path missing inside a writable root is reported -----------
expect_err 0 "deny-read $ws/gone.env: nothing there.*writable root $ws" \
	"a --deny-read path missing inside a writable root is reported on stderr" -- \
	"${C[@]}" --deny-read "$ws/gone.env" -- true
expect_err 0 "deny-read $ws/gone.env: nothing there" "explain reports it too" -- \
	"$CORDON" explain -w "$ws" -C "$ws" --deny-read "$ws/gone.env" -- true
expect_err 0 "deny-read $ws/[*][.]pem: nothing there" "a glob matching nothing inside a writable root is reported" -- \
	"${C[@]}" --deny-read "$ws/*.pem" -- true
"${C[@]}" --deny-read "$W/outside-missing.env" -- true >"$OUT" 2>"$ERR" </dev/null
assert "control: a missing --deny-read path outside every writable root is a silent skip" -- \
	test ! -s "$ERR"
echo secret > "$ws/here.env"
"${C[@]}" --deny-read "$ws/here.env" -- true >"$OUT" 2>"$ERR" </dev/null
assert "control: an existing --deny-read path gets no note" -- test ! -s "$ERR"
refuse "control: the existing one is hidden" -- "${C[@]}" --deny-read "$ws/here.env" -- grep -q secret here.env

finish

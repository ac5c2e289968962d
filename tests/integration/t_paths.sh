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

finish

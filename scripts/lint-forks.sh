#!/bin/sh
# lint-forks.sh: only outer/launch/ starts processes (DESIGN.md section 3).
# No other file of outer/, bridge/, connect/ or common/ calls fork, vfork,
# clone or posix_spawn, through libc or as a raw system call: a new child
# process goes through a launch/ helper (child.h, vclone.h, detach.h,
# forkcall.h), which holds the spawn checklist.  inner/ (cordon-inner, PID 1
# of the sandbox) is a binary of its own and starts the command itself.
# A comment naming one of these calls writes it without the parentheses.
# Exits 1 and names each call found.
set -u
cd "$(dirname "$0")/.." || exit 2
files=$(find outer bridge connect common -name '*.[ch]' ! -path 'outer/launch/*' | sort)
hits=$(grep -nE '(^|[^[:alnum:]_])(v?fork|clone3?|posix_spawnp?)[[:space:]]*\(|SYS_(v?fork|clone3?)([^[:alnum:]_]|$)|__NR_(v?fork|clone3?)([^[:alnum:]_]|$)' $files)
if [ -n "$hits" ]; then
	printf '%s\n' "$hits" | sed 's/^/lint-forks: starts a process outside outer\/launch\/: /' >&2
	exit 1
fi
exit 0

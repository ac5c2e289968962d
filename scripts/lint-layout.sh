#!/bin/sh
# lint-layout.sh: the include rules of DESIGN.md section 3, checked on every
# quoted #include.  Each folder may include only what its rule names; a
# header named without a folder must be in common/ (or generated), except
# inside inner/ and bridge/, whose own headers sit beside them.
#   common/            common/ only
#   inner/, bridge/    their own folder and common/
#   connect/           common/ only
#   outer/input/       input/, config.h, common/
#   outer/plan/        plan/, input/, config.h, common/   (pure: nothing that writes or forks)
#   outer/hostpaths/   hostpaths/, plan/, procstat.h, config.h, common/,
#                      and launch/detach.h alone (the guardian's fork)
#   outer/launch/      launch/, plan/, procstat.h, config.h, common/
#   outer/observe/     observe/, hostpaths/, launch/, plan/, input/, config.h, common/
#                      (an observer reads the host and records findings; it
#                      moves aside only through hostpaths/)
#   outer/*.c, *.h     anything in outer/ and common/
# outer/'s top floor holds the verbs and the run's phases only: its .c files
# are the list TOP_FLOOR below, and a new one fails until it is listed here
# (a module of another kind belongs in one of the folders above).
# An argument with a folder and a name (launch/detach.h) allows that one
# header of the folder.  Exits 1 and names each broken rule.
set -u
cd "$(dirname "$0")/.." || exit 2
fail=0
bad() { echo "lint-layout: $1: includes \"$2\": $3" >&2; fail=1; }

check() { # FILE ALLOWED-PREFIXES...
	f=$1; shift
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in
		*/*)
			pre=${inc%%/*}/
			ok=0
			for a in "$@"; do [ "$a" = "$pre" ] || [ "$a" = "$inc" ] && ok=1; done
			[ $ok = 1 ] || bad "$f" "$inc" "the folder $pre is out of this folder's reach"
			[ -f "outer/$inc" ] || bad "$f" "$inc" "no such header under outer/" ;;
		*)
			if [ -f "common/$inc" ] || [ "$inc" = seccomp_bpf_gen.h ]; then
				continue
			fi
			case "$dir" in
			inner|bridge|tests/*) [ -f "$dir/$inc" ] && continue ;;
			esac
			case " $* " in
			*" $inc "*) [ -f "outer/$inc" ] && continue ;;
			*" * "*) [ -f "outer/$inc" ] && continue ;;
			esac
			bad "$f" "$inc" "not in common/ and not allowed here" ;;
		esac
	done
}

for f in common/*.[ch] common/*/*.[ch]; do [ -f "$f" ] && check "$f"; done
for f in inner/*.[ch]; do [ -f "$f" ] && check "$f"; done
for f in bridge/*.[ch]; do [ -f "$f" ] && check "$f"; done
for f in connect/*.[ch]; do [ -f "$f" ] && check "$f"; done
for f in outer/input/*.[ch]; do [ -f "$f" ] && check "$f" input/ config.h; done
for f in outer/plan/*.[ch]; do [ -f "$f" ] && check "$f" plan/ input/ config.h; done
for f in outer/hostpaths/*.[ch]; do [ -f "$f" ] && check "$f" hostpaths/ plan/ procstat.h config.h launch/detach.h; done
for f in outer/launch/*.[ch]; do [ -f "$f" ] && check "$f" launch/ plan/ procstat.h config.h; done
for f in outer/observe/*.[ch]; do [ -f "$f" ] && check "$f" observe/ hostpaths/ launch/ plan/ input/ config.h; done
for f in outer/*.[ch]; do [ -f "$f" ] && check "$f" input/ plan/ hostpaths/ launch/ observe/ '*'; done

# The verbs (main, doctor, explain) and the phases of a run, each with its
# reason to be here.
TOP_FLOOR="
main.c		the verbs' dispatch
doctor.c	verb: cordon doctor
explain.c	verb: cordon explain
explain_print.c	verb: explain's output
explain_path.c	verb: explain --path's verdicts
prepare.c	phase: resolve and plan, before anything exists
prefix.c	phase: the install prefix checked before a run
run.c		phase: the run, start to its one end
supervise.c	phase: the loop while the command runs
termrelay.c	phase: the terminal while the command runs
outcome.c	phase: how the command ended
report.c	phase: --report written at the end
procstat.c	phase: /proc facts shared by launch/ and hostpaths/
toolenv.c	phase: the command's tool environment
"
for f in outer/*.c; do
	[ -f "$f" ] || continue
	b=${f#outer/}
	if ! printf '%s\n' "$TOP_FLOOR" | cut -f1 | grep -qx "$b"; then
		echo "lint-layout: $f: outer/'s top floor holds the verbs and the run's phases only; put it in a folder (observe/, plan/, hostpaths/, launch/, input/) or list it in TOP_FLOOR with its reason" >&2
		fail=1
	fi
done
# Every observer of a run says what the guardian redoes if cordon dies
# (observe/observer.h): in each table of struct observer, each entry gives
# its four entry points and .guardian = OBSERVE_GUARDIAN(fn) or
# OBSERVE_GUARDIAN_NONE("why").
for f in outer/observe/*.c; do
	[ -f "$f" ] || continue
	sed -n '/^const struct observer [a-z_]*\[\] = {/,/^};/p' "$f" >/tmp/lint-observers.$$
	n=$(grep -c '\.name = ' /tmp/lint-observers.$$)
	for m in '\.start = ' '\.event_fd = ' '\.event = ' '\.settle = ' \
		 '\.guardian = OBSERVE_GUARDIAN\((\w+)\)|\.guardian = OBSERVE_GUARDIAN_NONE\("'; do
		k=$(grep -cE "$m" /tmp/lint-observers.$$)
		if [ "$k" != "$n" ]; then
			echo "lint-layout: $f: $n observers, $k with ${m%% =*}: each entry of the observer table gives start, event_fd, event, settle and .guardian = OBSERVE_GUARDIAN(fn) or OBSERVE_GUARDIAN_NONE(\"why\")" >&2
			fail=1
		fi
	done
	rm -f /tmp/lint-observers.$$
done
exit $fail

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
#   outer/*.c, *.h     anything in outer/ and common/
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
for f in outer/*.[ch]; do [ -f "$f" ] && check "$f" input/ plan/ hostpaths/ launch/ '*'; done
exit $fail

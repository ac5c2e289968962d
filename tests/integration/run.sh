#!/usr/bin/env bash
# run.sh: the integration suite.  Installs the build into a temporary prefix
# that any user can read (CI clones under /root, which others cannot enter),
# then runs every tests/integration/t_*.sh as the current user and, when that
# is root, again as an unprivileged user created here.  Then, except in a
# sanitizer build or with CORDON_NO_LANDLOCK_PASS=0, the whole suite once more
# as on a host without Landlock (see the no-Landlock pass below): every layer
# under Landlock must hold on its own.  Ends with the line "N passed, N
# failed" and fails when any test failed.
set -u
cd "$(dirname "$0")/../.."
TESTUSER=${CORDON_TEST_USER:-cordontest}
ONLY=${1:-}

# Not under /tmp: the sandbox's private /tmp would hide the test helpers
# that run inside it.
PREFIX=$(mktemp -d /var/tmp/cordon-prefix.XXXXXX)
trap 'rm -rf "$PREFIX"' EXIT
chmod 755 "$PREFIX"
BUILD=${BUILD:-build}
make -s install BUILD="$BUILD" PREFIX="$PREFIX" >/dev/null || { echo "run.sh: make install failed" >&2; exit 1; }
mkdir -p "$PREFIX/tests" "$PREFIX/helpers"
cp tests/integration/*.sh "$PREFIX/tests/"
cp "$BUILD"/helpers/* "$PREFIX/helpers/" 2>/dev/null || true
cp tests/helpers/*.py "$PREFIX/helpers/"
chmod -R a+rX "$PREFIX"

# A sanitizer build (make check-asan): every run of cordon in every test is
# checked for leaks (LeakSanitizer exits 23, which no test expects) and for
# undefined behaviour.
san_env=()
if [[ $BUILD == *asan* ]]; then
	san_env=(CORDON_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
		 LSAN_OPTIONS=exitcode=23 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
fi

# A bwrap that fails the way a real one does when the kernel refuses it, in
# a root-owned place cordon accepts (only root can make one).
fake_env=()
if [ "$(id -u)" -eq 0 ]; then
	FAKE=$(mktemp -d /run/cordon-test.XXXXXX) && chmod 755 "$FAKE" &&
		install -m 0755 "$BUILD/helpers/failbwrap" "$FAKE/bwrap" && fake_env=(FAKE_BWRAP="$FAKE/bwrap")
	# The bridge's test resolver map (bridge/intake.h): honoured only from a
	# root-owned file no one else may write, so only root can make one.
	printf '%s\n' '127.0.0.1 allowed.test denied.test other.test sub.allowed.test' \
		'::1 v6.test' '169.254.169.254 metadata.test' >"$FAKE/hosts" &&
		chmod 644 "$FAKE/hosts" && fake_env+=(CORDON_BRIDGE_HOSTS="$FAKE/hosts")
	trap 'rm -rf "$PREFIX" "${FAKE:-}"' EXIT
fi

# The no-Landlock pass: cordon runs under tests/helpers/nolandlock, which
# makes the Landlock syscalls answer ENOSYS for cordon and everything it
# starts, as an outer container's seccomp profile does.  A root caller is
# refused there unless it accepts the weaker sandbox, so the wrapper passes
# --allow-no-landlock for root (unless the test asks for --require-landlock,
# whose refusal it then checks).  Tests see CORDON_NO_LANDLOCK=1; in both
# passes CORDON_BIN names the real binary, for tests of the refusal itself.
NOLL="$PREFIX/nolandlock"
mkdir -p "$NOLL" && chmod 755 "$NOLL"
cat > "$NOLL/cordon" <<WRAP
#!/bin/bash
args=("\$@")
if [ "\$(id -u)" -eq 0 ]; then
	case " \$* " in
	*" --require-landlock "*) ;;
	*) case "\${1-}" in
	   explain|doctor|reclaim) args=("\$1" --allow-no-landlock "\${@:2}") ;;
	   *) args=(--allow-no-landlock "\$@") ;;
	   esac ;;
	esac
fi
exec "$PREFIX/helpers/nolandlock" "$PREFIX/bin/cordon" "\${args[@]}"
WRAP
chmod 755 "$NOLL/cordon"

total_pass=0
total_fail=0
pass_pass=0
pass_fail=0
mode_env=(CORDON="$PREFIX/bin/cordon")
run_as() { # USER FILE
	local user=$1 file=$2 out
	local envs=("${mode_env[@]}" CORDON_BIN="$PREFIX/bin/cordon" HELPERS="$PREFIX/helpers" PATH=/usr/local/bin:/usr/bin:/bin
		    CORDON_TEST_USER="$TESTUSER"
		    HOME="$(getent passwd "$user" | cut -d: -f6)" LANG=C.UTF-8 "${san_env[@]}" "${fake_env[@]}"
		    XDG_CACHE_HOME="$PREFIX/cache/$user")
	echo "== $(basename "$file") as $user${mode_tag-}"
	# The network tests run in a network namespace of their own with only
	# lo (made here, as root, for both users): no packet they cause can
	# leave the machine, whatever the bridge gets wrong.
	local netns=()
	if [[ $(basename "$file") == t_net* ]] && [ "$(id -u)" -eq 0 ]; then
		netns=(unshare -n -- sh -c 'ip link set lo up && exec "$@"' sh)
	fi
	if [ "$user" = "$(id -un)" ]; then
		out=$(cd "$PREFIX" && "${netns[@]}" env -i "${envs[@]}" USER="$user" bash "$file" 2>&1)
	else
		out=$(cd "$PREFIX" && "${netns[@]}" runuser -u "$user" -- env -i "${envs[@]}" USER="$user" bash "$file" 2>&1)
	fi
	printf '%s\n' "$out" | grep -v '^RESULT '
	local res
	res=$(printf '%s\n' "$out" | grep '^RESULT ' | tail -n 1)
	if [ -z "$res" ]; then
		echo "  FAIL [$user] $(basename "$file") ended without a RESULT line"
		total_fail=$((total_fail + 1))
		return
	fi
	set -- $res
	total_pass=$((total_pass + $2))
	total_fail=$((total_fail + $3))
	pass_pass=$((pass_pass + $2))
	pass_fail=$((pass_fail + $3))
}

users=("$(id -un)")
if [ "$(id -u)" -eq 0 ]; then
	if ! id "$TESTUSER" >/dev/null 2>&1; then
		useradd --create-home --shell /bin/bash "$TESTUSER" ||
			{ echo "run.sh: cannot create the test user $TESTUSER" >&2; exit 1; }
	fi
	users+=("$TESTUSER")
fi

# Each user's tool caches (--cache private: one directory per workspace, and
# every test's workspace is new) go in the prefix, and with it at the end.
for u in "${users[@]}"; do
	install -d -m 0700 -o "$u" "$PREFIX/cache/$u" ||
		{ echo "run.sh: cannot create $PREFIX/cache/$u" >&2; exit 1; }
done

run_pass() { # NAME
	pass_pass=0
	pass_fail=0
	for f in "$PREFIX"/tests/t_*.sh; do
		[ -n "$ONLY" ] && [[ "$(basename "$f")" != *"$ONLY"* ]] && continue
		for u in "${users[@]}"; do
			run_as "$u" "$f"
		done
	done
	echo "-- $1 pass: $pass_pass passed, $pass_fail failed"
}

run_pass Landlock
if [ ${#san_env[@]} -eq 0 ] && [ "${CORDON_NO_LANDLOCK_PASS:-1}" != 0 ]; then
	mode_env=(CORDON="$NOLL/cordon" CORDON_NO_LANDLOCK=1)
	mode_tag=" without Landlock"
	run_pass no-Landlock
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]

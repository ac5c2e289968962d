# cordon: build, test, install.  `make check` is what CI runs.
#
#   build/cordon         outer supervisor (musl, static PIE; glibc under SAN)
#   build/cordon-inner   PID 1 in the sandbox (musl, static)
#   build/cordon-bridge  the host side of --net proxy (musl, static)
#   build/cordon-connect the CONNECT client ssh uses inside (musl, static)
#   build/unit/*         Criterion unit tests (glibc host builds of common/ outer/ inner/)
#   build/fuzz/*         libFuzzer harnesses (clang): `make fuzz-smoke` (in check) runs
#                        each a few seconds, `make fuzz` for FUZZ_SECONDS

PREFIX ?= /usr/local
BUILD  ?= build
CC     ?= gcc
MUSLCC ?= musl-gcc
VERSION := 0.1.0
NPROC  := $(shell nproc 2>/dev/null || echo 2)

# Messages are fixed-size records (err.h) truncated by design: no
# -Wformat-truncation.
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wpointer-arith -Wundef -Wvla -Wno-format-nonliteral \
        -Wno-format-truncation
HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -ftrivial-auto-var-init=zero
CSTD := -std=c11 -D_GNU_SOURCE -DCORDON_VERSION='"$(VERSION)"'
OPT ?= -O2 -g
SAN ?=
NL_CFLAGS := -I/usr/include/libnl3

CFLAGS_HOST  := $(CSTD) $(OPT) $(WARN) $(HARDEN) -fPIE $(SAN) -Icommon -I$(BUILD)/gen $(NL_CFLAGS)
LDFLAGS_HOST := -pie -Wl,-z,relro,-z,now $(SAN)
# -ffunction-sections with --gc-sections at the link: each static binary keeps
# only the common/ code it calls (cordon-inner uses a fraction of it).
CFLAGS_MUSL  := $(CSTD) -O2 -g $(WARN) -fstack-protector-strong -ftrivial-auto-var-init=zero -fPIE \
                -ffunction-sections -fdata-sections \
                -Icommon -I$(BUILD)/gen \
                -I$(BUILD)/musl-include -I$(BUILD)/musl-include/libnl3

# Each binary's sources, named: a new file is added here on purpose.
COMMON_SRC := common/argv.c common/err.c common/fdpass.c common/grow.c common/json_out.c \
              common/path.c \
              common/seccomp_bpf.c common/seccomp_policy.c common/seccomp_table.c \
              common/sys.c common/wire.c common/wire_bridge.c common/wire_guardian.c \
              common/termsafe.c common/wstatus.c
# fortify_shim.c stands in for glibc's checked functions in the musl builds
# only (the glibc builds have the real ones).
FORTIFY_SHIM := common/fortify_shim.c
OUTER_SRC  := outer/doctor.c outer/explain.c outer/explain_path.c outer/explain_print.c \
              outer/outcome.c outer/prepare.c outer/procstat.c \
              outer/prefix.c outer/report.c outer/run.c outer/supervise.c outer/termrelay.c outer/toolenv.c \
              outer/observe/budgets.c outer/observe/gitrefs.c outer/observe/nesting.c outer/observe/netnote.c \
              outer/observe/protect_watch.c outer/observe/rootcheck.c outer/observe/findings.c \
              outer/observe/observe.c outer/observe/status.c \
              outer/input/cli.c outer/input/policy.c outer/input/policy_out.c \
              outer/plan/bwrap_argv.c outer/plan/caches.c outer/plan/cgroup_pick.c outer/plan/env.c outer/plan/fstype.c \
              outer/plan/gitdir.c outer/plan/gitaudit.c outer/plan/gitend.c outer/plan/gitlinked.c outer/plan/gitmeta.c outer/plan/limits.c outer/plan/mount_plan.c outer/plan/offline.c \
              outer/plan/pins.c outer/plan/policy_view.c outer/plan/prefix_decide.c outer/plan/shared_counts.c outer/plan/protect_decide.c outer/plan/linkwalk.c \
              outer/plan/resolve.c outer/plan/walk.c \
              outer/plan/procmode.c outer/plan/pathquery.c \
              outer/hostpaths/caches.c outer/hostpaths/cgroup.c outer/hostpaths/privdir.c \
              outer/hostpaths/entrypath.c outer/hostpaths/guardian.c outer/hostpaths/guardian_scan.c outer/hostpaths/protect.c outer/hostpaths/protect_apply.c outer/hostpaths/protect_gather.c outer/hostpaths/protect_git.c outer/hostpaths/gitmode.c outer/hostpaths/gitstate.c outer/hostpaths/gitaudit.c outer/hostpaths/gitlinks.c outer/hostpaths/protect_materialize.c \
              outer/hostpaths/reclaim.c outer/hostpaths/record.c outer/hostpaths/registry.c \
              outer/hostpaths/registry_carve.c outer/hostpaths/registry_io.c \
              outer/hostpaths/protect_quarantine.c outer/hostpaths/registry_sweep.c outer/hostpaths/userfile.c \
              outer/launch/bridge.c outer/launch/bwrap.c outer/launch/bwrap_find.c outer/launch/child.c outer/launch/vclone.c \
              outer/launch/inner_find.c outer/launch/inner_link.c outer/launch/pty.c \
              outer/launch/detach.c outer/launch/forkcall.c outer/launch/sandbox_limits.c \
              outer/launch/procprobe.c outer/launch/gitcount.c \
              outer/launch/userns.c
INNER_SRC  := inner/binds.c inner/caps.c inner/landlock.c inner/listen.c inner/netcheck.c \
              inner/pid1.c inner/spawn.c inner/unixsup.c inner/usock_addr.c inner/usock_set.c \
              inner/hostpidns.c inner/standin.c
BRIDGE_SRC := bridge/addr.c bridge/allow.c bridge/chunked.c bridge/confine.c bridge/conn.c bridge/decision.c \
              bridge/host.c bridge/intake.c bridge/loop.c bridge/netlog.c bridge/proto_http.c bridge/proto_http_response.c bridge/http_lex.c \
              bridge/proto_socks5.c bridge/relay.c bridge/resolve.c bridge/upstream.c
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))

HOBJ = $(BUILD)/host
MOBJ = $(BUILD)/musl
COMMON_HOBJ := $(COMMON_SRC:%.c=$(HOBJ)/%.o)
OUTER_HOBJ  := $(OUTER_SRC:%.c=$(HOBJ)/%.o)
INNER_HOBJ  := $(INNER_SRC:%.c=$(HOBJ)/%.o)
BRIDGE_HOBJ := $(BRIDGE_SRC:%.c=$(HOBJ)/%.o)
# libseccomp is needed only to compile the filter at build time (see
# common/seccomp_bpf.h): cordon and cordon-inner link without it.
SECCOMP_COMPILER := common/seccomp_policy.c
RUNTIME_COMMON := $(filter-out $(SECCOMP_COMPILER),$(COMMON_SRC))
INNER_MOBJ  := $(RUNTIME_COMMON:%.c=$(MOBJ)/%.o) $(INNER_SRC:%.c=$(MOBJ)/%.o) \
               $(MOBJ)/inner/main.o $(MOBJ)/common/fortify_shim.o
BRIDGE_MOBJ := $(RUNTIME_COMMON:%.c=$(MOBJ)/%.o) $(BRIDGE_SRC:%.c=$(MOBJ)/%.o) $(MOBJ)/bridge/main.o
CONNECT_MOBJ := $(MOBJ)/connect/main.o $(MOBJ)/common/sys.o
OUTER_MOBJ  := $(MOBJ)/outer/main.o $(OUTER_SRC:%.c=$(MOBJ)/%.o) $(RUNTIME_COMMON:%.c=$(MOBJ)/%.o) \
               $(MOBJ)/common/fortify_shim.o
UNIT_BIN    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
HELPER_BIN  := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)

# Compiler flags are part of what an object is built from: each object
# depends on a stamp holding its compiler and flags, rewritten (at parse
# time, without running anything) only when they change, so `make OPT=-O0`
# or `make SAN=...` rebuilds what it must and nothing when they are unchanged.
FLAGS_HOST_TEXT := $(CC) $(CFLAGS_HOST) $(LDFLAGS_HOST)
FLAGS_MUSL_TEXT := $(MUSLCC) $(CFLAGS_MUSL)
HOST_STAMP := $(BUILD)/flags.host
MUSL_STAMP := $(BUILD)/flags.musl
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(file <$(HOST_STAMP)),$(FLAGS_HOST_TEXT))
$(shell mkdir -p $(BUILD))
$(file >$(HOST_STAMP),$(FLAGS_HOST_TEXT))
endif
ifneq ($(file <$(MUSL_STAMP)),$(FLAGS_MUSL_TEXT))
$(shell mkdir -p $(BUILD))
$(file >$(MUSL_STAMP),$(FLAGS_MUSL_TEXT))
endif
endif

# Quiet by default; `make V=1` shows every command.
Q := $(if $(V),,@)
say = $(if $(V),,@echo "  $(1)	$(2)")

HOST_LIBS := -lseccomp -lnl-route-3 -lnl-3 -ljansson
MUSL_LIBS := /usr/lib/x86_64-linux-gnu/libnl-route-3.a /usr/lib/x86_64-linux-gnu/libnl-3.a
# cordon reads policy files with Debian's jansson; its libjansson.a was
# compiled against glibc, like libnl's, and links into the musl build through
# common/fortify_shim.c (jansson calls only standard libc otherwise).
OUTER_MUSL_LIBS := /usr/lib/x86_64-linux-gnu/libjansson.a
GEN_HDR   := $(BUILD)/gen/seccomp_bpf_gen.h

# Keep objects make would otherwise treat as intermediate and delete.
.SECONDARY:

.PHONY: all deps demo check check-full check-exhaustive unit unit-build integration toolchains install clean lint check-asan bench fuzz \
        fuzz-smoke deb check-package check-container
all: $(BUILD)/cordon $(BUILD)/cordon-inner $(BUILD)/cordon-bridge $(BUILD)/cordon-connect $(HELPER_BIN)

deps:
	@scripts/deps.sh
	@scripts/agents-setup.sh

# The README's first command: install, build, run one sandboxed command.
demo:
	@scripts/deps.sh --run
	@$(MAKE) -s all
	@scripts/demo.sh

# outer/ includes its headers with their folder ("plan/mount_plan.h").
$(HOBJ)/outer/%.o $(MOBJ)/outer/%.o: DIR_INC := -Iouter

$(HOBJ)/%.o: %.c $(HOST_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_HOST) $(DIR_INC) -MMD -MP -c $< -o $@

# cordon is a static PIE against musl: an agent pays its start on every
# command, and a static binary starts in a third of the time glibc's dynamic
# loader takes (0.4 ms against 1.0 ms here, scripts/bench-startup.sh); nothing
# in the caller's environment (LD_PRELOAD, LD_LIBRARY_PATH) reaches it.  The
# sanitizer build (SAN set) links the same sources against glibc instead.
MUSL_LIBDIR := /usr/lib/x86_64-linux-musl
MUSL_PIE_LINK_LIBS = $(CC) -static-pie -nostdlib -Wl,-z,relro,-z,now -Wl,--build-id -Wl,--gc-sections -o $@ \
	$(MUSL_LIBDIR)/rcrt1.o $(MUSL_LIBDIR)/crti.o $$($(CC) -print-file-name=crtbeginS.o) \
	$^ $(OUTER_MUSL_LIBS) -L$(MUSL_LIBDIR) -lc $$($(CC) -print-libgcc-file-name) \
	$$($(CC) -print-file-name=crtendS.o) $(MUSL_LIBDIR)/crtn.o
ifeq ($(SAN),)
$(BUILD)/cordon: $(OUTER_MOBJ)
	$(call say,LD,$@)
	$(Q)$(MUSL_PIE_LINK_LIBS)
	@file -L $@ | grep -q 'static-pie linked' || { echo "cordon: $@ is not a static PIE" >&2; exit 1; }
else
$(BUILD)/cordon: $(HOBJ)/outer/main.o $(OUTER_HOBJ) $(RUNTIME_COMMON:%.c=$(HOBJ)/%.o)
	$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS_HOST) -o $@ $^ -ljansson
endif

# Only what the generator uses: an edit elsewhere in common/ must not
# regenerate the filter (and recompile what embeds it).
SECCOMP_GEN_OBJ := $(addprefix $(HOBJ)/common/,err.o sys.o seccomp_policy.o seccomp_table.o)
$(BUILD)/seccomp-gen: scripts/seccomp_gen.c $(SECCOMP_GEN_OBJ) $(HOST_STAMP)
	$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_HOST) -o $@ $(filter %.c %.o,$^) $(LDFLAGS_HOST) -lseccomp

$(GEN_HDR): $(BUILD)/seccomp-gen
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)$(BUILD)/seccomp-gen > $@.tmp && mv $@.tmp $@

$(HOBJ)/common/seccomp_bpf.o $(MOBJ)/common/seccomp_bpf.o: $(GEN_HDR)

# The kernel headers musl-gcc needs (it searches only musl's own include dir)
# and libnl's headers, through one small include dir.
$(BUILD)/musl-include/.stamp-v2:
	@mkdir -p $(BUILD)/musl-include
	ln -sfn /usr/include/linux $(BUILD)/musl-include/linux
	ln -sfn /usr/include/x86_64-linux-gnu/asm $(BUILD)/musl-include/asm
	ln -sfn /usr/include/asm-generic $(BUILD)/musl-include/asm-generic
	ln -sfn /usr/include/libnl3 $(BUILD)/musl-include/libnl3
	ln -sfn /usr/include/jansson.h $(BUILD)/musl-include/jansson.h
	ln -sfn /usr/include/jansson_config.h $(BUILD)/musl-include/jansson_config.h
	@touch $@

$(MOBJ)/%.o: %.c $(BUILD)/musl-include/.stamp-v2 $(MUSL_STAMP)
	@mkdir -p $(dir $@)
	$(call say,MUSLCC,$@)
	$(Q)$(MUSLCC) $(CFLAGS_MUSL) $(DIR_INC) -MMD -MP -c $< -o $@

$(BUILD)/cordon-inner: $(INNER_MOBJ)
	$(call say,LD,$@)
	$(Q)$(MUSLCC) -static -Wl,--gc-sections -o $@ $^ $(MUSL_LIBS)
	@file -L $@ | grep -q 'statically linked' || { echo "cordon: $@ is not static" >&2; exit 1; }

# cordon-bridge: static musl too.  It resolves names with musl's resolver
# (/etc/hosts, then the nameservers of /etc/resolv.conf; no NSS modules), so
# nothing is loaded after it confined itself.
$(BUILD)/cordon-bridge: $(BRIDGE_MOBJ)
	$(call say,LD,$@)
	$(Q)$(MUSLCC) -static -Wl,--gc-sections -o $@ $^
	@file -L $@ | grep -q 'statically linked' || { echo "cordon: $@ is not static" >&2; exit 1; }

# cordon-connect HOST PORT: the CONNECT client ssh's ProxyCommand runs inside
# the sandbox (GIT_SSH_COMMAND), static so it runs whatever the sandbox hides.
$(BUILD)/cordon-connect: $(CONNECT_MOBJ)
	$(call say,LD,$@)
	$(Q)$(MUSLCC) -static -Wl,--gc-sections -o $@ $^
	@file -L $@ | grep -q 'statically linked' || { echo "cordon: $@ is not static" >&2; exit 1; }

$(BUILD)/unit/%: tests/unit/%.c $(OUTER_HOBJ) $(INNER_HOBJ) $(BRIDGE_HOBJ) $(COMMON_HOBJ) $(HOST_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CFLAGS_HOST) -Wno-missing-prototypes -Iouter -Iinner -Ibridge -Itests/unit -MMD -MP -o $@ \
	    $(filter %.c %.o,$^) \
	    $(LDFLAGS_HOST) -lcriterion $(HOST_LIBS)

# Small programs the integration tests run inside the sandbox (static, so
# they work whatever the sandbox hides).
$(BUILD)/helpers/%: tests/helpers/%.c $(BUILD)/musl-include/.stamp-v2 $(MUSL_STAMP)
	@mkdir -p $(dir $@)
	$(call say,MUSLCC,$@)
	$(Q)$(MUSLCC) $(CFLAGS_MUSL) -static -o $@ $<

unit-build: $(UNIT_BIN)
unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t --jobs 1; done

integration: all
	@BUILD=$(BUILD) tests/integration/run.sh

# Real toolchains (Go, Python, npm, cargo, git, make, rg), each scenario run
# directly and inside cordon, offline, as an unprivileged user.
toolchains: all
	@BUILD=$(BUILD) tests/toolchains/run.sh

# The same unit and integration tests once more, with cordon and the unit
# tests built under AddressSanitizer (with LeakSanitizer, so a leak in cordon
# fails the run that leaks) and UndefinedBehaviorSanitizer.  cordon-inner is
# static musl and stays unsanitized; its pure parts run sanitized in the
# unit tests through the glibc build of inner/.
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check-asan:
	$(MAKE) -j$(NPROC) BUILD=build-asan SAN="$(ASAN_FLAGS)" OPT="-O1 -g" all unit-build
	$(MAKE) BUILD=build-asan SAN="$(ASAN_FLAGS)" OPT="-O1 -g" unit integration

# Static analysis: cppcheck and clang-tidy (.clang-tidy), zero findings.
LINT_SRC := $(COMMON_SRC) $(FORTIFY_SHIM) $(wildcard outer/*.c outer/*/*.c) $(wildcard inner/*.c) \
	    $(wildcard bridge/*.c) $(wildcard connect/*.c)
LINT_DEFS := -D_GNU_SOURCE -DCORDON_VERSION='"lint"' -Icommon -Iouter -Iinner -Ibridge -I$(BUILD)/gen $(NL_CFLAGS)
lint: $(GEN_HDR)
	scripts/lint-layout.sh
	scripts/lint-forks.sh
	cppcheck -q -j$(NPROC) --std=c11 --error-exitcode=1 --enable=warning,style,performance,portability \
	    --inline-suppr --suppress=missingIncludeSystem -D__x86_64__ -D__linux__ \
	    -DSCMP_VER_MAJOR=2 -DSCMP_VER_MINOR=5 $(LINT_DEFS) $(LINT_SRC)
	@# One clang-tidy per file, NPROC at a time (it has no -j of its own).
	printf '%s\n' $(LINT_SRC) | xargs -P$(NPROC) -I{} clang-tidy --quiet {} -- -std=c11 $(LINT_DEFS)

# libFuzzer harnesses, one per parser of untrusted input (tests/fuzz/fuzz_*.c):
# each is linked with clang against every host source (compiled once more,
# instrumented).  Each starts from its seeds (tests/fuzz/seeds/NAME/: read,
# never written; what a run finds goes to build/fuzz/NAME.corpus).
# `make check` runs each for FUZZ_SMOKE_SECONDS: that the harnesses build,
# that every seed passes and a few seconds find nothing; `make fuzz` runs
# each for FUZZ_SECONDS (the README has a long run's figures).
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_SMOKE_SECONDS ?= 3
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FOBJ          = $(BUILD)/fuzz-obj
FUZZ_CFLAGS  := $(CSTD) -O1 -g $(filter-out -Wno-format-truncation,$(WARN)) -fno-omit-frame-pointer \
                -fsanitize=address,undefined -fsanitize=fuzzer-no-link \
                -Icommon -I$(BUILD)/gen $(NL_CFLAGS)
FUZZ_OBJ     := $(patsubst %.c,$(FOBJ)/%.o,$(COMMON_SRC) $(OUTER_SRC) $(INNER_SRC) $(BRIDGE_SRC))
FLAGS_FUZZ_TEXT := $(FUZZ_CC) $(FUZZ_CFLAGS)
FUZZ_STAMP   := $(BUILD)/flags.fuzz
ifneq ($(filter fuzz fuzz-smoke $(BUILD)/fuzz/%,$(MAKECMDGOALS)),)
ifneq ($(file <$(FUZZ_STAMP)),$(FLAGS_FUZZ_TEXT))
$(shell mkdir -p $(BUILD))
$(file >$(FUZZ_STAMP),$(FLAGS_FUZZ_TEXT))
endif
endif
$(FOBJ)/outer/%.o: DIR_INC := -Iouter
$(FOBJ)/%.o: %.c $(FUZZ_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CLANG,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DIR_INC) -MMD -MP -c $< -o $@
$(FOBJ)/common/seccomp_bpf.o: $(GEN_HDR)
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ) $(FUZZ_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CLANG,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-missing-prototypes -fsanitize=fuzzer -Iouter -Iinner -Ibridge \
	    -MMD -MP -o $@ $(filter %.c %.o,$^) $(HOST_LIBS)
FUZZ_RUN = set -e; for f in $(FUZZ_BIN); do \
	    echo "== $$f ($(1) s)"; mkdir -p $$f.corpus; \
	    $$f -max_total_time=$(1) -print_final_stats=1 $$f.corpus \
	        tests/fuzz/seeds/$${f\#\#*/}; done
fuzz: $(FUZZ_BIN)
	@$(call FUZZ_RUN,$(FUZZ_SECONDS))
fuzz-smoke: $(FUZZ_BIN)
	@$(call FUZZ_RUN,$(FUZZ_SMOKE_SECONDS))

# The Debian package: build/cordon_VERSION_amd64.deb (scripts/make-deb.sh:
# dpkg-buildpackage and debian/, lintian without errors).
deb:
	@scripts/deps.sh --package
	@scripts/make-deb.sh

# The package installed into a clean Debian 12 root made with debootstrap
# from the archive (about 35 s here; the last step of `make check`, as
# root): doctor and the demo as root and as a user there, then removed, and
# nothing of cordon left (scripts/check-package.sh).
check-package: deb
	@scripts/check-package.sh build/cordon_$(VERSION)_amd64.deb

# cordon inside a real container engine (podman from Debian, an image made
# with debootstrap and kept): podman's defaults, systempaths=unconfined,
# --cap-drop ALL and --read-only, as root and as a user in the container
# (scripts/check-container.sh, as root; slow the first time: not in check).
check-container: all
	@scripts/deps.sh --full
	@scripts/check-container.sh

# `make check`: every stage timed (scripts/stage.sh); the table of stage
# times is printed at the end, and where it stopped when a stage failed.
# Builds run NPROC jobs; the integration suite runs its files side by side
# (tests/integration/run.sh, CORDON_TEST_JOBS).  The exhaustive runs that do
# not fit CI's budget are `make check-full` (README, "Tests").
STAGES = $(BUILD)/stage-times
STAGE = scripts/stage.sh $(STAGES)
check:
	@mkdir -p $(BUILD) && rm -f $(STAGES)
	@$(STAGE) deps scripts/deps.sh
	@$(STAGE) agents scripts/agents-setup.sh
	@$(STAGE) build $(MAKE) -s -j$(NPROC) all
	@$(STAGE) lint $(MAKE) -s lint
	@$(STAGE) unit $(MAKE) -s -j$(NPROC) unit
	@$(STAGE) fuzz-smoke $(MAKE) -s -j$(NPROC) fuzz-smoke
	@$(STAGE) integration $(MAKE) -s integration
	@$(STAGE) toolchains $(MAKE) -s toolchains
	@$(STAGE) sanitizers $(MAKE) -s check-asan
	@$(STAGE) package $(MAKE) -s check-package
	@$(STAGE) --summary

# The exhaustive runs that do not fit CI's budget (README, "Tests"): after
# make check, every integration file in every pass with every case the
# budget runs once (CORDON_TEST_FULL=1), the sanitizer pass as both users,
# each fuzzer for FUZZ_FULL_SECONDS, 500 kills of cordon at start-up in
# each protect-missing mode, and cordon inside a real container engine
# (check-container, when the tree has it).  Run it before resolving an
# issue that touches what these cover.
FUZZ_FULL_SECONDS ?= 60
check-full: check check-exhaustive
check-exhaustive: all
	@$(STAGE) full-integration env CORDON_TEST_FULL=1 $(MAKE) -s integration
	@$(STAGE) full-sanitizers env CORDON_TEST_FULL=1 $(MAKE) -s check-asan
	@$(STAGE) fuzz-long $(MAKE) -s -j$(NPROC) fuzz FUZZ_SECONDS=$(FUZZ_FULL_SECONDS)
	@$(STAGE) killloop-watch scripts/killloop.sh -n 500 -m watch
	@$(STAGE) killloop-mount scripts/killloop.sh -n 500 -m mount
	@if command -v gdb >/dev/null; then $(STAGE) killintent scripts/killintent.sh; fi
	@$(STAGE) container $(MAKE) -s check-container
	@$(STAGE) --summary

install: $(BUILD)/cordon $(BUILD)/cordon-inner $(BUILD)/cordon-bridge $(BUILD)/cordon-connect
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/cordon \
	    $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BUILD)/cordon $(DESTDIR)$(PREFIX)/bin/cordon
	# cordon-prefix and cordon-sh are cordon itself, told apart by the
	# name (outer/prefix.h): links beside it, relative, as the package has.
	ln -sfn cordon $(DESTDIR)$(PREFIX)/bin/cordon-prefix
	ln -sfn cordon $(DESTDIR)$(PREFIX)/bin/cordon-sh
	install -m 0644 doc/cordon-prefix.1 $(DESTDIR)$(PREFIX)/share/man/man1/cordon-prefix.1
	install -m 0644 doc/cordon-sh.1 $(DESTDIR)$(PREFIX)/share/man/man1/cordon-sh.1
	install -m 0755 $(BUILD)/cordon-inner $(DESTDIR)$(PREFIX)/libexec/cordon/cordon-inner
	install -m 0755 $(BUILD)/cordon-bridge $(DESTDIR)$(PREFIX)/libexec/cordon/cordon-bridge
	install -m 0755 $(BUILD)/cordon-connect $(DESTDIR)$(PREFIX)/libexec/cordon/cordon-connect
	install -m 0644 doc/cordon.1 $(DESTDIR)$(PREFIX)/share/man/man1/cordon.1

clean:
	rm -rf build build-asan

# The header dependencies the compiler wrote (-MMD), named from the object
# lists rather than searched for.
ALL_OBJ := $(COMMON_HOBJ) $(OUTER_HOBJ) $(INNER_HOBJ) $(BRIDGE_HOBJ) $(HOBJ)/outer/main.o \
           $(OUTER_MOBJ) $(INNER_MOBJ) $(BRIDGE_MOBJ) $(CONNECT_MOBJ) $(FUZZ_OBJ)
-include $(ALL_OBJ:.o=.d) $(UNIT_BIN:=.d) $(FUZZ_BIN:=.d)

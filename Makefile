# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
#   make            build build/xdpsteer (BPF object, skeleton, CLI)
#   make test       install what is missing, build, run every test
#   make unit       only the unit tests (tests/unit), no root needed
#   make prog-test  only the BPF program tests (tests/prog), as root
#   make ns-test    only the namespace tests (tests/ns), as root
#   T=NAME          with any of those four: only the test NAME, or the suite
#                   NAME (test_hash, test_lb.sh, fuzz); several: T="a b"
#                   (tests/run.sh --list shows the names; see tests/README.md)
#   make bench      benchmarks, each as a ratio to a baseline timed in the same run
#   make demo       veth/netns testbed: attach, send flows, show the spread, change targets
#   make install    install the CLI, man pages, bash completion, systemd unit and
#                   docs under PREFIX (default /usr/local), into DESTDIR if set;
#                   needs scdoc for the man pages, never installs a package
#   make uninstall  remove what make install installed (configurations stay)
#   make man        build the man pages (build/man/) from man/*.scd with scdoc
#   make docs       rewrite the docs' generated regions (synopses, the install
#                   tree) from the binary; tests/ns/test_docs.sh fails until run
#   make deps       install the Debian packages the project needs
#   make fuzz       differential fuzzing of the packet path (FUZZ_SECONDS=N, default: until ^C)
#   make check      static analysis, valgrind on the CLI, BPF load with clang 19
#   SANITIZE=1      build with ASan and UBSan into build-san/ (make test SANITIZE=1)
#   ARCH=arm64      build for arm64 (x86 or arm64; default: the host's); on an
#                   x86 host a cross-build into build-arm64/ (CROSS=aarch64-linux-gnu-
#                   likewise), built only, never run (docs/install.md, "arm64")
#   V=1             show the full commands
#
# clang 14 (Debian 12's default) is the BPF compiler: it is always installed
# with `clang`, and it emits the smallest program of the three installable
# versions (docs/design.md, "BPF compiler and verifier budget"); clang 19's
# program measured no faster (docs/performance.md, "The BPF compiler").
# Override with BPF_CLANG=clang-19.

BPF_CLANG ?= clang
CC ?= cc
BPFTOOL ?= bpftool
# A sanitized build lives in its own directory: its objects must never be
# linked with uninstrumented ones, and switching back and forth must not force
# a rebuild of either.
ifeq ($(SANITIZE),1)
BUILD := build-san
else
BUILD := build
endif

# The target: ARCH=x86 or ARCH=arm64, by default this host's (or CROSS's).
# It picks the program's memory-order code (bpf/xs_order.h), so the program
# and the CLI that embeds it are built for the same one. Another host's
# ARCH cross-builds (docs/install.md, "arm64") with CROSS=TRIPLET-, into
# BUILD-ARCH, never touching the native build: the CLI by $(CROSS)gcc if
# installed, else by clang --target (Debian 12's gcc-multilib, which the BPF
# build needs for <asm/types.h>, conflicts with gcc-aarch64-linux-gnu), the
# libraries from the multiarch packages (tests/deps.sh).
XS_TRIPLET_x86 := x86_64-linux-gnu
XS_TRIPLET_arm64 := aarch64-linux-gnu
xs_arch_of = $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(1)))
HOST_ARCH := $(call xs_arch_of,$(shell uname -m))
ifneq ($(CROSS),)
ARCH ?= $(call xs_arch_of,$(firstword $(subst -, ,$(CROSS))))
endif
ARCH ?= $(HOST_ARCH)
ifeq ($(XS_TRIPLET_$(ARCH)),)
$(error ARCH=$(ARCH): xdpsteer builds for x86 or arm64 (docs/install.md))
endif
ifneq ($(ARCH),$(HOST_ARCH))
CROSS ?= $(XS_TRIPLET_$(ARCH))-
endif
PKG_CONFIG := pkg-config
ifneq ($(CROSS),)
BUILD := $(BUILD)-$(ARCH)
ifeq ($(origin CC),default)
CC := $(if $(shell command -v $(CROSS)gcc),$(CROSS)gcc,clang --target=$(XS_TRIPLET_$(ARCH)))
endif
ifeq ($(origin AR),default)
AR := $(CROSS)ar
endif
PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/$(XS_TRIPLET_$(ARCH))/pkgconfig:/usr/share/pkgconfig pkg-config
XS_RUNS_HERE := test unit prog-test ns-test bench demo check fuzz docs completion install
ifneq ($(filter $(XS_RUNS_HERE),$(MAKECMDGOALS)),)
$(error make $(filter $(XS_RUNS_HERE),$(MAKECMDGOALS)) runs what it builds: not with ARCH=$(ARCH) on this $(HOST_ARCH) host; make ARCH=$(ARCH) builds $(BUILD)/xdpsteer only)
endif
endif

ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# json-c writes every --json document (escaped, built whole, printed once).
PKGS := libbpf libxdp json-c
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -Iinclude -Iuser/lib -Iuser/sim \
	-Iuser/agent -I$(BUILD) $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS) -lelf -lz -lm

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Iinclude -Wall -Wno-unused-function

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
SKEL := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))
HEADERS := $(wildcard include/*.h bpf/*.h user/*/*.h)

# The bench-only "big" build (make bench, in $(BUILD)/big): the same sources
# with larger limits, so bench_apply can time 65536 targets. A full pool of
# 65536 weight-1 backends needs room to reweight one up (131072 buckets), and
# 65536 backend lines are about 2.4 MB. The limits are #ifndef-guarded in
# include/xdpsteer.h and user/config.h; the program and the CLI get the same.
BIG_LIMITS := -DXS_MAX_BACKENDS=65536 -DXS_MAX_BUCKETS=131072 -DXS_CFG_MAX_SIZE=8388608
# XS_DEFS: extra -D flags for the program and the CLI alike, into another
# BUILD directory (tests/ns/test_upgrade.sh builds a layout-changed object so).
CFLAGS += $(XS_DEFS)
BPF_CFLAGS += $(XS_DEFS)
ifeq ($(XS_BIG),1)
CFLAGS += $(BIG_LIMITS)
BPF_CFLAGS += $(BIG_LIMITS)
endif

# Four layers, a folder each: user/lib (libxdpsteer.a: the model, the maps,
# the transactions), user/sim (libxssim.a: the simulator), user/agent
# (libxsagent.a: the daemon that follows etcd or files and talks to bird2)
# and user/cmd (the command line, linked into build/xdpsteer with the three).
# Only the agent needs libcurl, json-c (docs/fleet.md says why) and
# libmicrohttpd (its /metrics, docs/install.md), so only the CLI links them;
# the tests link the other two archives.
LIB_SRC := $(wildcard user/lib/*.c)
LIB_OBJ := $(patsubst user/%.c,$(BUILD)/user/%.o,$(LIB_SRC))
SIM_SRC := $(wildcard user/sim/*.c)
SIM_OBJ := $(patsubst user/%.c,$(BUILD)/user/%.o,$(SIM_SRC))
AGENT_SRC := $(wildcard user/agent/*.c)
AGENT_OBJ := $(patsubst user/%.c,$(BUILD)/user/%.o,$(AGENT_SRC))
AGENT_PKGS := libcurl json-c libmicrohttpd
AGENT_LIBS := $(shell $(PKG_CONFIG) --libs $(AGENT_PKGS) 2>/dev/null)
CFLAGS += $(shell $(PKG_CONFIG) --cflags $(AGENT_PKGS) 2>/dev/null)
CMD_SRC := $(wildcard user/cmd/*.c)
CMD_OBJ := $(patsubst user/%.c,$(BUILD)/user/%.o,$(CMD_SRC))
LIBS := $(BUILD)/libxssim.a $(BUILD)/libxdpsteer.a
CLI := $(BUILD)/xdpsteer

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/*.c))
PROG_TESTS := $(patsubst tests/prog/%.c,$(BUILD)/tests/%,$(wildcard tests/prog/*.c))
# Helpers linked into a bench, not benches themselves.
BENCH_HELPERS := tests/bench/map_count.c
BENCHES := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(filter-out %.bpf.c $(BENCH_HELPERS),$(wildcard tests/bench/*.c)))
BENCH_BPF := $(patsubst tests/bench/%.bpf.c,$(BUILD)/bench/%.bpf.o,$(wildcard tests/bench/*.bpf.c))

.PHONY: all deps test unit prog-test ns-test bench demo check clean format fuzz fuzz-corpus \
	install uninstall man completion docs FORCE
.DELETE_ON_ERROR:
# Kept: the fuzzer and checks build from them after the CLI is linked.
.SECONDARY: $(BPF_OBJS) $(SKEL)

all: $(CLI)

deps:
	$(Q)tests/deps.sh

$(BUILD) $(BUILD)/user/lib $(BUILD)/user/sim $(BUILD)/user/agent $(BUILD)/user/cmd $(BUILD)/tests $(BUILD)/bench:
	$(Q)mkdir -p $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(HEADERS) | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

$(BUILD)/user/%.o: user/%.c $(SKEL) $(HEADERS) | $(BUILD)/user/lib $(BUILD)/user/sim $(BUILD)/user/agent $(BUILD)/user/cmd
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libxdpsteer.a: $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/libxssim.a: $(SIM_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# What `xdpsteer version` prints: the release (the VERSION file), and when
# built from git the tree's description too, "1.4.0 (git v1.4.0-12-gabc1234)"
# (a release tarball has no .git: the release alone); the libxdp it was built
# against (libxdp 1.3 has no run-time version call), and the SHA-256 of each
# BPF object, the very bytes its skeleton embeds. Regenerated on every make,
# rewritten only when it changes, so only the version command and the build
# record (build_rec.c) recompile.
XS_RELEASE := $(or $(shell cat VERSION 2>/dev/null),unknown)
XS_GIT := $(shell [ -e .git ] && git describe --tags --always --dirty 2>/dev/null)
XS_VERSION := $(XS_RELEASE)$(if $(XS_GIT), (git $(XS_GIT)))

$(BUILD)/xs_version.h: FORCE $(BPF_OBJS) | $(BUILD)
	$(Q){ printf '#define XS_VERSION "%s"\n' '$(XS_VERSION)'; \
	  printf '#define XS_RELEASE "%s"\n#define XS_GIT "%s"\n' '$(XS_RELEASE)' '$(XS_GIT)'; \
	  printf '#define XS_LIBXDP_VERSION "%s"\n' "$$($(PKG_CONFIG) --modversion libxdp 2>/dev/null || echo unknown)"; \
	  printf '#define XS_BPF_OBJECTS'; \
	  for o in $(BPF_OBJS); do \
	    printf ' { "%s", "%s" },' "$${o##*/}" "$$(sha256sum < $$o | cut -d' ' -f1)"; \
	  done; echo; } > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/user/cmd/cmd_version.o $(BUILD)/user/lib/build_rec.o: $(BUILD)/xs_version.h

$(BUILD)/libxsagent.a: $(AGENT_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(CLI): $(CMD_OBJ) $(BUILD)/libxsagent.a $(LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(AGENT_LIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c tests/test.h tests/prog/pkt.h $(HEADERS) $(LIBS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests $< $(LIBS) $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/prog/%.c tests/test.h tests/prog/*.h $(HEADERS) $(SKEL) $(LIBS) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests -Itests/prog $< $(LIBS) $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/%.bpf.o: tests/bench/%.bpf.c | $(BUILD)/bench
	$(call msg,BPF,$@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/%: tests/bench/%.c tests/bench/*.h tests/prog/*.h $(HEADERS) $(SKEL) $(LIBS) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests -Itests/prog $< $(LIBS) $(LDFLAGS) $(LDLIBS) -o $@

# bench_apply counts the map calls libxdpsteer.a makes by wrapping them at
# link time (tests/bench/map_count.c), so the library itself is not changed.
APPLY_WRAPS := bpf_map_update_elem bpf_map_delete_elem bpf_map_update_batch \
	bpf_map_delete_batch bpf_map_create bpf_map_freeze bpf_obj_pin \
	bpf_map_lookup_elem bpf_map_lookup_batch bpf_map_get_next_key bpf_map_get_fd_by_id \
	bpf_obj_get_info_by_fd bpf_btf_get_fd_by_id btf__load_from_kernel_by_id xs_neigh_manage

$(BUILD)/bench/bench_apply: tests/bench/bench_apply.c $(BENCH_HELPERS) tests/bench/*.h tests/prog/*.h $(HEADERS) $(SKEL) $(LIBS) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests -Itests/prog $< $(BENCH_HELPERS) $(LIBS) \
		$(LDFLAGS) $(foreach f,$(APPLY_WRAPS),-Wl,--wrap=$(f)) $(LDLIBS) -o $@

# The fuzzer is built by clang with libFuzzer, ASan and UBSan, and compiles
# the library sources itself so nothing in it is uninstrumented.
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-Wall -Wno-unused-parameter -std=gnu11 -Iinclude -I$(BUILD) -Itests -Itests/prog -Iuser/lib \
	$(PKG_CFLAGS)
FUZZ := $(BUILD)/fuzz/fuzz_xdp
FUZZ_LIB := $(LIB_SRC)

$(BUILD)/fuzz:
	$(Q)mkdir -p $@

$(FUZZ): tests/fuzz/fuzz_xdp.c tests/fuzz/*.h tests/prog/*.h $(HEADERS) $(FUZZ_LIB) $(SKEL) | $(BUILD)/fuzz
	$(call msg,FUZZCC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) $< $(FUZZ_LIB) $(PKG_LIBS) -lelf -lz -lm -o $@

$(BUILD)/fuzz/gen_corpus: tests/fuzz/gen_corpus.c tests/prog/pkt.h | $(BUILD)/fuzz
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -Itests/prog $< -o $@

# Regenerate the committed seed corpus (after changing gen_corpus.c).
fuzz-corpus: $(BUILD)/fuzz/gen_corpus
	$(Q)rm -f tests/fuzz/corpus/* && $< tests/fuzz/corpus

fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ)
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)

# Each builds what its kind needs and runs tests/run.sh on that kind; T picks
# one test (or suite) by name, and a name that matches nothing fails.
RUN_T := $(addprefix -t ,$(T))
# The build step of a test target says what it builds, not "is up to date".
TEST_MAKE := $(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s)

test: deps
	$(Q)$(TEST_MAKE) all $(UNIT_TESTS) $(PROG_TESTS) $(FUZZ)
	$(Q)XS_BUILD=$(BUILD) tests/run.sh all $(RUN_T)

unit: deps
	$(Q)$(TEST_MAKE) $(UNIT_TESTS)
	$(Q)XS_BUILD=$(BUILD) tests/run.sh unit $(RUN_T)

prog-test: deps
	$(Q)$(TEST_MAKE) $(PROG_TESTS)
	$(Q)XS_BUILD=$(BUILD) tests/run.sh prog $(RUN_T)

ns-test: deps
	$(Q)$(TEST_MAKE) all
	$(Q)XS_BUILD=$(BUILD) tests/run.sh ns $(RUN_T)

# make check: static analysis, valgrind on the CLI, and the BPF object built by
# clang 14 and clang 19 (each into its own directory, whatever BPF_CLANG is)
# and loaded. Valgrind cannot run ASan binaries, so it wants the plain build.
CHECK_CLANGS := clang-14 clang-19
CHECK_BPF := $(foreach c,$(CHECK_CLANGS),$(patsubst bpf/%.bpf.c,$(BUILD)/$(c)/%.bpf.o,$(BPF_SRCS)))
CHECK_TOOLS := $(BUILD)/check/verified_insns

$(foreach c,$(CHECK_CLANGS),$(BUILD)/$(c)) $(BUILD)/check:
	$(Q)mkdir -p $@

define check_bpf_rule
$(BUILD)/$(1)/%.bpf.o: bpf/%.bpf.c $(HEADERS) | $(BUILD)/$(1)
	$$(call msg,BPF,$$@)
	$(Q)$(1) $(BPF_CFLAGS) -c $$< -o $$@
endef
$(foreach c,$(CHECK_CLANGS),$(eval $(call check_bpf_rule,$(c))))

$(BUILD)/check/verified_insns: tests/check/verified_insns.c | $(BUILD)/check
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(LDFLAGS) $(LDLIBS) -o $@

check: deps
ifeq ($(SANITIZE),1)
	$(error make check runs valgrind, which cannot run ASan binaries: drop SANITIZE=1)
endif
	$(Q)$(MAKE) --no-print-directory all $(CHECK_BPF) $(CHECK_TOOLS)
	$(Q)XS_BUILD=$(BUILD) tests/check/run.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BENCHES) $(BENCH_BPF)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/big XS_BIG=1 $(BUILD)/big/bench/bench_apply
	$(Q)tests/bench/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/demo.sh

# ---- install ---------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=/tmp/stage]: the CLI, its man pages,
# the bash completion it prints of itself, the agent's systemd unit and the
# docs. A plain `make` and `make install` never install packages (only the
# targets that run tests/deps.sh do); a missing scdoc is reported, not fetched.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/xdpsteer
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# systemd reads units from /usr/local/lib/systemd/system as well as /usr/lib/...
UNITDIR ?= $(PREFIX)/lib/systemd/system
# The agent's configurations: /etc/xdpsteer/IFACE.conf, whatever PREFIX is.
SYSCONFDIR ?= /etc
INSTALL ?= install
SCDOC ?= scdoc

MAN_PAGES := $(patsubst man/%.scd,$(BUILD)/man/%,$(wildcard man/*.scd))
COMPLETION := $(BUILD)/xdpsteer.bash
UNIT := $(BUILD)/xdpsteer-agent@.service
# README.md links docs/*.md: the same layout under DOCDIR keeps the links.
DOCS := $(wildcard docs/*.md docs/*.svg)

$(BUILD)/man:
	$(Q)mkdir -p $@

$(BUILD)/man/%: man/%.scd | $(BUILD)/man
	$(call msg,SCDOC,$@)
	$(Q)command -v $(SCDOC) >/dev/null || \
		{ echo "$(SCDOC) is needed for the man pages: apt-get install scdoc (or make deps)" >&2; exit 1; }
	$(Q)$(SCDOC) < $< > $@

man: $(MAN_PAGES)

$(COMPLETION): $(CLI)
	$(call msg,GEN,$@)
	$(Q)$(CLI) completion bash > $@

completion: $(COMPLETION)

# The synopses of docs/usage.md and xdpsteer(8) and docs/install.md's tree,
# between their marker lines, are what the binary and make install print
# (tests/ns/docs.py): after adding an option or a file, run make docs.
# The tree is staged with the default paths, the ones the docs show.
DOCS_STAGE := $(BUILD)/docs-stage
docs: $(CLI)
	$(Q)rm -rf $(DOCS_STAGE)
	$(Q)$(MAKE) --no-print-directory -s install DESTDIR=$(CURDIR)/$(DOCS_STAGE) PREFIX=/usr/local \
		SYSCONFDIR=/etc >/dev/null
	$(Q)python3 tests/ns/docs.py write --cli $(CLI) --stage $(DOCS_STAGE)
	$(Q)rm -rf $(DOCS_STAGE)

# Rebuilt every time: SBINDIR and SYSCONFDIR are make variables, not files.
$(UNIT): dist/xdpsteer-agent@.service FORCE | $(BUILD)
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< > $@

# The directories install makes, and a record of those it created (not there
# before), so that uninstall removes exactly those once empty: never a
# directory that was there already (Debian ships an empty /usr/local/sbin),
# never one that still holds a file (a configuration).
XS_LEAF_DIRS := $(SBINDIR) $(MANDIR)/man5 $(MANDIR)/man8 $(BASHCOMPDIR) $(UNITDIR) \
	$(DOCDIR)/docs $(SYSCONFDIR)/xdpsteer
XS_DIRS_RECORD := $(DOCDIR)/installed-dirs

install: $(CLI) $(MAN_PAGES) $(COMPLETION) $(UNIT)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)for d in $(XS_LEAF_DIRS); do \
		while [ -n "$$d" ] && [ ! -d "$(DESTDIR)$$d" ]; do echo "$$d"; d=$${d%/*}; done; \
	done > $(BUILD)/installed-dirs.new
	$(Q)$(INSTALL) -d -m 0755 $(DESTDIR)$(DOCDIR)
	$(Q)cat $(DESTDIR)$(XS_DIRS_RECORD) $(BUILD)/installed-dirs.new 2>/dev/null | sort -u \
		> $(BUILD)/installed-dirs && $(INSTALL) -m 0644 $(BUILD)/installed-dirs $(DESTDIR)$(XS_DIRS_RECORD)
	$(Q)$(INSTALL) -D -m 0755 $(CLI) $(DESTDIR)$(SBINDIR)/xdpsteer
	$(Q)for m in $(MAN_PAGES); do \
		s=$${m##*.}; $(INSTALL) -D -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; \
	done
	$(Q)$(INSTALL) -D -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/xdpsteer
	$(Q)$(INSTALL) -D -m 0644 $(UNIT) $(DESTDIR)$(UNITDIR)/xdpsteer-agent@.service
	$(Q)$(INSTALL) -D -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	$(Q)$(INSTALL) -d -m 0755 $(DESTDIR)$(DOCDIR)/docs
	$(Q)$(INSTALL) -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	$(Q)$(INSTALL) -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/xdpsteer

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(SBINDIR)/xdpsteer $(DESTDIR)$(BASHCOMPDIR)/xdpsteer \
		$(DESTDIR)$(UNITDIR)/xdpsteer-agent@.service \
		$(foreach m,$(MAN_PAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
		$(DESTDIR)$(DOCDIR)/README.md $(addprefix $(DESTDIR)$(DOCDIR)/,$(DOCS))
	$(Q)-rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(SYSCONFDIR)/xdpsteer 2>/dev/null || true
	@# Deepest first (a child sorts after its parent); rmdir keeps a non-empty one.
	$(Q)if [ -f $(DESTDIR)$(XS_DIRS_RECORD) ]; then \
		dirs=$$(sort -r $(DESTDIR)$(XS_DIRS_RECORD)); rm -f $(DESTDIR)$(XS_DIRS_RECORD); \
		for d in $$dirs; do rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done; \
	fi
	$(Q)-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null || true

format:
	clang-format -i include/*.h bpf/*.[ch] user/*/*.[ch] tests/*/*.[ch] tests/*.h

clean:
	rm -rf build build-san build-arm64 build-san-arm64 build-x86 build-san-x86

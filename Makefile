# KRSI appliance: one `make` builds the patched kernel, the BPF policies, the
# static musl tools and a busybox initramfs; `make run` boots it in QEMU and
# `make test` runs the test suite inside it.
#
# Everything built lands in $(BUILD) (gitignored) and, for the two bootable
# files, in image/. Quiet by default; `make V=1` shows the commands.
#
# `make ARCH=s390x` builds the same appliance for s390x (big-endian, no BPF
# trampoline in 6.1), cross-compiled, into build/s390x/ and image/s390x/;
# `make ARCH=s390x run` boots it, `make ARCH=s390x test` runs its suite.

BUILD        ?= build
KTARBALL     ?= /usr/src/linux-source-6.1.tar.xz
JOBS         ?= $(shell nproc)
ARCH         ?= x86_64

# The kernel tree is one for every architecture; what is built from it is
# in $(BUILD) (build/ for x86_64, build/s390x/ for s390x), the bootable
# files in $(IMAGE).
KSRC         := $(BUILD)/linux

ifeq ($(ARCH),x86_64)
IMAGE        := image
KARCH        := x86
KCROSS       :=
# The C compilers of the target: musl for the image's programs, glibc for
# those that link libelf (bpftool, the libbpf test).
MUSLCC       := musl-gcc
GLIBCC       := gcc
MUSL_LOADER  := /lib/ld-musl-x86_64.so.1
BUSYBOX      := /bin/busybox
BPF_TARGET   := -target bpf -D__TARGET_ARCH_x86
# How the host runs a program built for the target: as it is.
TARGET_RUN   :=
# The light skeletons are made by Debian's bpftool.
SKEL_BPFTOOL := bpftool
else ifeq ($(ARCH),s390x)
override BUILD := $(BUILD)/s390x
IMAGE        := image/s390x
KARCH        := s390
KCROSS       := s390x-linux-gnu-
# Debian has no musl cross compiler of its own, but musl-dev:s390x ships
# s390x-linux-musl-gcc, a specs file over gcc-s390x-linux-gnu: the same
# static musl programs as on x86_64.  glibc is gcc-s390x-linux-gnu's own.
MUSLCC       := s390x-linux-musl-gcc
GLIBCC       := s390x-linux-gnu-gcc
MUSL_LOADER  := /lib/ld-musl-s390x.so.1
# Debian's busybox-static, libelf and zlib for s390x, unpacked from their
# packages into $(DEBROOT) (tools/build/fetch-debs.sh).
DEBROOT      := $(BUILD)/debs/root
BUSYBOX      := $(DEBROOT)/bin/busybox
BPF_TARGET   := -target bpfeb -D__TARGET_ARCH_s390
TARGET_RUN   := qemu-s390x-static
DEBROOT_STAMP := $(BUILD)/debs/root.stamp
# libbpf and bpftool, built from the tree for s390x (the tools' name of the
# architecture is the kernel's).
TARGET_TOOLS_MAKE := ARCH=s390 CROSS_COMPILE=$(KCROSS) \
	EXTRA_CFLAGS="-I$(abspath $(DEBROOT))/usr/include"
TARGET_LDFLAGS := -L$(abspath $(DEBROOT))/usr/lib/s390x-linux-gnu
# The light skeletons are made by the tree's bpftool for s390x ($(BPFTOOL)
# below says why), under qemu-user.
# (A prerequisite list is expanded as it is read, before BPFTOOL is set:
# hence the path spelt out.)
SKEL_BPFTOOL  = $(TARGET_RUN) $(BPFTOOL)
SKEL_BPFTOOL_DEP := $(BUILD)/bpftool/bpftool
else
$(error ARCH=$(ARCH): this appliance is built for x86_64 or s390x)
endif

# Sub-makes (the kernel's, libbpf's, bpftool's) get the kernel's name of
# the architecture, never ours.
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

KOUT         := $(BUILD)/kernel
KIMAGE       := $(KOUT)/arch/$(KARCH)/boot/bzImage
SYSROOT      := $(BUILD)/sysroot
STAGING      := $(BUILD)/rootfs
BIN          := $(BUILD)/bin
GEN          := $(BUILD)/gen

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2)
endif

# ccache keyed on paths relative to the checkout, so that another clone of
# the project (CI's) hits the same cache entries.
export CCACHE_BASEDIR := $(abspath .)
export CCACHE_NOHASHDIR := 1

# Fixed build identity, so that a rebuild from the same inputs gives the same
# kernel and ccache can hit on init/version.c.
kmake = $(MAKE) -s -C $(KSRC) O=$(abspath $(1)) -j$(JOBS) \
	ARCH=$(KARCH) CROSS_COMPILE=$(KCROSS) \
	CC="ccache $(KCROSS)gcc" HOSTCC="ccache gcc" \
	KBUILD_BUILD_TIMESTAMP="2019-09-10" KBUILD_BUILD_USER=krsi \
	KBUILD_BUILD_HOST=appliance
KMAKE := $(call kmake,$(KOUT))

CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -g0 -D_GNU_SOURCE \
	   -isystem $(SYSROOT)/include -Itools/lib -Iprogs -I$(GEN)
LDFLAGS := -static -s

BPF_CFLAGS := $(BPF_TARGET) -O2 -g -Wall -Werror \
	      -I$(GEN) -I$(SYSROOT)/include -Iprogs

.PHONY: all kernel userspace run test test-build bench check-series selftests selftests-v1 deps \
	build-times \
	clean distclean help FORCE

# Keep intermediate files (BPF objects between sources and skeletons), so
# that a second make has nothing to do.
.SECONDARY:

# A recipe that fails leaves no target behind: a half-written header
# (gen-policy.sh refusing a summary, say) must not count as built.
.DELETE_ON_ERROR:

all: $(IMAGE)/bzImage $(IMAGE)/initramfs.cpio.gz

help:
	@echo "make            build image/bzImage and image/initramfs.cpio.gz"
	@echo "make run        install deps, build, boot in QEMU (./run-qemu.sh)"
	@echo "make test       install deps, build, run host and in-guest tests"
	@echo "                (x86_64's, then the s390x appliance's)"
	@echo "make ARCH=s390x [run|test|bench]  the same for s390x: build in"
	@echo "                build/s390x and image/s390x, boot, its suites alone"
	@echo "make bench      what KRSI costs per hooked call, against trampolines"
	@echo "make check-series  build the kernel after each patch, and without KRSI"
	@echo "make selftests  the kernel's BPF selftests with and without the series, compared"
	@echo "make selftests-v1  the series' KRSI selftests on v1 (6dbe1e6), where each must fail"
	@echo "make build-times   a cold build in a scratch dir, timed stage by stage"
	@echo "make deps       install the Debian packages the build needs"
	@echo "make clean      remove the user-space build (keeps the kernel)"
	@echo "make distclean  remove everything built, kernel tree included"

deps:
	$(Q)tools/build/install-deps.sh

run: deps all
	./run-qemu.sh --arch $(ARCH)

# make test: everything for x86_64, then the s390x appliance's suites
# (tests/run-tests.sh); make ARCH=s390x test: the s390x suites alone.
ifeq ($(ARCH),x86_64)
test: deps all test-build
	$(Q)$(MAKE) ARCH=s390x all test-build
	tests/run-tests.sh
else
test: deps all test-build
	tests/run-tests.sh --arch $(ARCH)
endif

# What KRSI costs per hooked call, against the kernel without it and against
# mainline's trampolines (tests/bench/run-bench.sh).
bench: deps all $(BUILD)/test/initramfs.cpio.gz
	tests/bench/run-bench.sh $(ARCH)

# The kernel's own BPF selftests (test_progs, test_verifier) on the patched
# kernel and on 6.1 without the series, built with the same
# configuration, compared (tools/build/selftests.sh).  About 50 min from
# nothing: not part of test.
selftests: deps all $(BUILD)/gen_init_cpio
	tools/build/selftests.sh $(KSRC) $(KOUT)/.config $(BUILD)/gen_init_cpio \
		$(BUILD)/selftests/full

# The series' KRSI selftests, the reproducers of what the review of v1
# found, on v1 itself (tools/build/selftests-v1.sh): two more kernels.
selftests-v1: deps all $(BUILD)/gen_init_cpio $(BPFTOOL) $(BUILD)/test/lockdown/acpi.cpio
	tools/build/selftests-v1.sh $(KSRC) $(KOUT)/.config $(BUILD)/gen_init_cpio \
		$(BPFTOOL) $(BUILD)/test/lockdown/acpi.cpio $(BUILD)/selftests/v1

# Where a cold build's time goes: everything make test needs, built again
# in $(BUILD)/build-times/ with an empty ccache (tools/build/build-times.sh).
build-times: deps
	tools/build/build-times.sh $(abspath $(BUILD))/build-times

# Every patch of the series builds on its own, and the whole series with
# CONFIG_SECURITY_BPF off: one kernel build per step, so not part of test.
check-series: deps $(BUILD)/kernel.stamp
	tools/build/check-series.sh $(KSRC) $(KOUT)/.config kernel/patches \
		$(BUILD)/series

# ---------------------------------------------------------------------------
# Kernel: Debian's tree + kernel/patches/series, tinyconfig + krsi.config
# + the architecture's own (kernel/$(ARCH).config).  Only these inputs
# rebuild it.
KCONFIGS      := kernel/krsi.config kernel/$(ARCH).config
# The cover letter is not applied: editing it rebuilds nothing.
KERNEL_INPUTS := $(KTARBALL) $(KCONFIGS) kernel/patches/series \
	$(filter-out %/0000-cover-letter.patch,$(wildcard kernel/patches/*.patch)) \
	tools/build/prepare-kernel.sh tools/build/check-config.sh

$(BUILD)/kernel.stamp: $(KERNEL_INPUTS)
	$(Q)mkdir -p $(KOUT)
	$(Q)date +%s >$(BUILD)/kernel.start
	$(Q)tools/build/prepare-kernel.sh $(KTARBALL) $(KSRC) kernel/patches
	$(call msg,CONFIG,$(KOUT)/.config)
	$(Q)$(KMAKE) tinyconfig >/dev/null
	$(Q)$(KSRC)/scripts/kconfig/merge_config.sh -m -O $(KOUT) \
		$(KOUT)/.config $(KCONFIGS) >$(KOUT)/merge_config.log 2>&1
	$(Q)$(KMAKE) olddefconfig >>$(KOUT)/merge_config.log 2>&1
	$(Q)for f in $(KCONFIGS); do tools/build/check-config.sh $$f $(KOUT)/.config || exit 1; done
	$(call msg,KERNEL,$(KIMAGE))
	$(Q)$(KMAKE) bzImage
	$(Q)rm -rf $(SYSROOT) && mkdir -p $(SYSROOT)
	$(call msg,HEADERS,$(SYSROOT)/include)
	$(Q)$(KMAKE) headers_install INSTALL_HDR_PATH=$(abspath $(SYSROOT)) >/dev/null
	$(Q)mkdir -p $(BUILD)/libbpf
	$(Q)$(MAKE) -s -C $(KSRC)/tools/lib/bpf \
		OUTPUT=$(abspath $(BUILD)/libbpf)/ \
		DESTDIR=$(abspath $(SYSROOT)) prefix= install_headers >/dev/null
	$(Q)echo "$$(( $$(date +%s) - $$(cat $(BUILD)/kernel.start) ))" >>$(BUILD)/kernel.times
	$(Q)touch $@

kernel: $(BUILD)/kernel.stamp

# The same kernel with KASAN, lockdep, PROVE_RCU and DEBUG_ATOMIC_SLEEP
# (kernel/debug.config), booted by `make test` to run the guest suite again.
KOUT_DEBUG := $(BUILD)/kernel-debug

$(BUILD)/kernel-debug.stamp: $(BUILD)/kernel.stamp kernel/debug.config
	$(Q)mkdir -p $(KOUT_DEBUG)
	$(call msg,CONFIG,$(KOUT_DEBUG)/.config)
	$(Q)$(KSRC)/scripts/kconfig/merge_config.sh -m -O $(KOUT_DEBUG) \
		$(KOUT)/.config kernel/debug.config \
		>$(KOUT_DEBUG)/merge_config.log 2>&1
	$(Q)$(call kmake,$(KOUT_DEBUG)) olddefconfig >>$(KOUT_DEBUG)/merge_config.log 2>&1
	$(Q)tools/build/check-config.sh kernel/debug.config $(KOUT_DEBUG)/.config
	$(call msg,KERNEL,$(KOUT_DEBUG)/arch/x86/boot/bzImage)
	$(Q)$(call kmake,$(KOUT_DEBUG)) bzImage
	$(Q)touch $@

# The same kernel without CONFIG_SECURITY_BPF_ENFORCE, booted by the tests in
# tests/guest-audit/ to check that programs then deny nothing.  Only the
# objects that depend on the option really compile; ccache has the rest.
KOUT_AUDIT := $(BUILD)/kernel-audit

$(BUILD)/kernel-audit.stamp: $(BUILD)/kernel.stamp kernel/audit-only.config
	$(Q)mkdir -p $(KOUT_AUDIT)
	$(call msg,CONFIG,$(KOUT_AUDIT)/.config)
	$(Q)$(KSRC)/scripts/kconfig/merge_config.sh -m -O $(KOUT_AUDIT) \
		$(KOUT)/.config kernel/audit-only.config \
		>$(KOUT_AUDIT)/merge_config.log 2>&1
	$(Q)$(call kmake,$(KOUT_AUDIT)) olddefconfig >>$(KOUT_AUDIT)/merge_config.log 2>&1
	$(Q)tools/build/check-config.sh kernel/audit-only.config $(KOUT_AUDIT)/.config
	$(call msg,KERNEL,$(KOUT_AUDIT)/arch/x86/boot/bzImage)
	$(Q)$(call kmake,$(KOUT_AUDIT)) bzImage
	$(Q)touch $@

$(IMAGE)/bzImage: $(BUILD)/kernel.stamp
	$(Q)mkdir -p $(IMAGE) && cp $(KIMAGE) $@

# The BTF of the kernel just built, as C, for CO-RE BPF programs.
$(GEN)/vmlinux.h: $(BUILD)/kernel.stamp
	$(call msg,BTF,$@)
	$(Q)mkdir -p $(GEN)
	$(Q)bpftool btf dump file $(KOUT)/vmlinux format c >$@

# ---------------------------------------------------------------------------
# BPF policies (progs/NAME.bpf.c) become light skeletons (NAME.lskel.h) that
# the static tools embed: no libelf, no .o files in the image.
POLICIES := $(sort $(patsubst progs/%.bpf.c,%,$(wildcard progs/*.bpf.c)))

$(GEN)/%.bpf.o: progs/%.bpf.c $(wildcard progs/*.h) $(GEN)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)clang $(BPF_CFLAGS) -c $< -o $@

$(GEN)/%.lskel.h: $(GEN)/%.bpf.o $(SKEL_BPFTOOL_DEP)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(SKEL_BPFTOOL) gen skeleton -L $< name $(subst -,_,$*) >$@

# Each policy's hooks and maps, for the krsi tool (tools/build/gen-policy.sh).
$(GEN)/%.policy.h: progs/%.bpf.c $(GEN)/%.bpf.o $(GEN)/%.lskel.h \
		tools/build/gen-policy.sh
	$(call msg,GEN,$@)
	$(Q)tools/build/gen-policy.sh $* $< $(GEN)/$*.bpf.o >$@

# The list of policies, rewritten only when a file is added or removed:
# removing one must rebuild policies.h, which no prerequisite's date says.
$(GEN)/policies.list: FORCE
	$(Q)mkdir -p $(GEN)
	$(Q)echo "$(POLICIES)" | cmp -s - $@ 2>/dev/null || echo "$(POLICIES)" >$@

$(GEN)/policies.h: $(GEN)/policies.list $(patsubst %,$(GEN)/%.policy.h,$(POLICIES))
	$(call msg,GEN,$@)
	$(Q){ echo "/* Generated by the Makefile from progs/: do not edit. */"; \
	  for p in $(POLICIES); do echo "#include \"$$p.policy.h\""; done; \
	  printf '#define KRSI_POLICIES(X)'; \
	  for p in $(POLICIES); do printf ' X(%s)' $$p; done; echo; \
	} >$@

# Each hook's return type and default, for `krsi hook`.
$(GEN)/hook_defaults.h: $(BUILD)/kernel.stamp tools/build/gen-hook-defaults.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(GEN)
	$(Q)tools/build/gen-hook-defaults.sh $(KSRC)/include/linux/lsm_hook_defs.h >$@

# ---------------------------------------------------------------------------
# Static musl tools: tools/NAME.c -> /usr/bin/NAME in the image, and the
# krsi command from tools/krsi/, which embeds the policies.
TOOLS    := $(patsubst tools/%.c,%,$(wildcard tools/*.c)) krsi
LIB_SRCS := $(wildcard tools/lib/*.c)
LIB_HDRS := $(wildcard tools/lib/*.h)
SKELS    := $(patsubst %,$(GEN)/%.lskel.h,$(POLICIES))

$(BIN)/%: tools/%.c $(LIB_SRCS) $(LIB_HDRS) $(SKELS) $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BIN)
	$(Q)$(MUSLCC) $(CFLAGS) $< $(LIB_SRCS) $(LDFLAGS) -o $@

$(BIN)/krsi: $(wildcard tools/krsi/*.c tools/krsi/*.h) $(LIB_SRCS) $(LIB_HDRS) \
		$(SKELS) $(GEN)/policies.h $(GEN)/hook_defaults.h $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BIN)
	$(Q)$(MUSLCC) $(CFLAGS) -Itools/krsi $(wildcard tools/krsi/*.c) \
		$(LIB_SRCS) $(LDFLAGS) -o $@

# tools/dynamic/NAME.c: linked against musl's shared libc, for what needs a
# program run by the dynamic loader.
DYN_TOOLS := $(patsubst tools/dynamic/%.c,%,$(wildcard tools/dynamic/*.c))

$(BIN)/%: tools/dynamic/%.c $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BIN)
	$(Q)$(MUSLCC) -std=c11 -Wall -Wextra -Werror -O2 -s $< -o $@

userspace: $(patsubst %,$(BIN)/%,$(TOOLS) $(DYN_TOOLS))

# ---------------------------------------------------------------------------
# bpftool, built from the patched tree so that it knows KRSI links (`bpftool
# link show` prints their hook), static with glibc, libelf and zlib, for
# /usr/sbin/bpftool in the image.  Without its BPF skeletons: they only give
# `prog profile`, which needs hardware counters QEMU's TCG does not have,
# and the pids of `show`, which costs a BPF iterator program loaded on every
# `show` (a BPF_PROG_LOAD that krsi_lock refuses, and reports, once locked);
# without them the build needs no clang, no vmlinux.h and no bootstrap
# bpftool.  FEATURES_DUMP=/dev/null skips bpftool's feature probes, so that
# the binary is the same whatever -dev packages the host has: no skeletons,
# no libbfd (JIT disassembly), no libcap.
#
# For s390x it is cross-built with Debian's libelf and zlib for s390x
# ($(DEBROOT)), and it is also what makes the light skeletons there, run
# on the host under qemu-user: 6.1's bpftool and libbpf cannot open an
# object of the other byte order, and the loader program a light skeleton
# carries must be in the target's byte order too, which a libbpf running
# big-endian writes as it is (mainline learnt cross-endian skeletons only
# later).
BPFTOOL := $(BUILD)/bpftool/bpftool

$(BPFTOOL): $(BUILD)/kernel.stamp $(DEBROOT_STAMP)
	$(call msg,BPFTOOL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MAKE) -s -C $(KSRC)/tools/bpf/bpftool $(TARGET_TOOLS_MAKE) \
		OUTPUT=$(abspath $(dir $@))/ FEATURES_DUMP=/dev/null \
		CC="ccache $(GLIBCC)" EXTRA_LDFLAGS="-static -s $(TARGET_LDFLAGS)" >/dev/null
	$(Q)touch $@

# ---------------------------------------------------------------------------
# Initramfs: busybox, rootfs/, init/init as /init, the tools, and bpftool in
# /usr/sbin.
ROOTFS_FILES := $(shell find rootfs init -type f 2>/dev/null)

$(BUILD)/gen_init_cpio: $(BUILD)/kernel.stamp
	$(Q)gcc -O2 -o $@ $(KSRC)/usr/gen_init_cpio.c

$(IMAGE)/initramfs.cpio.gz: $(ROOTFS_FILES) $(patsubst %,$(BIN)/%,$(TOOLS) $(DYN_TOOLS)) \
		$(BPFTOOL) $(BUILD)/gen_init_cpio tools/build/mkinitramfs.sh $(DEBROOT_STAMP)
	$(call msg,CPIO,$@)
	$(Q)mkdir -p $(IMAGE)
	$(Q)TARGET_RUN="$(TARGET_RUN)" tools/build/mkinitramfs.sh $(BUILD)/gen_init_cpio $@ \
		$(BUSYBOX) rootfs init/init $(BIN) $(MUSL_LOADER) \
		$(BPFTOOL)

# ---------------------------------------------------------------------------
# Tests: host unit tests of tools/lib, and a test initramfs that is the
# appliance's own with the in-guest tests appended as a second cpio archive
# (the kernel unpacks concatenated archives in order), so that what is tested
# is exactly what boots.
TEST_DIR     := $(BUILD)/test
HOST_TESTS   := $(patsubst tests/host/%.c,$(TEST_DIR)/host/%,$(wildcard tests/host/*.c))
GUEST_LIB    := tests/guest/lib.sh tests/guest/run-guest-tests.sh
GUEST_SH     := $(filter-out $(GUEST_LIB),$(wildcard tests/guest/*.sh))
GUEST_BINS   := $(patsubst tests/guest/%.c,$(TEST_DIR)/guest/%,$(wildcard tests/guest/*.c))
AUDIT_SH     := $(wildcard tests/guest-audit/*.sh)
AUDIT_BINS   := $(patsubst tests/guest-audit/%.c,$(TEST_DIR)/guest-audit/%,\
		$(wildcard tests/guest-audit/*.c))
DEBUG_BINS   := $(patsubst tests/guest-debug/%.c,$(TEST_DIR)/guest-debug/%,\
		$(wildcard tests/guest-debug/*.c))
# Run with audit_exec but not no_tmp_exec (krsi.tests=records), so that
# the audit guarantee is tested on its own, on programs from anywhere.
RECORDS_BINS := $(patsubst tests/guest-records/%.c,$(TEST_DIR)/guest-records/%,\
		$(wildcard tests/guest-records/*.c))
BOOT_SH      := $(wildcard tests/guest-boot/*.sh)
# Typed at the appliance's prompts by tests/exhaust-session.sh.
SESSION_SH   := $(wildcard tests/guest-session/*.sh)
BOOT_BINS    := $(patsubst tests/guest-boot/%.c,$(TEST_DIR)/guest-boot/%,\
		$(wildcard tests/guest-boot/*.c))
# Run by /init before `krsi lock` in the boot with krsi.tests=boot.
BOOT_SETUP   := $(TEST_DIR)/guest-boot-setup/before_lock
# Programs the tests run (tests/helpers/), in /tests but in no list.
HELPER_BINS  := $(patsubst tests/helpers/%.c,$(TEST_DIR)/helpers/%,\
		$(wildcard tests/helpers/*.c))
# The patched kernel's UAPI headers, as for the tools: tools/lib knows the
# KRSI link type, which the host's <linux/bpf.h> does not.
HOST_CFLAGS  := -std=c11 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE \
		-fsanitize=address,undefined -fno-omit-frame-pointer \
		-isystem $(SYSROOT)/include -Itools/lib -Iprogs -Itests/lib

$(TEST_DIR)/host/%: tests/host/%.c $(LIB_SRCS) $(LIB_HDRS) tests/lib/check.h \
		$(BUILD)/kernel.stamp
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)gcc $(HOST_CFLAGS) $< $(LIB_SRCS) -o $@

# Small purpose-built BPF programs for the guest tests (tests/progs/), kept
# apart from the appliance's policies and never in its image.
TEST_SKELS := $(patsubst tests/progs/%.bpf.c,$(TEST_DIR)/progs/%.lskel.h,\
		$(wildcard tests/progs/*.bpf.c))

$(TEST_DIR)/progs/%.bpf.o: tests/progs/%.bpf.c $(wildcard tests/progs/*.h) \
		$(GEN)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)clang $(BPF_CFLAGS) -Itests/progs -c $< -o $@

$(TEST_DIR)/progs/%.lskel.h: $(TEST_DIR)/progs/%.bpf.o $(SKEL_BPFTOOL_DEP)
	$(call msg,GEN-SKEL,$@)
	$(Q)$(SKEL_BPFTOOL) gen skeleton -L $< name $(subst -,_,$*) >$@

GUEST_CC = $(MUSLCC) $(CFLAGS) -Itests/lib -Itests/progs -I$(TEST_DIR)/progs \
	   $< $(LIB_SRCS) $(LDFLAGS) -o $@
GUEST_DEPS := $(LIB_SRCS) $(LIB_HDRS) $(wildcard tests/lib/*.h) $(TEST_SKELS) \
	      $(BUILD)/kernel.stamp

# Every in-guest program, static musl: tests/DIR/NAME.c -> $(TEST_DIR)/DIR/NAME
# for DIR guest, guest-audit, guest-boot, guest-records, guest-debug, helpers
# and bench.
$(TEST_DIR)/%: tests/%.c $(GUEST_DEPS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(GUEST_CC)


# The libbpf API of the series (bpf_program__attach_krsi()), tested from a
# program linked statically with glibc, libelf and zlib and the libbpf.a of
# the patched tree (tests/libbpf/), which opens a .bpf.o itself.
LIBBPF_A := $(BUILD)/libbpf/libbpf.a

$(LIBBPF_A): $(BUILD)/kernel.stamp $(DEBROOT_STAMP)
	$(call msg,LIBBPF,$@)
	$(Q)$(MAKE) -s -C $(KSRC)/tools/lib/bpf $(TARGET_TOOLS_MAKE) \
		OUTPUT=$(abspath $(BUILD)/libbpf)/ $(abspath $@) >/dev/null

$(TEST_DIR)/libbpf/krsi_libbpf.bpf.o: tests/libbpf/krsi_libbpf.bpf.c $(GEN)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)clang $(BPF_CFLAGS) -c $< -o $@

# The kernel's own selftest of LSM programs, which must still load on this
# series (tests/libbpf/krsi_libbpf.c loads it).
SELFTEST_PROGS := $(KSRC)/tools/testing/selftests/bpf/progs

$(TEST_DIR)/libbpf/lsm.bpf.o: $(BUILD)/kernel.stamp $(GEN)/vmlinux.h tests/libbpf/include/errno.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)clang $(BPF_CFLAGS) -I$(SELFTEST_PROGS) -Itests/libbpf/include \
		-c $(SELFTEST_PROGS)/lsm.c -o $@

$(TEST_DIR)/guest/krsi_libbpf: tests/libbpf/krsi_libbpf.c $(LIBBPF_A) \
		tools/lib/errname.c tests/lib/check.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(GLIBCC) -std=c11 -Wall -Wextra -Werror -O2 -D_GNU_SOURCE \
		-isystem $(SYSROOT)/include -Itools/lib -Itests/lib \
		$< tools/lib/errname.c $(LIBBPF_A) -static $(TARGET_LDFLAGS) -lelf -lz -o $@

GUEST_BINS += $(TEST_DIR)/guest/krsi_libbpf

# Benchmarks (make bench, tests/bench/): in the test initramfs, run by
# tests/bench/run-bench.sh in boots of their own.
BENCH_BINS := $(TEST_DIR)/bench/krsi_bench $(TEST_DIR)/bench/tiny
BENCH_SH   := tests/bench/bench_baseline.sh tests/bench/boot_time.sh

# The kernel's own KRSI selftests (tools/testing/selftests/bpf/prog_tests/
# krsi_*.c, added by the series) in the kernel's test_progs harness, built
# for the debug kernel's BTF (tests/selftests/krsi.mk) and run in a boot of
# their own (tests/selftests/selftests.sh).
SELFTESTS_KRSI := $(BUILD)/selftests/krsi/test_progs

$(SELFTESTS_KRSI): $(BUILD)/kernel-debug.stamp $(LIBBPF_A) $(BPFTOOL) tests/selftests/krsi.mk
	$(call msg,SELFTEST,$@)
	$(Q)$(MAKE) -s -f tests/selftests/krsi.mk KSRC=$(KSRC) \
		VMLINUX=$(KOUT_DEBUG)/vmlinux SYSROOT=$(SYSROOT) LIBBPF_A=$(LIBBPF_A) \
		BPFTOOL=$(BPFTOOL) OUT=$(dir $@) Q=$(Q)

# The hooks that must have a file in securityfs, for tests/guest/krsi_hooks.sh.
$(TEST_DIR)/expected-hooks: tests/expected-hooks.sh $(BUILD)/kernel.stamp
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)tests/expected-hooks.sh $(KSRC) $(KOUT)/vmlinux >$@

# /tests/LIST is what runs on the appliance's kernel, /tests/LIST.audit what
# runs on the audit-only one, /tests/LIST.boot what runs once /init has
# attached and locked the boot policies.
ALL_GUEST := $(GUEST_LIB) $(GUEST_SH) $(GUEST_BINS) $(AUDIT_SH) $(AUDIT_BINS) $(BOOT_SH) \
	     $(BOOT_BINS) $(BOOT_SETUP) $(HELPER_BINS) $(RECORDS_BINS) $(DEBUG_BINS) \
	     $(BENCH_BINS) $(BENCH_SH) $(SESSION_SH)
# The selftests need the debug kernel's BTF, which only x86_64 builds.
ifeq ($(ARCH),x86_64)
ALL_GUEST += $(SELFTESTS_KRSI) tests/selftests/selftests.sh
endif

$(TEST_DIR)/initramfs.cpio.gz: $(IMAGE)/initramfs.cpio.gz $(ALL_GUEST) \
		$(TEST_DIR)/expected-hooks $(TEST_DIR)/libbpf/krsi_libbpf.bpf.o \
		$(TEST_DIR)/libbpf/lsm.bpf.o $(BUILD)/gen_init_cpio
	$(call msg,CPIO,$@)
	$(Q)mkdir -p $(TEST_DIR)
	$(Q){ echo "dir /tests 0755 0 0"; \
	  echo "dir /mnt 0755 0 0"; \
	  for f in $(ALL_GUEST); do \
		echo "file /tests/$$(basename $$f) $$f 0755 0 0"; \
	  done; \
	  for f in LIST LIST.audit LIST.boot LIST.records LIST.nomem LIST.selftests LIST.bench \
		   LIST.baseline LIST.boottime \
		   expected-hooks libbpf/krsi_libbpf.bpf.o libbpf/lsm.bpf.o; do \
		echo "file /tests/$$(basename $$f) $(TEST_DIR)/$$f 0644 0 0"; \
	  done; \
	} >$(TEST_DIR)/tests.list
	$(Q)for f in $(GUEST_SH) $(GUEST_BINS); do basename $$f; done >$(TEST_DIR)/LIST
	$(Q)for f in $(AUDIT_SH) $(AUDIT_BINS); do basename $$f; done >$(TEST_DIR)/LIST.audit
	$(Q)for f in $(BOOT_SH) $(BOOT_BINS); do basename $$f; done >$(TEST_DIR)/LIST.boot
	$(Q)for f in $(RECORDS_BINS); do basename $$f; done >$(TEST_DIR)/LIST.records
	$(Q)for f in $(DEBUG_BINS); do basename $$f; done >$(TEST_DIR)/LIST.nomem
	$(Q)echo selftests.sh >$(TEST_DIR)/LIST.selftests
	$(Q)echo krsi_bench >$(TEST_DIR)/LIST.bench
	$(Q)echo bench_baseline.sh >$(TEST_DIR)/LIST.baseline
	$(Q)echo boot_time.sh >$(TEST_DIR)/LIST.boottime
	$(Q)$(BUILD)/gen_init_cpio $(TEST_DIR)/tests.list | gzip -n >$(TEST_DIR)/tests.cpio.gz
	$(Q)cat $(IMAGE)/initramfs.cpio.gz $(TEST_DIR)/tests.cpio.gz >$@

# An initramfs that carries an ACPI table (tests/lockdown/ssdt.dsl) for the
# kernel to take, as an uncompressed cpio archive before the test image:
# a kernel booted with lockdown=integrity must refuse it.
LOCKDOWN_DIR := $(TEST_DIR)/lockdown

$(LOCKDOWN_DIR)/ssdt.aml: tests/lockdown/ssdt.dsl
	$(call msg,IASL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)iasl -p $(abspath $(basename $@)) $< >/dev/null

# The table alone is also what make selftests-v1 puts before its image.
$(LOCKDOWN_DIR)/acpi.cpio: $(LOCKDOWN_DIR)/ssdt.aml $(BUILD)/gen_init_cpio
	$(call msg,CPIO,$@)
	$(Q)printf '%s\n' "dir /kernel 0755 0 0" "dir /kernel/firmware 0755 0 0" \
		"dir /kernel/firmware/acpi 0755 0 0" \
		"file /kernel/firmware/acpi/ssdt.aml $< 0644 0 0" >$(LOCKDOWN_DIR)/acpi.list
	$(Q)$(BUILD)/gen_init_cpio $(LOCKDOWN_DIR)/acpi.list >$@

$(LOCKDOWN_DIR)/initramfs.cpio: $(LOCKDOWN_DIR)/acpi.cpio $(TEST_DIR)/initramfs.cpio.gz
	$(call msg,CPIO,$@)
	$(Q)cat $^ >$@

ifeq ($(ARCH),x86_64)
test-build: $(HOST_TESTS) $(TEST_DIR)/initramfs.cpio.gz $(BUILD)/kernel-audit.stamp \
	$(BUILD)/kernel-debug.stamp $(LOCKDOWN_DIR)/initramfs.cpio
else
# Another architecture: the appliance's kernel and the test image; the
# debug and audit-only kernels, the ACPI tables and the host tests are
# x86_64's (README, "Architectures").
test-build: $(TEST_DIR)/initramfs.cpio.gz
endif

# ---------------------------------------------------------------------------
# s390x: Debian's busybox-static, libelf and zlib for s390x, unpacked from
# their packages (tools/build/fetch-debs.sh): they cannot be installed
# beside the host's own, and only their files are needed.
ifeq ($(ARCH),s390x)
$(DEBROOT_STAMP): tools/build/fetch-debs.sh
	$(call msg,DEBS,$(DEBROOT))
	$(Q)tools/build/fetch-debs.sh s390x $(DEBROOT) busybox-static libelf-dev zlib1g-dev
	$(Q)touch $@
endif

clean:
	rm -rf $(BIN) $(GEN) $(BUILD)/test $(IMAGE)/*.cpio.gz

distclean:
	rm -rf $(BUILD) image/bzImage image/*.cpio.gz image/s390x

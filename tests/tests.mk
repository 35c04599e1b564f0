# The tests: host unit tests of tools/lib, the programs the guest suites
# run, and the images that carry them, each the appliance's own image
# with the tests appended as another cpio archive (the kernel unpacks
# concatenated archives in order), so that what is tested is exactly
# what boots.  tests/suites.tab says which suite boots on which kernel of
# which architecture; what is built here for an architecture follows it.
TEST_DIR     := $(BUILD)/test

# make test: every architecture's boots (tests/suites.tab); make
# ARCH=arm64 test or ARCH=s390x test: that architecture's alone.
# tests/run-tests.sh builds what each needs (test-build-KERNEL below),
# the first before the boots, the others behind them.
test: deps
	tests/run-tests.sh $(if $(filter x86_64,$(ARCH)),,--arch $(ARCH))

# What KRSI costs per hooked call, against the kernel without it and against
# mainline's trampolines (tests/bench/run-bench.sh).
bench: deps all $(TEST_DIR)/bench.initramfs.cpio.gz
	tests/bench/run-bench.sh $(ARCH)

# The kernel's own BPF selftests (test_progs, test_verifier) on the patched
# kernel and on 6.1 without the series, built with the same
# configuration, compared (tests/selftests/full.sh).  About 50 min from
# nothing: not part of test.
selftests: deps all $(BUILD)/gen_init_cpio
	tests/selftests/full.sh $(KSRC) $(KOUT)/.config $(BUILD)/gen_init_cpio \
		$(BUILD)/selftests/full

# The series' KRSI selftests, the reproducers of what the review of v1
# found, on v1 itself (tests/selftests/v1.sh): two more kernels.
selftests-v1: deps all $(BUILD)/gen_init_cpio $(BPFTOOL) $(TEST_DIR)/lockdown/acpi.cpio
	tests/selftests/v1.sh $(KSRC) $(KOUT)/.config $(BUILD)/gen_init_cpio \
		$(BPFTOOL) $(TEST_DIR)/lockdown/acpi.cpio $(BUILD)/selftests/v1

# Mainline's tests of the BPF LSM on arm64's 6.1 without the series:
# Debian's own arm64 kernel, downloaded, booted with the arm64 selftests
# image (tests/selftests/debian.sh).  Not part of test: it downloads.
selftests-debian: deps $(TEST_DIR)/selftests.initramfs.cpio.gz
	$(if $(filter arm64,$(ARCH)),,$(error selftests-debian: make ARCH=arm64 selftests-debian))
	tests/selftests/debian.sh $(TEST_DIR)/selftests.initramfs.cpio.gz $(BUILD)/selftests/debian

# Where a cold build's time goes: everything make test needs, built again
# in $(BUILD)/build-times/ with an empty ccache (tests/bench/build-times.sh).
build-times: deps
	tests/bench/build-times.sh $(abspath $(BUILD))/build-times

# Every patch of the series builds on its own, and the whole series with
# CONFIG_SECURITY_BPF off: one kernel build per step, so not part of test.
check-series: deps $(BUILD)/kernel.stamp
	tests/series/check-series.sh $(KSRC) $(KOUT)/.config kernel/patches \
		$(BUILD)/series

# ---------------------------------------------------------------------------
# The boots of tests/suites.tab on this architecture, as SUITE@KERNEL.
TAB_BOOTS    := $(shell awk -v a=$(ARCH) '$$1 ~ /^[a-z]/ && $$3 == a { print $$1 "@" $$2 }' \
			tests/suites.tab)
tab_suite     = $(word 1,$(subst @, ,$(1)))
tab_kernel    = $(word 2,$(subst @, ,$(1)))
SUITES       := $(sort $(foreach b,$(TAB_BOOTS),$(call tab_suite,$(b))))
# suites_on KERNEL: the suites that boot on KERNEL here.
suites_on     = $(sort $(foreach b,$(TAB_BOOTS),$(if $(filter $(1),$(call tab_kernel,$(b))),$(call tab_suite,$(b)))))
TEST_KERNELS := $(sort $(foreach b,$(TAB_BOOTS),$(call tab_kernel,$(b))))

# Host unit tests, with the patched kernel's UAPI headers, as for the
# tools: tools/lib knows the KRSI link type, which the host's
# <linux/bpf.h> does not.
HOST_TESTS   := $(patsubst tests/host/%.c,$(TEST_DIR)/host/%,$(wildcard tests/host/*.c))
HOST_CFLAGS  := -std=c11 -Wall -Wextra -Werror -O1 -g -D_GNU_SOURCE \
		-fsanitize=address,undefined -fno-omit-frame-pointer \
		-isystem $(SYSROOT)/include -Itools/lib -Iprogs -Itests/lib

$(TEST_DIR)/host/%: tests/host/%.c $(LIB_SRCS) $(LIB_HDRS) tests/lib/check.h \
		$(BUILD)/kernel.stamp
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)gcc $(HOST_CFLAGS) $(HOST_EXTRA) $< $(HOST_EXTRA_SRCS) $(LIB_SRCS) -o $@

# The audit reader's round and records (tools/krsi/logd/), between rings
# built by hand and sinks that fail on command.
LOGD_STAGES := tools/krsi/logd/batch.c tools/krsi/logd/record.c
$(TEST_DIR)/host/test_logd_pipeline: HOST_EXTRA := -Itools/krsi -Itools/krsi/logd
$(TEST_DIR)/host/test_logd_pipeline: HOST_EXTRA_SRCS := $(LOGD_STAGES)
$(TEST_DIR)/host/test_logd_pipeline: $(LOGD_STAGES) $(wildcard tools/krsi/*.h tools/krsi/logd/*.h)

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

# Every in-guest program, static musl: tests/DIR/NAME.c -> $(TEST_DIR)/DIR/NAME
# (the suites, their setup programs, the helpers, the benchmark).
GUEST_DEPS := $(LIB_SRCS) $(LIB_HDRS) $(wildcard tests/lib/*.h) $(TEST_SKELS) \
	      $(BUILD)/kernel.stamp

$(TEST_DIR)/%: tests/%.c $(GUEST_DEPS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(MUSLCC) $(CFLAGS) -Itests/lib -Itests/progs -I$(TEST_DIR)/progs \
		$< $(LIB_SRCS) $(LDFLAGS) -o $@

# The libbpf API of the series (bpf_program__attach_krsi()), tested from a
# program of the base suite linked statically with glibc, libelf and zlib
# and the patched tree's libbpf.a (tests/suites/base/libbpf/), which opens
# a .bpf.o itself: its own, and the kernel's selftest of LSM programs,
# which must still load on this series.
LIBBPF_TEST := tests/suites/base/libbpf
SELFTEST_PROGS := $(KSRC)/tools/testing/selftests/bpf/progs

$(TEST_DIR)/libbpf/krsi_libbpf.bpf.o: $(LIBBPF_TEST)/krsi_libbpf.bpf.c $(GEN)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)clang $(BPF_CFLAGS) -c $< -o $@

$(TEST_DIR)/libbpf/lsm.bpf.o: $(BUILD)/kernel.stamp $(GEN)/vmlinux.h \
		$(LIBBPF_TEST)/include/errno.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)clang $(BPF_CFLAGS) -I$(SELFTEST_PROGS) -I$(LIBBPF_TEST)/include \
		-c $(SELFTEST_PROGS)/lsm.c -o $@

$(TEST_DIR)/libbpf/krsi_libbpf: $(LIBBPF_TEST)/krsi_libbpf.c $(LIBBPF_A) \
		tools/lib/errname.c tests/lib/check.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(GLIBCC) -std=c11 -Wall -Wextra -Werror -O2 -D_GNU_SOURCE \
		-isystem $(SYSROOT)/include -Itools/lib -Itests/lib \
		$< tools/lib/errname.c $(LIBBPF_A) -static $(TARGET_LDFLAGS) -lelf -lz -o $@

# The hooks that must have a file in securityfs, for the base suite's
# krsi_hooks.sh.
$(TEST_DIR)/expected-hooks: tests/lib/expected-hooks.sh $(BUILD)/kernel.stamp
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)tests/lib/expected-hooks.sh $(KSRC) $(KOUT)/vmlinux >$@

# The kernel's own KRSI selftests (tools/testing/selftests/bpf/prog_tests/
# krsi_*.c, added by the series) in the kernel's test_progs harness, built
# for the BTF of the kernel the selftests suite boots (tests/selftests/
# krsi.mk): x86_64's debug kernel.  On arm64, its mainline kernel, and
# with them mainline's own tests of the BPF LSM, unmodified, which 6.1's
# trampoline cannot attach there and libbpf attaches through KRSI; the
# target's bpftool, under qemu-user, makes their skeletons.
SELFTESTS_KRSI := $(BUILD)/selftests/krsi/test_progs
ifeq ($(ARCH),arm64)
SELFTESTS_KERNEL := mainline
SELFTESTS_ARGS := BPF_ARCH=arm64 TARGET_CC="ccache $(GLIBCC)" \
	TARGET_CFLAGS="-I$(abspath $(DEBROOT))/usr/include" TARGET_LDFLAGS="$(TARGET_LDFLAGS)" \
	MORE_TESTS="test_lsm test_local_storage test_bprm_opts deny_namespace bpf_cookie" \
	MORE_PROGS="lsm local_storage bprm_opts test_deny_namespace test_bpf_cookie kprobe_multi"
else
SELFTESTS_KERNEL := debug
endif

$(SELFTESTS_KRSI): $(BUILD)/kernel-$(SELFTESTS_KERNEL).stamp $(LIBBPF_A) $(BPFTOOL) \
		tests/selftests/krsi.mk
	$(call msg,SELFTEST,$@)
	$(Q)$(MAKE) -s -f tests/selftests/krsi.mk KSRC=$(KSRC) \
		VMLINUX=$(BUILD)/kernel-$(SELFTESTS_KERNEL)/vmlinux SYSROOT=$(SYSROOT) \
		LIBBPF_A=$(LIBBPF_A) BPFTOOL="$(TARGET_RUN) $(abspath $(BPFTOOL))" \
		OUT=$(dir $@) Q=$(Q) $(SELFTESTS_ARGS)

# ---------------------------------------------------------------------------
# The images.  Every one is the appliance's image, then what every test
# image has: the guest's runner (tests/lib/run-suite.sh, which init/init
# starts in test mode), its libraries, the helpers the tests run and
# what the sessions type (tests/sessions/typed/).  /tests is flat: every
# file by its name.
HELPER_BINS := $(patsubst tests/%.c,$(TEST_DIR)/%,$(wildcard tests/helpers/*.c))
COMMON_FILES := tests/lib/check.sh tests/lib/routes.sh tests/lib/run-suite.sh \
	tests/lib/test_progs.sh $(HELPER_BINS) $(wildcard tests/sessions/typed/*.sh)
APPEND_IMAGE := tests/lib/append-image.sh $(BUILD)/gen_init_cpio

# image_list FILE[:NAME]...: the "PATH SOURCE MODE" lines of
# tests/lib/append-image.sh, each file at /tests/NAME (its own name by
# default), executable.
image_list = for f in $(1); do echo "/tests/$${f\#\#*[/:]} $${f%:*} 0755"; done

# The tests every image has, which the exhaust session boots.
$(TEST_DIR)/initramfs.cpio.gz: $(IMAGE)/initramfs.cpio.gz \
		$(foreach f,$(COMMON_FILES),$(firstword $(subst :, ,$(f)))) \
		tests/lib/append-image.sh $(BUILD)/gen_init_cpio
	$(call msg,CPIO,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q){ echo "/mnt - 0755"; $(call image_list,$(COMMON_FILES)); } | \
		$(APPEND_IMAGE) $@ $(IMAGE)/initramfs.cpio.gz

# A suite's image: the tests of tests/suites/SUITE/ (NAME.sh as it is,
# NAME.c built), then SUITE_MORE_SUITE, in that order in its list
# (/tests/LIST.SUITE), and SUITE_FILES_SUITE, what its tests read.
SUITE_MORE_base   := $(TEST_DIR)/libbpf/krsi_libbpf
SUITE_FILES_base  := $(TEST_DIR)/expected-hooks $(TEST_DIR)/libbpf/krsi_libbpf.bpf.o \
		     $(TEST_DIR)/libbpf/lsm.bpf.o
# Run by /init before `krsi lock` in the boot with krsi.tests=boot.
SUITE_FILES_boot  := $(TEST_DIR)/suites/boot/setup/before_lock
# A modprobe that notes each run: no user-mode helper before the policies.
SUITE_ROOT_boot   := /sbin/modprobe=tests/suites/boot/setup/modprobe
SUITE_DEPS_boot   := tests/suites/boot/setup/modprobe
# protect_secret as versions 2 to 6, signed (the image's is version 1);
# version 2 unsigned, and signed by a key the kernel does not trust; the
# policies that know the audit reader as version 2; audit_exec under a
# name the krsi tool does not know.
SIGNED_TESTS := protect_secret-v2.krsi protect_secret-v3.krsi \
	protect_secret-v4.krsi protect_secret-v5.krsi protect_secret-v6.krsi \
	protect_init-v2.krsi krsi_lock-v2.krsi protect_init-v3-noreader.krsi \
	protect_secret-v2.unsigned protect_secret-v2.other-key stranger.krsi
SUITE_FILES_signed := $(patsubst %,$(TEST_DIR)/signed/%,$(SIGNED_TESTS))
# The KRSI selftest of signed policies (krsi_policies, KRSI_POLICY_DIR)
# loads no_module_load as versions 1 and 2 signed, and 2 signed by a key
# the kernel does not trust, with its counter "lost" signed as a latch
# (krsi-pack -L), which the test closes in version 1; and version 3
# without that latch, which the kernel then refuses after its loader
# ran, as often as the test races the loader.  Version 2 stays held
# until the boot ends.
SELFTEST_POLICIES := no_module_load-v1.krsi no_module_load-v2.krsi \
	no_module_load-v2.other-key no_module_load-v3-nolatch.krsi
$(TEST_DIR)/signed/no_module_load-%.unsigned: PACK_FLAGS := -L lost
$(TEST_DIR)/signed/no_module_load-v3-nolatch.krsi: $(PACK) $(SIGNING_KEY)
	$(Q)mkdir -p $(@D)
	$(Q)$(TARGET_RUN) $(PACK) -V 3 no_module_load $@.tmp && \
		$(call sign,$@.tmp) && mv $@.tmp $@
SUITE_FILES_selftests := $(SELFTESTS_KRSI) \
	$(patsubst %,$(TEST_DIR)/signed/%,$(SELFTEST_POLICIES))
# SUITE_ROOT_SUITE: files of the image outside /tests, as PATH=SOURCE,
# made by SUITE_DEPS_SUITE.  Mainline's tests on arm64 run bash
# (test_bprm_opts) and copy /bin/rm to run it under another name
# (test_local_storage), which busybox's rm is not: tests/selftests/rm.c
# (as `make selftests` does); their limits there are checked by
# tests/suites/selftests/mainline/.
ifeq ($(ARCH),arm64)
SUITE_ROOT_selftests := /bin/bash=$(DEBROOT)/bin/bash-static /bin/rm=$(TEST_DIR)/selftests/rm
SUITE_DEPS_selftests := $(DEBROOT_STAMP) $(TEST_DIR)/selftests/rm
SUITE_MORE_selftests := $(wildcard tests/suites/selftests/mainline/*.sh)
SUITE_FILES_selftests += tests/suites/selftests/mainline/DENYLIST.aarch64
endif

# protect_init as version 3 with its map "reader" renamed: a version
# without an array its predecessor froze, which the kernel refuses.
$(TEST_DIR)/signed/protect_init-v3-noreader.krsi: $(PACK) $(SIGNING_KEY)
	$(Q)mkdir -p $(@D)
	$(Q)$(TARGET_RUN) $(PACK) -V 3 -R reader=readex protect_init $@.tmp && \
		$(call sign,$@.tmp) && mv $@.tmp $@

# A policy signed elsewhere, which the tools' build has no skeleton of:
# audit_exec, its programs renamed (a hook takes one program of a name).
$(TEST_DIR)/signed/stranger.krsi: $(PACK) $(SIGNING_KEY)
	$(Q)mkdir -p $(@D)
	$(Q)$(TARGET_RUN) $(PACK) -N stranger -R audit_exec=strange_ex \
		-R audit_exec_file=stranger_exec_f audit_exec $@.tmp && \
		$(call sign,$@.tmp) && mv $@.tmp $@

$(TEST_DIR)/signed/%.unsigned: $(PACK)
	$(Q)mkdir -p $(@D)
	$(Q)$(call pack_version,$*,$@)

$(TEST_DIR)/signed/%.krsi: $(TEST_DIR)/signed/%.unsigned $(SIGNING_KEY)
	$(Q)cp $< $@.tmp && $(call sign,$@.tmp) && mv $@.tmp $@

$(TEST_DIR)/signed/%.other-key: $(TEST_DIR)/signed/%.unsigned $(OTHER_KEY)
	$(Q)cp $< $@.tmp && $(call sign,$@.tmp,$(OTHER_KEY)) && mv $@.tmp $@

suite_tests = $(wildcard tests/suites/$(1)/*.sh) \
	$(patsubst tests/%.c,$(TEST_DIR)/%,$(wildcard tests/suites/$(1)/*.c)) \
	$(SUITE_MORE_$(1))

define suite_image
$(TEST_DIR)/$(1).initramfs.cpio.gz: $(TEST_DIR)/initramfs.cpio.gz $(call suite_tests,$(1)) \
		$(SUITE_FILES_$(1)) $(SUITE_DEPS_$(1)) tests/lib/append-image.sh
	$$(call msg,CPIO,$$@)
	$(Q)for f in $(call suite_tests,$(1)); do echo $$$${f##*/}; done >$(TEST_DIR)/LIST.$(1)
	$(Q){ echo "/tests/LIST.$(1) $(TEST_DIR)/LIST.$(1) 0644"; \
	  $$(call image_list,$(call suite_tests,$(1)) $(SUITE_FILES_$(1))); \
	  for f in $(SUITE_ROOT_$(1)); do echo "$$$${f%%=*} $$$${f#*=} 0755"; done; } | \
		$(APPEND_IMAGE) $$@ $(TEST_DIR)/initramfs.cpio.gz
endef
$(foreach s,$(SUITES),$(eval $(call suite_image,$(s))))

# The benchmark's image (make bench, tests/bench/): one list a boot.
BENCH_FILES := $(TEST_DIR)/bench/krsi_bench \
	       tests/bench/bench_baseline.sh tests/bench/boot_time.sh

$(TEST_DIR)/bench.initramfs.cpio.gz: $(TEST_DIR)/initramfs.cpio.gz $(BENCH_FILES) \
		tests/lib/append-image.sh
	$(call msg,CPIO,$@)
	$(Q)echo krsi_bench >$(TEST_DIR)/LIST.bench
	$(Q)echo bench_baseline.sh >$(TEST_DIR)/LIST.baseline
	$(Q)echo boot_time.sh >$(TEST_DIR)/LIST.boottime
	$(Q){ for l in bench baseline boottime; do \
		echo "/tests/LIST.$$l $(TEST_DIR)/LIST.$$l 0644"; done; \
	  $(call image_list,$(BENCH_FILES)); } | \
		$(APPEND_IMAGE) $@ $(TEST_DIR)/initramfs.cpio.gz

# An ACPI table (tests/sessions/ssdt.dsl) for the kernel to take, as an
# uncompressed cpio archive before the image: a kernel booted with
# lockdown=integrity must refuse it (tests/sessions/lockdown.sh).  The
# table alone is also what make selftests-v1 puts before its image.
LOCKDOWN_DIR := $(TEST_DIR)/lockdown

$(LOCKDOWN_DIR)/ssdt.aml: tests/sessions/ssdt.dsl
	$(call msg,IASL,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)iasl -p $(abspath $(basename $@)) $< >/dev/null

$(LOCKDOWN_DIR)/acpi.cpio: $(LOCKDOWN_DIR)/ssdt.aml $(BUILD)/gen_init_cpio
	$(call msg,CPIO,$@)
	$(Q)printf '%s\n' "dir /kernel 0755 0 0" "dir /kernel/firmware 0755 0 0" \
		"dir /kernel/firmware/acpi 0755 0 0" \
		"file /kernel/firmware/acpi/ssdt.aml $< 0644 0 0" >$(LOCKDOWN_DIR)/acpi.list
	$(Q)$(BUILD)/gen_init_cpio $(LOCKDOWN_DIR)/acpi.list >$@

$(LOCKDOWN_DIR)/initramfs.cpio: $(LOCKDOWN_DIR)/acpi.cpio $(IMAGE)/initramfs.cpio.gz
	$(call msg,CPIO,$@)
	$(Q)cat $^ >$@

# Debian's systemd with its BPF framework, and the series' libbpf.so.1, for
# ARCH (tools/build/systemd.sh); the image whose PID 1 it is.
SYSTEMD_OUT := $(BUILD)/systemd

$(SYSTEMD_OUT)/built.stamp: tools/build/systemd.sh tools/build/fetch-debs.sh \
		$(BUILD)/kernel.stamp
	$(Q)tools/build/systemd.sh $(ARCH) $(KSRC) $(SYSTEMD_OUT)
	$(Q)touch $@

$(TEST_DIR)/systemd.initramfs.cpio.gz: $(SYSTEMD_OUT)/built.stamp \
		$(wildcard tests/sessions/systemd/*) $(BUILD)/gen_init_cpio $(DEBROOT_STAMP)
	$(call msg,CPIO,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)tests/sessions/systemd/image.sh $(BUILD)/gen_init_cpio $@ $(SYSTEMD_OUT) \
		$(BUSYBOX) $(KCROSS:-=)

# test-build-KERNEL: what the boots on KERNEL need (tests/run-tests.sh
# builds each one before its boots); the appliance's adds the host tests
# and what the sessions boot.
SESSION_FILES := $(TEST_DIR)/initramfs.cpio.gz
ifeq ($(ARCH),x86_64)
SESSION_FILES += $(HOST_TESTS)
# The labs with their solutions and as given (labs/labs.mk).
SESSION_FILES += $(BUILD)/labs/solutions.cpio.gz $(BUILD)/labs/given.cpio.gz
endif
ifeq ($(ARCH),arm64)
SESSION_FILES += $(LOCKDOWN_DIR)/initramfs.cpio
endif

# arm64's mainline kernel (cgroups, KRSI, no trampoline) boots the image
# whose PID 1 is Debian's systemd (tests/sessions/systemd.sh).
ifeq ($(ARCH),arm64)
KERNEL_SESSION_FILES_mainline := $(TEST_DIR)/systemd.initramfs.cpio.gz
endif

define kernel_tests
.PHONY: test-build-$(1)
test-build-$(1): $(if $(filter appliance,$(1)),all $(SESSION_FILES),$(BUILD)/kernel-$(1).stamp) \
	$(patsubst %,$(TEST_DIR)/%.initramfs.cpio.gz,$(call suites_on,$(1))) \
	$(KERNEL_SESSION_FILES_$(1))
endef
$(foreach k,$(TEST_KERNELS),$(eval $(call kernel_tests,$(k))))

test-build: $(patsubst %,test-build-%,$(TEST_KERNELS))

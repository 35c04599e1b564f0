# Static musl tools: tools/NAME.c -> /usr/bin/NAME in the image, and the
# krsi command from tools/krsi/, which embeds the policies; bpftool and
# libbpf from the patched tree; the initramfs.
TOOLS    := $(patsubst tools/%.c,%,$(wildcard tools/*.c)) krsi
LIB_SRCS := $(wildcard tools/lib/*.c)
LIB_HDRS := $(wildcard tools/lib/*.h)
SKELS    := $(patsubst %,$(GEN)/%.lskel.h,$(POLICIES))

$(BIN)/%: tools/%.c $(LIB_SRCS) $(LIB_HDRS) $(SKELS) $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BIN)
	$(Q)$(MUSLCC) $(CFLAGS) $< $(LIB_SRCS) $(LDFLAGS) -o $@

# The audit reader, `krsi logd`, is a folder of its own: tools/krsi/logd/.
KRSI_SRCS := $(wildcard tools/krsi/*.c tools/krsi/logd/*.c)
KRSI_HDRS := $(wildcard tools/krsi/*.h tools/krsi/logd/*.h)

$(BIN)/krsi: $(KRSI_SRCS) $(KRSI_HDRS) $(LIB_SRCS) $(LIB_HDRS) \
		$(SKELS) $(GEN)/policies.h $(GEN)/hook_defaults.h $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BIN)
	$(Q)$(MUSLCC) $(CFLAGS) -Itools/krsi $(KRSI_SRCS) $(LIB_SRCS) $(LDFLAGS) -o $@

# The krsi tool beside the image, for the host: run-qemu.sh checks the
# host's copy of the audit stream with the code that sealed it (krsi
# events --verify), another architecture's under qemu-user.
$(IMAGE)/krsi: $(BIN)/krsi
	$(Q)mkdir -p $(IMAGE)
	$(Q)cp $< $@

# tools/dynamic/NAME.c: linked against musl's shared libc, for what needs a
# program run by the dynamic loader.
DYN_TOOLS := $(patsubst tools/dynamic/%.c,%,$(wildcard tools/dynamic/*.c))

$(BIN)/%: tools/dynamic/%.c $(BUILD)/kernel.stamp
	$(call msg,CC,$@)
	$(Q)mkdir -p $(BIN)
	$(Q)$(MUSLCC) -std=c11 -Wall -Wextra -Werror -O2 -s $< -o $@

userspace: $(patsubst %,$(BIN)/%,$(TOOLS) $(DYN_TOOLS))

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

# libbpf.a of the patched tree (bpf_program__attach_krsi()), for what links
# libbpf itself: the libbpf test and the kernel's selftests (tests/).
LIBBPF_A := $(BUILD)/libbpf/libbpf.a

$(LIBBPF_A): $(BUILD)/kernel.stamp $(DEBROOT_STAMP)
	$(call msg,LIBBPF,$@)
	$(Q)$(MAKE) -s -C $(KSRC)/tools/lib/bpf $(TARGET_TOOLS_MAKE) \
		OUTPUT=$(abspath $(BUILD)/libbpf)/ $(abspath $@) >/dev/null

# Initramfs: busybox, rootfs/, init/init as /init, the tools, and bpftool in
# /usr/sbin.
ROOTFS_FILES := $(shell find rootfs init -type f 2>/dev/null)

$(IMAGE)/initramfs.cpio.gz: $(ROOTFS_FILES) $(patsubst %,$(BIN)/%,$(TOOLS) $(DYN_TOOLS)) \
		$(BPFTOOL) $(BUILD)/gen_init_cpio tools/build/mkinitramfs.sh $(DEBROOT_STAMP) \
		$(PACKS) $(UPDATES)
	$(call msg,CPIO,$@)
	$(Q)mkdir -p $(IMAGE)
	$(Q)TARGET_RUN="$(TARGET_RUN)" KRSI_PACKS="$(PACKS)" KRSI_UPDATES="$(UPDATES)" \
		tools/build/mkinitramfs.sh $(BUILD)/gen_init_cpio $@ \
		$(BUSYBOX) rootfs init/init $(BIN) $(MUSL_LOADER) \
		$(BPFTOOL)

# Another architecture's Debian busybox-static, libelf and zlib (and
# bash-static, which mainline's test_bprm_opts runs in the arm64 selftests
# boot), unpacked from their packages (tools/build/fetch-debs.sh): they
# cannot be installed beside the host's own, and only their files are
# needed.  Unpacked again when the list changes.
DEB_PACKAGES := busybox-static libelf-dev zlib1g-dev bash-static

ifneq ($(DEBROOT),)
$(BUILD)/debs/packages: FORCE
	$(Q)mkdir -p $(dir $@)
	$(Q)echo "$(DEB_PACKAGES)" | cmp -s - $@ || echo "$(DEB_PACKAGES)" >$@

$(DEBROOT_STAMP): tools/build/fetch-debs.sh $(BUILD)/debs/packages
	$(call msg,DEBS,$(DEBROOT))
	$(Q)tools/build/fetch-debs.sh $(ARCH) $(DEBROOT) $(DEB_PACKAGES)
	$(Q)touch $@
endif

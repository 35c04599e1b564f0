# The kernel: Debian's tree + kernel/patches/series, tinyconfig +
# krsi.config + the architecture's own (kernel/$(ARCH).config), and its
# variants for the tests (kernel/VARIANT.config merged over it).  Only
# these inputs rebuild it.  Every build of a kernel here goes through
# tools/build/kmake.sh.
KCONFIGS      := kernel/krsi.config kernel/$(ARCH).config $(BUILD)/keys/keys.config
# The cover letter is not applied: editing it rebuilds nothing.
KERNEL_INPUTS := $(KTARBALL) $(KCONFIGS) kernel/patches/series \
	$(filter-out %/0000-cover-letter.patch,$(wildcard kernel/patches/*.patch)) \
	tools/build/prepare-kernel.sh tools/build/check-config.sh

# kmake OUT: make in the kernel tree with its objects in OUT.
kmake = KARCH=$(KARCH) KCROSS=$(KCROSS) JOBS=$(JOBS) tools/build/kmake.sh $(KSRC) $(1)

# The key that signs the policies, made as certs/Makefile makes the module
# signing key: its certificate goes into the kernel's builtin keyring
# (CONFIG_SYSTEM_TRUSTED_KEYS), the key stays in $(BUILD)/keys.  Another
# key, which the kernel does not trust, is for the tests.  keys.config
# names them, and the boot policies' file (below), with absolute paths.
SIGNING_KEY := $(BUILD)/keys/signing_key.pem
# The first build carries no boot policies: the tests boot it as "bare"
# (tests/suites.tab), where they attach policies themselves.
BARE_IMAGE  := $(BUILD)/kernel-bare/arch/$(KARCH)/boot/$(KIMAGE_NAME)
OTHER_KEY   := $(BUILD)/keys/other_key.pem
BOOT_POLICIES_BIN := $(abspath $(KOUT))/krsi-boot-policies.bin

$(BUILD)/keys/%.pem: kernel/x509.genkey
	$(call msg,GENKEY,$@)
	$(Q)mkdir -p $(@D)
	$(Q)openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-config $< -outform PEM -out $@ -keyout $@ >$@.log 2>&1

$(BUILD)/keys/keys.config: $(SIGNING_KEY) $(OTHER_KEY)
	$(Q){ echo 'CONFIG_SYSTEM_TRUSTED_KEYS="$(abspath $(SIGNING_KEY))"'; \
	  echo 'CONFIG_SECURITY_BPF_BOOT_POLICIES="$(BOOT_POLICIES_BIN)"'; \
	} >$@

$(BUILD)/kernel.stamp: $(KERNEL_INPUTS)
	$(Q)mkdir -p $(KOUT)
	$(Q)date +%s >$(BUILD)/kernel.start
	$(Q)tools/build/prepare-kernel.sh $(KTARBALL) $(KSRC) kernel/patches
	$(call msg,CONFIG,$(KOUT)/.config)
	$(Q)$(call kmake,$(KOUT)) tinyconfig >/dev/null
	$(Q)$(KSRC)/scripts/kconfig/merge_config.sh -m -O $(KOUT) \
		$(KOUT)/.config $(KCONFIGS) >$(KOUT)/merge_config.log 2>&1
	$(Q)$(call kmake,$(KOUT)) olddefconfig >>$(KOUT)/merge_config.log 2>&1
	$(Q)for f in $(KCONFIGS); do tools/build/check-config.sh $$f $(KOUT)/.config || exit 1; done
	$(Q): >$(BOOT_POLICIES_BIN)
	$(call msg,KERNEL,$(KIMAGE))
	$(Q)$(call kmake,$(KOUT)) $(KIMAGE_NAME)
	$(Q)mkdir -p $(dir $(BARE_IMAGE)) && cp $(KIMAGE) $(BARE_IMAGE)
	$(Q)rm -rf $(SYSROOT) && mkdir -p $(SYSROOT)
	$(call msg,HEADERS,$(SYSROOT)/include)
	$(Q)$(call kmake,$(KOUT)) headers_install INSTALL_HDR_PATH=$(abspath $(SYSROOT)) >/dev/null
	$(Q)mkdir -p $(BUILD)/libbpf
	$(Q)$(MAKE) -s -C $(KSRC)/tools/lib/bpf \
		OUTPUT=$(abspath $(BUILD)/libbpf)/ \
		DESTDIR=$(abspath $(SYSROOT)) prefix= install_headers >/dev/null
	$(Q)echo "$$(( $$(date +%s) - $$(cat $(BUILD)/kernel.start) ))" >>$(BUILD)/kernel.times
	$(Q)touch $@

kernel: $(BUILD)/kernel.stamp

# A variant of the appliance's kernel for the tests: kernel/VARIANT.config
# merged over its configuration, built in $(BUILD)/kernel-VARIANT
# (kernel/debug.config: KASAN and lockdep; kernel/mainline.config: what
# mainline's tests need).  tests/suites.tab says which boot which.
#
# A variant may build on another: a line "# base: NAME" in its file
# merges kernel/NAME.config first, and its first build starts from a
# copy of NAME's build directory, so that kbuild compiles again only
# what reads the options they differ in (it records, per object, the
# options its sources used: include/config/).  kernel/mainline-audit.config
# is mainline's without CONFIG_SECURITY_BPF_ENFORCE, which a few files
# read: a link more than mainline, where its own build would preprocess
# every file again for ccache.
variant_base_name = $(shell sed -n 's/^\# base: *//p' kernel/$(1).config)
variant_base = $(patsubst %,kernel/%.config,$(call variant_base_name,$(1)))
$(foreach v,$(basename $(notdir $(wildcard kernel/*.config))),\
	$(if $(call variant_base_name,$(v)),\
		$(eval $(BUILD)/kernel-$(v).stamp: $(call variant_base,$(v)) \
			$(BUILD)/kernel-$(call variant_base_name,$(v)).stamp)))
$(BUILD)/kernel-bare.stamp: $(BUILD)/kernel.stamp
	$(Q)touch $@

# The variants carry no boot policies either.
$(BUILD)/keys/bare.config:
	$(Q)mkdir -p $(@D)
	$(Q)echo 'CONFIG_SECURITY_BPF_BOOT_POLICIES=""' >$@

$(BUILD)/kernel-%.stamp: $(BUILD)/kernel.stamp kernel/%.config tools/build/check-config.sh \
		$(BUILD)/keys/bare.config
	$(Q)mkdir -p $(BUILD)/kernel-$*
	$(Q)base='$(call variant_base_name,$*)'; \
	if [ -n "$$base" ] && [ ! -e $(BUILD)/kernel-$*/.config ]; then \
		cp -a $(BUILD)/kernel-$$base/. $(BUILD)/kernel-$*/; fi
	$(call msg,CONFIG,$(BUILD)/kernel-$*/.config)
	$(Q)$(KSRC)/scripts/kconfig/merge_config.sh -m -O $(BUILD)/kernel-$* \
		$(KOUT)/.config $(BUILD)/keys/bare.config $(call variant_base,$*) \
		kernel/$*.config >$(BUILD)/kernel-$*/merge_config.log 2>&1
	$(Q)$(call kmake,$(BUILD)/kernel-$*) olddefconfig >>$(BUILD)/kernel-$*/merge_config.log 2>&1
	$(Q)for f in $(call variant_base,$*) kernel/$*.config; do \
		tools/build/check-config.sh $$f $(BUILD)/kernel-$*/.config || exit 1; done
	$(call msg,KERNEL,$(BUILD)/kernel-$*/arch/$(KARCH)/boot/$(KIMAGE_NAME))
	$(Q)$(call kmake,$(BUILD)/kernel-$*) $(KIMAGE_NAME)
	$(Q)touch $@

# The kernel again, with its boot policies (KRSI_BOOT_POLICIES, in the
# order they attach, progs/progs.mk): they are built against the BTF of
# the first build (vmlinux.h), so only a second can carry them.  It
# assembles their file (security/krsi/boot_policies.S) and links again.
$(BUILD)/kernel-boot.stamp: $(BUILD)/kernel.stamp $(GEN)/boot-policies.bin
	$(Q)cmp -s $(GEN)/boot-policies.bin $(BOOT_POLICIES_BIN) || \
		cp $(GEN)/boot-policies.bin $(BOOT_POLICIES_BIN)
	$(call msg,KERNEL,$(KIMAGE))
	$(Q)$(call kmake,$(KOUT)) $(KIMAGE_NAME)
	$(Q)touch $@

$(IMAGE)/$(KIMAGE_NAME): $(BUILD)/kernel-boot.stamp
	$(Q)mkdir -p $(IMAGE) && cp $(KIMAGE) $@

# The BTF of the kernel just built, as C, for CO-RE BPF programs.
$(GEN)/vmlinux.h: $(BUILD)/kernel.stamp
	$(call msg,BTF,$@)
	$(Q)mkdir -p $(GEN)
	$(Q)bpftool btf dump file $(KOUT)/vmlinux format c >$@

# Each hook's return type and default, for `krsi hook`.
$(GEN)/hook_defaults.h: $(BUILD)/kernel.stamp tools/build/gen-hook-defaults.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(GEN)
	$(Q)tools/build/gen-hook-defaults.sh $(KSRC)/include/linux/lsm_hook_defs.h >$@

# The kernel's own initramfs packer, which every image here is made with.
$(BUILD)/gen_init_cpio: $(BUILD)/kernel.stamp
	$(Q)gcc -O2 -o $@ $(KSRC)/usr/gen_init_cpio.c

# KRSI appliance: one `make` builds the patched kernel, the BPF policies, the
# static musl tools and a busybox initramfs; `make run` boots it in QEMU and
# `make test` runs the test suite inside it.
#
# Everything built lands in $(BUILD) (gitignored) and, for the two bootable
# files, in image/. Quiet by default; `make V=1` shows the commands.  What
# builds a thing is in its folder: kernel/kernel.mk, progs/progs.mk,
# tools/tools.mk and tests/tests.mk.
#
# `make ARCH=arm64` and `make ARCH=s390x` build the same appliance for
# arm64 and s390x (big-endian), where 6.1's BPF LSM cannot attach,
# cross-compiled, into build/ARCH/ and image/ARCH/; `make ARCH=arm64 run`
# boots it, `make ARCH=arm64 test` runs its suites.

BUILD        ?= build
KTARBALL     ?= /usr/src/linux-source-6.1.tar.xz
JOBS         ?= $(shell nproc)
ARCH         ?= x86_64

# The kernel tree is one for every architecture; what is built from it is
# in $(BUILD) (build/ for x86_64, build/ARCH/ for the others), the bootable
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
else ifneq ($(filter $(ARCH),s390x arm64),)
# Cross-built, into build/ARCH/ and image/ARCH/.  Debian has no musl cross
# compiler of its own, but musl-dev:ARCH ships ARCH-linux-musl-gcc, a specs
# file over gcc-ARCH-linux-gnu: the same static musl programs as on
# x86_64.  glibc is the cross compiler's own.
override BUILD := $(BUILD)/$(ARCH)
IMAGE        := image/$(ARCH)
# Debian's busybox-static, libelf and zlib for ARCH, unpacked from their
# packages into $(DEBROOT) (tools/build/fetch-debs.sh).
DEBROOT      := $(BUILD)/debs/root
DEBROOT_STAMP := $(BUILD)/debs/root.stamp
BUSYBOX      := $(DEBROOT)/bin/busybox
# libbpf and bpftool, built from the tree for ARCH (the tools' name of the
# architecture is the kernel's).
TARGET_TOOLS_MAKE = ARCH=$(KARCH) CROSS_COMPILE=$(KCROSS) \
	EXTRA_CFLAGS="-I$(abspath $(DEBROOT))/usr/include"
TARGET_LDFLAGS = -L$(abspath $(DEBROOT))/usr/lib/$(KCROSS:-=)
ifeq ($(ARCH),s390x)
KARCH        := s390
KCROSS       := s390x-linux-gnu-
MUSLCC       := s390x-linux-musl-gcc
GLIBCC       := s390x-linux-gnu-gcc
MUSL_LOADER  := /lib/ld-musl-s390x.so.1
BPF_TARGET   := -target bpfeb -D__TARGET_ARCH_s390
TARGET_RUN   := qemu-s390x-static
# The light skeletons are made by the tree's bpftool for s390x
# (tools/tools.mk says why), under qemu-user.  (A prerequisite list is
# expanded as it is read, before BPFTOOL is set: hence the path spelt
# out.)
SKEL_BPFTOOL  = $(TARGET_RUN) $(BPFTOOL)
SKEL_BPFTOOL_DEP := $(BUILD)/bpftool/bpftool
else
KARCH        := arm64
# The kernel's image is Image: QEMU's virt machine loads it as it is.
KIMAGE_NAME  := Image
KCROSS       := aarch64-linux-gnu-
MUSLCC       := aarch64-linux-musl-gcc
GLIBCC       := aarch64-linux-gnu-gcc
MUSL_LOADER  := /lib/ld-musl-aarch64.so.1
BPF_TARGET   := -target bpfel -D__TARGET_ARCH_arm64
TARGET_RUN   := qemu-aarch64-static
# Little-endian like the host: Debian's bpftool makes its light skeletons.
SKEL_BPFTOOL := bpftool
endif
else
$(error ARCH=$(ARCH): this appliance is built for x86_64, s390x or arm64)
endif

# Sub-makes (the kernel's, libbpf's, bpftool's) get the kernel's name of
# the architecture, never ours.
MAKEOVERRIDES := $(filter-out ARCH=%,$(MAKEOVERRIDES))

KOUT         := $(BUILD)/kernel
# The kernel's bootable image, by the name its architecture's make gives it.
KIMAGE_NAME  ?= bzImage
KIMAGE       := $(KOUT)/arch/$(KARCH)/boot/$(KIMAGE_NAME)
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
# the project (CI's) hits the same cache entries.  Not in depend mode: it
# keys an object on the compiler's dependency file, which does not name
# what an assembler file's .incbin reads, so the kernel's second link
# got the first build's security/krsi/boot_policies.o, without the boot
# policies (the preprocessor mode sees the .incbin and does not cache).
export CCACHE_BASEDIR := $(abspath .)
export CCACHE_NOHASHDIR := 1

CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -g0 -D_GNU_SOURCE \
	   -isystem $(SYSROOT)/include -Itools/lib -Iprogs -I$(GEN)
LDFLAGS := -static -s

BPF_CFLAGS := $(BPF_TARGET) -O2 -g -Wall -Werror \
	      -I$(GEN) -I$(SYSROOT)/include -Iprogs

.PHONY: all kernel userspace run test test-build bench lab check-series selftests sign-policy \
	selftests-v1 selftests-debian deps build-times clean distclean help FORCE

# Keep intermediate files (BPF objects between sources and skeletons), so
# that a second make has nothing to do.
.SECONDARY:

# A recipe that fails leaves no target behind: a half-written header
# (gen-policy.sh refusing a summary, say) must not count as built.
.DELETE_ON_ERROR:

all: $(IMAGE)/$(KIMAGE_NAME) $(IMAGE)/initramfs.cpio.gz $(IMAGE)/krsi

help:
	@echo "make            build image/bzImage and image/initramfs.cpio.gz"
	@echo "make run        install deps, build, boot in QEMU (./run-qemu.sh)"
	@echo "make run LEARN=1  the learning boot: nothing held by the kernel, never"
	@echo "                locked (./run-qemu.sh --learn)"
	@echo "make test       install deps, build, run host and in-guest tests"
	@echo "                (x86_64's, arm64's and s390x's: tests/suites.tab)"
	@echo "make ARCH=arm64 [run|test|bench]  the same for arm64 (or s390x):"
	@echo "                build in build/arm64 and image/arm64, boot, its suites alone"
	@echo "make lab N      build and boot lab N (labs/): its checker says which route got through"
	@echo "make bench      what KRSI costs per hooked call, against trampolines"
	@echo "make sign-policy FILE=F  sign F, a policy packed elsewhere, with the build's key"
	@echo "                (make signs every policy it builds: /usr/lib/krsi in the image)"
	@echo "make KRSI_BOOT_POLICIES='a b'  the policies the kernel attaches before /init"
	@echo "make check-series  build the kernel after each patch, and without KRSI"
	@echo "make selftests  the kernel's BPF selftests with and without the series, compared"
	@echo "make selftests-v1  the series' KRSI selftests on v1 (6dbe1e6), where each must fail"
	@echo "make ARCH=arm64 selftests-debian  mainline's BPF LSM tests on Debian's arm64 6.1"
	@echo "make build-times   a cold build in a scratch dir, timed stage by stage"
	@echo "make deps       install the Debian packages the build needs"
	@echo "make clean      remove the user-space build (keeps the kernel)"
	@echo "make distclean  remove everything built, kernel tree included"

deps:
	$(Q)tools/build/install-deps.sh

# make run LEARN=1: the learning boot (./run-qemu.sh --learn).
run: deps all
	./run-qemu.sh --arch $(ARCH)$(if $(LEARN), --learn)

include kernel/kernel.mk
include progs/progs.mk
include tools/tools.mk
include tests/tests.mk
include labs/labs.mk

clean:
	rm -rf $(BIN) $(GEN) $(BUILD)/test $(BUILD)/labs $(IMAGE)/*.cpio.gz $(IMAGE)/krsi

distclean:
	rm -rf $(BUILD) image/bzImage image/*.cpio.gz image/krsi image/s390x image/arm64

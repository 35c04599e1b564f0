# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own BPF selftest harness, tools/testing/selftests/bpf/
# test_progs.c, built with the KRSI selftests (prog_tests/krsi_*.c and
# progs/krsi_*.c, added by the series) and the mainline tests MORE_TESTS
# names, with their programs MORE_PROGS, for `make test`.  The rules are
# the selftests Makefile's for test_progs, for fewer files: that Makefile
# builds all 239 tests and 500 programs, whose programs need the kernel
# configuration of tools/testing/selftests/bpf/config (`make selftests`
# builds them all).  Statically linked with glibc, so that the test
# initramfs needs no shared library.
#
# usage: make -f tests/selftests/krsi.mk KSRC=TREE VMLINUX=VMLINUX \
#	SYSROOT=DIR LIBBPF_A=FILE BPFTOOL=COMMAND OUT=DIR [Q=@] \
#	[MORE_TESTS=NAMES MORE_PROGS=NAMES] \
#	[TARGET_CC=CC BPF_ARCH=ARCH TARGET_CFLAGS=... TARGET_LDFLAGS=...]
# TARGET_CC and the rest build for another architecture (BPF_ARCH: the
# kernel's name for it, as bpf_tracing.h takes it); BPFTOOL is a command
# the host runs, which may be the target's bpftool under qemu-user.

ST      := $(KSRC)/tools/testing/selftests/bpf
TESTS   := $(sort $(basename $(notdir $(wildcard $(ST)/prog_tests/krsi_*.c))) $(MORE_TESTS))
PROGS   := $(sort $(basename $(notdir $(wildcard $(ST)/progs/krsi_*.c))) $(MORE_PROGS))
TARGET_CC ?= gcc
BPF_ARCH  ?= x86
HARNESS := test_progs testing_helpers cap_helpers cgroup_helpers \
	   trace_helpers network_helpers btf_helpers

ifeq ($(TESTS),)
$(error no prog_tests/krsi_*.c in $(ST): is the series applied?)
endif

# As the selftests Makefile: its include order, so that the tree's
# tools/include and UAPI headers come before the host's, and libbpf's
# headers from the tree (tools/lib/bpf/).
CFLAGS := -g -O0 -Wall -Werror -I$(OUT) -I$(ST) -I$(OUT)/include \
	  -I$(KSRC)/tools/lib -I$(KSRC)/tools/include \
	  -I$(KSRC)/tools/include/uapi
# EXTRA_CFLAGS: for tests/selftests/v1.sh, which builds the tests
# against v1's UAPI.
CFLAGS += $(EXTRA_CFLAGS) $(TARGET_CFLAGS)
LDLIBS := -static $(TARGET_LDFLAGS) -lelf -lz -lrt -lpthread

CLANG_SYS_INCLUDES := $(shell clang -v -E - </dev/null 2>&1 | \
	sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS := -g -Werror -D__TARGET_ARCH_$(BPF_ARCH) -mlittle-endian \
	      -I$(OUT)/include -I$(SYSROOT)/include -I$(ST) \
	      -I$(KSRC)/tools/include/uapi $(CLANG_SYS_INCLUDES) \
	      -Wno-compare-distinct-pointer-types -O2 -target bpf -mcpu=v3

all: $(OUT)/test_progs

$(OUT)/include/vmlinux.h: $(VMLINUX)
	@mkdir -p $(dir $@)
	$(Q)$(BPFTOOL) btf dump file $< format c >$@

$(OUT)/%.bpf.o: $(ST)/progs/%.c $(OUT)/include/vmlinux.h
	$(Q)clang $(BPF_CFLAGS) -c $< -o $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(Q)$(BPFTOOL) gen skeleton $< name $* >$@

# The list of tests test_progs.c includes, as the selftests Makefile makes it.
$(OUT)/prog_tests/tests.h: $(patsubst %,$(ST)/prog_tests/%.c,$(TESTS))
	@mkdir -p $(dir $@)
	$(Q){ echo '/* Generated header, do not edit */'; \
	  sed -n -E 's/^void (serial_)?test_([a-zA-Z0-9_]+)\((void)?\).*/DEFINE_TEST(\2)/p' \
		$^ | sort; } >$@

$(OUT)/%.test.o: $(ST)/prog_tests/%.c $(patsubst %,$(OUT)/%.skel.h,$(PROGS))
	$(Q)$(TARGET_CC) $(CFLAGS) -c $< -o $@

$(OUT)/%.o: $(ST)/%.c $(OUT)/prog_tests/tests.h
	$(Q)$(TARGET_CC) $(CFLAGS) -c $< -o $@

$(OUT)/test_progs: $(patsubst %,$(OUT)/%.test.o,$(TESTS)) \
		   $(patsubst %,$(OUT)/%.o,$(HARNESS)) $(LIBBPF_A)
	$(Q)$(TARGET_CC) $(CFLAGS) $^ $(LDLIBS) -o $@

.SECONDARY:

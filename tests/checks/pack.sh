#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# KRSI stores hook arguments right on big-endian machines too, shown
# without one: clang compiles tests/checks/pack/roundtrip.c, the round trip of
# every class of argument through security/krsi/pack.h, for s390x (64-bit
# big-endian, which has no BPF trampoline in 6.1) and for x86_64, and the
# function must fold to "return 0".  The same round trip through the old
# byte-copying macros must not, or the check proves nothing.
#
# arches: x86_64
# usage: pack.sh (tests/run-tests.sh sets BUILD)
set -u
tree=$BUILD/linux
src=tests/checks/pack/roundtrip.c

# roundtrip TARGET HEADER: the constant krsi_pack_roundtrip() returns.
roundtrip() {
	clang --target="$1" -std=gnu11 -O2 -S -emit-llvm -o - \
		-DKRSI_PACK_H="\"$2\"" "$src" 2>&1 |
		sed -n '/define .*@krsi_pack_roundtrip/,/^}/s/^ *ret i32 \([0-9-]*\)$/\1/p'
}

for target in s390x-linux-gnu x86_64-linux-gnu; do
	got=$(roundtrip "$target" "$(realpath "$tree/security/krsi/pack.h")")
	if [ "$got" = 0 ]; then
		echo "ok pack: every argument class round-trips on $target"
	else
		echo "not ok pack: $target: round trip failed (mask '$got')"
	fi
done
got=$(roundtrip s390x-linux-gnu "$(realpath tests/checks/pack/memcpy-pack.h)")
if [ -n "$got" ] && [ "$got" != 0 ]; then
	echo "ok pack: the check catches byte-copying on s390x (mask $got)"
else
	echo "not ok pack: the byte-copying macros pass on s390x ('$got')"
fi

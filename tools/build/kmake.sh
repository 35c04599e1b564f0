#!/bin/sh
# make in a kernel tree SRC with its objects in OUT, as every build of the
# kernel here is made (kernel/kernel.mk, tests/series/, tests/selftests/):
# ccache, and the fixed timestamp, user and host that make an image
# reproducible.  KARCH and KCROSS in the environment build for another
# architecture (the kernel's ARCH and CROSS_COMPILE); JOBS, how many
# compilers at once.
#
# usage: kmake.sh SRC OUT [MAKE ARGS...]
src=$1 out=$2
shift 2
mkdir -p "$out" || exit
exec make -s -C "$src" O="$(realpath "$out")" -j"${JOBS:-$(nproc)}" \
	ARCH="${KARCH:-x86}" CROSS_COMPILE="${KCROSS:-}" \
	CC="ccache ${KCROSS:-}gcc" HOSTCC="ccache gcc" \
	KBUILD_BUILD_TIMESTAMP=2019-09-10 KBUILD_BUILD_USER=krsi \
	KBUILD_BUILD_HOST=appliance "$@"

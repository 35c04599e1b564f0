#!/bin/sh
# make in a kernel tree SRC with its objects in OUT, as every build of the
# kernel here is made: ccache, and the fixed timestamp, user and host that
# make an image reproducible.  The Makefile's kmake is the same for its
# cross builds.
#
# usage: kmake.sh SRC OUT [MAKE ARGS...]
src=$1 out=$2
shift 2
exec make -s -C "$src" O="$(realpath "$out")" -j"$(nproc)" \
	CC="ccache gcc" HOSTCC="ccache gcc" \
	KBUILD_BUILD_TIMESTAMP=2019-09-10 KBUILD_BUILD_USER=krsi \
	KBUILD_BUILD_HOST=appliance "$@"

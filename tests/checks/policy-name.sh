#!/bin/sh
# A policy's name is carried whole by every record it writes (16 bytes,
# its end included): the build refuses a longer POLICY with a message
# that says so, and takes one of 15 characters.  Run on copies of
# progs/no_setuid.bpf.c with another name, compiled as the build
# compiles a policy.
#
# arches: x86_64
# usage: policy-name.sh (tests/run-tests.sh sets BUILD)
set -u

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# compile NAME: progs/no_setuid.bpf.c as policy NAME, into $dir.
compile() {
	sed "s/^#define POLICY \"no_setuid\"$/#define POLICY \"$1\"/" progs/no_setuid.bpf.c \
		>"$dir/$1.bpf.c"
	grep -q "^#define POLICY \"$1\"$" "$dir/$1.bpf.c" || return 2
	clang -target bpf -D__TARGET_ARCH_x86 -O2 -g -Wall -Werror -I"$BUILD/gen" \
		-I"$BUILD/sysroot/include" -Iprogs -c "$dir/$1.bpf.c" -o "$dir/$1.bpf.o" \
		2>"$dir/$1.err"
}

compile no_kill_init_demo
status=$?
if [ "$status" -eq 1 ] && grep -q "a policy's name has at most 15 characters" "$dir/no_kill_init_demo.err"; then
	echo "ok policy-name: a 17-character name is refused, and the message says why"
else
	echo "not ok policy-name: no_kill_init_demo: status $status, $(head -n 1 "$dir/no_kill_init_demo.err")"
fi
if compile no_kill_init_dm; then
	echo "ok policy-name: a 15-character name builds"
else
	echo "not ok policy-name: no_kill_init_dm does not build: $(head -n 1 "$dir/no_kill_init_dm.err")"
fi

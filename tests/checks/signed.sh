#!/bin/sh
# The signed policies make builds (progs/progs.mk, tools/pack/krsi-pack.c)
# are what the kernel reads (<linux/krsi.h>): each build/gen/NAME.krsi
# opens with the magic and its own name, its sizes add up to where its
# signature starts, and it ends with a module signature's trailer of a
# PKCS#7 signature; openssl verifies that signature, over everything
# before it, with the build's certificate and no other.  And make
# sign-policy refuses a file signed already, krsi-pack a fifth -R.
#
# arches: x86_64
# usage: signed.sh (tests/run-tests.sh sets BUILD)
set -u

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
say() {
	case $1 in not) failed=1 ;; esac
	echo "$*"
}

# u32 FILE OFFSET: the little-endian 32-bit number at OFFSET.
u32() {
	od -An -tu4 -j "$2" -N 4 --endian=little "$1" | tr -d ' '
}

checked=0
for pack in "$BUILD"/gen/*.krsi; do
	name=$(basename "$pack" .krsi)
	size=$(stat -c %s "$pack")
	magic=$(head -c 8 "$pack")
	inner=$(dd if="$pack" bs=1 skip=8 count=32 2>/dev/null | tr -d '\0')
	# struct krsi_policy_header: magic, name[32], version, nr_maps,
	# nr_progs, nr_params, init_sz, insns_sz, data_sz, flags.
	nr_maps=$(u32 "$pack" 44)
	nr_params=$(u32 "$pack" 52)
	payload=$((72 + 16 * nr_maps + 128 * nr_params + $(u32 "$pack" 56) +
		   $(u32 "$pack" 60) + $(u32 "$pack" 64)))
	# The trailer: struct module_signature (12 bytes, sig_len big-endian
	# last) and the 28 bytes of "~Module signature appended~\n".
	marker=$(tail -c 28 "$pack" | head -c 27)
	sig_len=$(od -An -tu4 -j $((size - 32)) -N 4 --endian=big "$pack" | tr -d ' ')
	id_type=$(od -An -tu1 -j $((size - 38)) -N 1 "$pack" | tr -d ' ')
	if [ "$magic" != KRSIPOL1 ] || [ "$inner" != "$name" ] ||
		[ "$marker" != "~Module signature appended~" ] || [ "$id_type" != 2 ] ||
		[ $((payload + sig_len + 40)) -ne "$size" ]; then
		say "not ok signed: $name.krsi: magic '$magic', name '$inner', id type $id_type, $payload + $sig_len + 40 bytes of $size"
		continue
	fi
	head -c "$payload" "$pack" >"$dir/payload"
	dd if="$pack" of="$dir/sig" bs=1 skip="$payload" count="$sig_len" 2>/dev/null
	if ! openssl cms -verify -binary -inform DER -in "$dir/sig" -content "$dir/payload" \
		-certfile "$BUILD/keys/signing_key.pem" -nointern -noverify \
		-out /dev/null >"$dir/err" 2>&1; then
		say "not ok signed: $name.krsi: its signature does not verify with the build's key: $(head -n 1 "$dir/err")"
		continue
	fi
	if openssl cms -verify -binary -inform DER -in "$dir/sig" -content "$dir/payload" \
		-certfile "$BUILD/keys/other_key.pem" -nointern -noverify \
		-out /dev/null >/dev/null 2>&1; then
		say "not ok signed: $name.krsi: its signature verifies with another key"
		continue
	fi
	checked=$((checked + 1))
done
if [ "$checked" -gt 0 ] && [ "$failed" -eq 0 ]; then
	say "ok signed: $checked policies laid out as <linux/krsi.h> says, signed by the build's key alone"
elif [ "$checked" -eq 0 ]; then
	say "not ok signed: no policy in $BUILD/gen checked"
fi

cp "$BUILD/gen/no_setuid.krsi" "$dir/again.krsi"
if make -s sign-policy FILE="$dir/again.krsi" >"$dir/out" 2>&1; then
	say "not ok signed: make sign-policy signed a signed file again"
elif grep -q "is signed already" "$dir/out" && cmp -s "$dir/again.krsi" "$BUILD/gen/no_setuid.krsi"; then
	say "ok signed: make sign-policy refuses a signed file, and leaves it as it was"
else
	say "not ok signed: make sign-policy: $(head -n 1 "$dir/out")"
fi

# krsi-pack renames up to 4 names: a fifth -R is a usage error, and a
# name the loader does not have is refused; nothing is written.
"$BUILD/pack/krsi-pack" -R a=b -R c=d -R e=f -R g=h -R i=j protect_init \
	"$dir/five.krsi" >"$dir/out" 2>&1
status=$?
if [ "$status" -eq 2 ] && grep -q "^usage: krsi-pack" "$dir/out" && [ ! -e "$dir/five.krsi" ]; then
	say "ok signed: krsi-pack refuses a fifth -R with its usage"
else
	say "not ok signed: krsi-pack -R five times: exit $status: $(head -n 1 "$dir/out")"
fi
"$BUILD/pack/krsi-pack" -R reader=readex -R nosuch=nosucx protect_init \
	"$dir/nosuch.krsi" >"$dir/out" 2>&1
status=$?
if [ "$status" -eq 1 ] && grep -q "^krsi-pack: -R nosuch=nosucx: no such name" "$dir/out" &&
	[ ! -s "$dir/nosuch.krsi" ]; then
	say "ok signed: krsi-pack refuses a name the loader does not have"
else
	say "not ok signed: krsi-pack -R nosuch: exit $status: $(head -n 1 "$dir/out")"
fi
exit "$failed"

#!/bin/sh
# The host's copy of the guest's audit log, streamed on its stream port
# (run-qemu.sh --log DIR/BOOT.log, given by tests/run-tests.sh for the
# table's "stream"), is the guest's log, sealed: run-qemu.sh verified it
# after the boot, one stream ending with the reader's stop record; its
# records are numbered from 0 without a gap, and those the guest's log
# holds at the end of its tests (the results' "log FIRST LAST COUNT
# DIGEST" line, tests/lib/run-suite.sh) are the same bytes, in the same
# order, once the seal's two fields are taken off.
#
# Then copies of it made as root in the guest or anyone with the host's
# file would make them, each checked as run-qemu.sh --verify does: a line
# forged (one byte of a record changed, and a line of one's own added),
# one dropped, the stream cut, a stop record of one's own after the cut,
# and two lines swapped: each reported, at its line.
#
# usage: stream.sh BOOT DIR (tests/run-tests.sh sets ARCH)
set -u
name=$1 dir=$2
hostlog=$dir/$name.log
console=$dir/$name.console.log
work=$dir/$name.copies
rm -rf "$work"
mkdir -p "$work"

if tr -d '\r' <"$console" | grep -q "^  this boot: verified: .* 1 streams, .* every stream ends with the reader's stop record"; then
	echo "ok $name: run-qemu.sh verified the host's copy: one stream, every line sealed, ended by the reader"
else
	echo "not ok $name: run-qemu.sh did not verify the host's copy ($console):"
	tr -d '\r' <"$console" | grep "^  this boot" | head -n 10 | sed 's/^/# /'
fi

# The log's lines: the records (a "seq"), their seal taken off.
sed -n 's/^\({"seq":.*\),"stream":[0-9]*,"seal":"[0-9a-f]*"}$/\1}/p' "$hostlog" >"$work/records"

set -- $(sed -n 's/^log //p' "$dir/$name.results")
if [ $# -ne 4 ]; then
	echo "not ok $name: no summary of its audit log in the results"
	exit 0
fi
if [ -s "$work/records" ] && [ "$(wc -l <"$work/records")" -eq "$(grep -c '"seq":' "$hostlog")" ] &&
	awk -F'[:,]' '$1 != "{\"seq\"" || $2 != n++ { exit 1 }' "$work/records"; then
	echo "ok $name: the host's copy of the audit log has" \
		"$(wc -l <"$work/records") records, numbered from 0, none missing"
else
	echo "not ok $name: the host's copy of the audit log ($hostlog) misses records"
fi
host=$(awk -F'[:,]' -v f="$1" -v l="$2" '$2 >= f && $2 <= l' "$work/records" |
	sha256sum | cut -d' ' -f1)
if [ "$host" = "$4" ] && [ "$3" -eq $(($2 - $1 + 1)) ]; then
	echo "ok $name: it holds the guest's log, records $1 to $2, byte for byte, in order"
else
	echo "not ok $name: the host's copy of records $1 to $2 differs from the guest's log"
fi

# copy WHAT EXPECT SED: a copy of the host's file changed by SED, which
# the check must find NOT VERIFIED, saying EXPECT (a grep pattern).
lines=$(wc -l <"$hostlog")
mid=$((lines / 2))
copy() {
	what=$1 expect=$2
	shift 2
	sed "$@" "$hostlog" >"$work/$what"
	./run-qemu.sh --arch "$ARCH" --verify "$work/$what" >"$work/$what.check" 2>&1
	status=$?
	if [ "$status" -eq 1 ] && grep -q "NOT VERIFIED" "$work/$what.check" &&
		grep -q "$expect" "$work/$what.check"; then
		echo "ok $name: a copy with $what: reported, '$(grep -m 1 "$expect" "$work/$what.check" |
			sed "s|^$work/||")'"
	else
		echo "not ok $name: a copy with $what: not reported as such (exit $status)"
		sed 's/^/# /' "$work/$what.check" | head -n 10
	fi
}
copy "one byte of a record changed" "$work/.*:$mid: forged: position" \
	"${mid}s/\"time_ns\":\([0-9]\)/\"time_ns\":9\1/"
copy "a line of its own" "$work/.*:$((mid + 1)): forged: a line without a seal" \
	"${mid}a {\"seq\":1,\"time_ns\":1,\"pid\":1,\"uid\":0,\"comm\":\"krsi\",\"policy\":\"reader\",\"event\":\"stop\",\"what\":\"\"}"
copy "a line dropped" "$work/.*:$mid: dropped: 1 lines missing" "${mid}d"
copy "the stream cut" "$work/.*:$mid: cut: the stream begun at line 1 ends" "$((mid + 1)),\$d"
copy "the reader's stop record after a cut" \
	"$work/.*:$((mid + 1)): dropped: .* lines missing" "$((mid + 1)),$((lines - 1))d"
copy "two lines swapped" "$work/.*:$((mid + 1)): replayed: position" \
	"$mid{h;d};$((mid + 1))G"
if ./run-qemu.sh --arch "$ARCH" --verify "$hostlog" >"$work/whole.check" 2>&1; then
	echo "ok $name: the unchanged copy verifies"
else
	echo "not ok $name: the unchanged copy does not verify"
fi

#!/bin/sh
# The host's copy of the guest's audit log, streamed on its third serial
# port (run-qemu.sh --log DIR/BOOT.log, given by tests/run-tests.sh for
# the table's "stream"), is the guest's log: its records numbered from 0
# without a gap, and those the guest's log holds at the end of its tests
# (the results' "log FIRST LAST COUNT DIGEST" line, tests/lib/run-suite.sh)
# the same bytes, in the same order.
#
# usage: stream.sh BOOT DIR
set -u
name=$1 dir=$2
hostlog=$dir/$name.log

set -- $(sed -n 's/^log //p' "$dir/$name.results")
if [ $# -ne 4 ]; then
	echo "not ok $name: no summary of its audit log in the results"
	exit 0
fi
if [ -s "$hostlog" ] && awk -F'[:,]' '$1 != "{\"seq\"" || $2 != n++ { exit 1 }' "$hostlog"; then
	echo "ok $name: the host's copy of the audit log has" \
		"$(wc -l <"$hostlog") records, numbered from 0, none missing"
else
	echo "not ok $name: the host's copy of the audit log ($hostlog) misses records"
fi
host=$(awk -F'[:,]' -v f="$1" -v l="$2" '$2 >= f && $2 <= l' "$hostlog" |
	sha256sum | cut -d' ' -f1)
if [ "$host" = "$4" ] && [ "$3" -eq $(($2 - $1 + 1)) ]; then
	echo "ok $name: it holds the guest's log, records $1 to $2, byte for byte, in order"
else
	echo "not ok $name: the host's copy of records $1 to $2 differs from the guest's log"
fi

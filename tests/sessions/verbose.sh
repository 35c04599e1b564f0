#!/bin/sh
# arches: x86_64
# kernel: appliance
# run-qemu.sh --verbose shows every kernel message, the informational
# ones the demo's quiet console leaves out (tests/sessions/demo.sh).
#
# usage: verbose.sh (tests/run-tests.sh sets DIR)
set -u
. tests/lib/boot.sh

probe_boot "$DIR/verbose.console.log" --timeout 60
if grep -q "Run /init as init process" "$DIR/verbose.console.log"; then
	echo "ok run-qemu.sh --verbose shows every kernel message"
else
	echo "not ok run-qemu.sh --verbose: informational kernel messages missing"
fi

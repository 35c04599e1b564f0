#!/bin/sh
# systemd's RestrictFileSystems= on the kernel this image boots, as its
# own units meet it: a unit that may not use proc reads /proc/version,
# and one that may; what PID 1 logged of its BPF LSM program, and whom
# the KRSI hook file lists.  Every line says "krsi-proof:" for the host
# (tests/sessions/systemd.sh), which judges them.
say() { echo "krsi-proof: $*"; }

say "begin"
say "kernel $(uname -r)"
say "lsm $(cat /sys/kernel/security/lsm 2>&1)"
out=$(systemd-run --wait --pipe --quiet -p RestrictFileSystems=~proc cat /proc/version 2>&1)
say "restricted: exit $?: $out"
out=$(systemd-run --wait --pipe --quiet cat /proc/version 2>&1)
say "unrestricted: exit $?: $out"
# PID 1 logs its BPF LSM program at start, before journald runs: to
# the kernel's log, which journald reads in (SYSLOG_IDENTIFIER=systemd).
journalctl -b -o cat SYSLOG_IDENTIFIER=systemd 2>&1 | grep "bpf-lsm" |
	while read -r line; do
		say "journal: $line"
	done
say "file_open: $(cat /sys/kernel/security/bpf/file_open 2>&1 | tr '\n' ' ')"
say "end"

#!/bin/sh
# Booted with the boot policies: when /init had them all attached and
# locked, then exec with the audit reader logging every record.
sed -n 's/^attached at \([0-9.]*\)s of uptime$/bench boot policies-attached \1/p' /run/krsi/banner
grep -q "NOT ENFORCED" /run/krsi/banner && echo "bench boot failed-policies 1"
/tests/krsi_bench reader
exit 0

#!/bin/sh
# The kernel's KRSI selftest of audit-only kernels, krsi_audit_only: no
# program that calls crash_kexec() is attached (tests/selftests/).
exec /tests/selftests.sh krsi_audit_only

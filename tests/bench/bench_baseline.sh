#!/bin/sh
# On the kernel booted without KRSI in lsm=: the system calls alone.
exec /tests/krsi_bench baseline

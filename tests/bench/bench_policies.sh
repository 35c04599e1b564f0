#!/bin/sh
# Booted with the boot policies: the system calls under them.
exec /tests/krsi_bench policies

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Each LSM hook's return type and default value, as lsm_hook_defs.h of the
# kernel tree spells them (LSM_HOOK(RET, DEFAULT, NAME, ...)), for
# `krsi hook`: BTF has the hook's prototype, not what it returns when no
# LSM decides.  Hooks under #ifdef are listed whether or not this kernel
# has them; `krsi hook` only looks up the hooks it has a file for.
#
# usage: gen-hook-defaults.sh lsm_hook_defs.h >hook_defaults.h
set -eu
echo "/* Generated from lsm_hook_defs.h by tools/build/gen-hook-defaults.sh: do not edit. */"
echo "#define KRSI_HOOK_DEFAULTS(X) \\"
# Comments out, lines joined, then one LSM_HOOK( per record.
sed -e 's|/\*.*\*/||g' "$1" | tr '\n' ' ' | sed 's/LSM_HOOK(/\n&/g' |
	sed -n 's/^LSM_HOOK(\([^,]*\),[ \t]*\([^,]*\),[ \t]*\([A-Za-z0-9_]*\),.*/\t\tX(\3, "\1", "\2") \\/p' |
	sed 's/[ \t]*"/"/g; s/"[ \t]*/"/g' | grep -v "X(NAME,"
echo

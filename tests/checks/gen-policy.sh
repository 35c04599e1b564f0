#!/bin/sh
# A newcomer's own policy (README, "Write your first policy"): whatever the
# summary line that opens progs/NAME.bpf.c says, tools/build/gen-policy.sh
# either makes a header that compiles and gives back that very text, or
# refuses it with one message that names the file and the line.  Run on
# copies of progs/no_setuid.bpf.c with another summary, against the object
# the build made of it.
#
# arches: x86_64
# usage: gen-policy.sh (tests/run-tests.sh sets BUILD)
set -u

build=$BUILD
gen=$build/gen
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# policy_with NAME SUMMARY: $dir/NAME.bpf.c, no_setuid.bpf.c with SUMMARY
# as its summary line (line 3).
policy_with() {
	{
		sed -n 1,2p progs/no_setuid.bpf.c
		printf ' * %s: %s\n' "$1" "$2"
		sed -n '4,$p' progs/no_setuid.bpf.c
	} >"$dir/$1.bpf.c"
}

# works DESCRIPTION SUMMARY: the header compiles as the krsi tool's
# sources do and gives back SUMMARY byte for byte.
works() {
	policy_with no_setuid "$2"
	printf '%s' "$2" >"$dir/want"
	if ! tools/build/gen-policy.sh no_setuid "$dir/no_setuid.bpf.c" \
		"$gen/no_setuid.bpf.o" >"$dir/no_setuid.policy.h" 2>"$dir/err"; then
		echo "not ok gen-policy: $1: refused: $(head -n 1 "$dir/err")"
		return
	fi
	printf '%s\n' '#include <errno.h>' '#include <stdio.h>' \
		'#include "no_setuid.policy.h"' \
		'int main(void) { return fputs(KRSI_ABOUT_no_setuid, stdout) < 0; }' \
		>"$dir/about.c"
	if ! musl-gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -static \
		-isystem "$build/sysroot/include" -I"$gen" "$dir/about.c" \
		-o "$dir/about" 2>"$dir/err"; then
		echo "not ok gen-policy: $1: the header does not compile: $(grep -m 1 error "$dir/err")"
	elif "$dir/about" | cmp -s - "$dir/want"; then
		echo "ok gen-policy: $1: the summary comes out as written"
	else
		echo "not ok gen-policy: $1: the summary comes out as '$("$dir/about")'"
	fi
}

# refused DESCRIPTION NAME WHERE: gen-policy fails on $dir/NAME.bpf.c with
# one line on stderr that starts with WHERE (the file, and the line when
# there is one), and writes no header.
refused() {
	if tools/build/gen-policy.sh "$2" "$dir/$2.bpf.c" "$gen/no_setuid.bpf.o" \
		>"$dir/out.h" 2>"$dir/err"; then
		echo "not ok gen-policy: $1: accepted"
	elif [ "$(wc -l <"$dir/err")" -ne 1 ] || [ -s "$dir/out.h" ]; then
		echo "not ok gen-policy: $1: not one message, or a header anyway: $(head -n 3 "$dir/err")"
	elif ! grep -q "^$3: " "$dir/err"; then
		echo "not ok gen-policy: $1: the message does not start with '$3: ': $(cat "$dir/err")"
	else
		echo "ok gen-policy: $1: refused: $(cat "$dir/err")"
	fi
}

works "double quotes" 'no file named "keep" is removed'
works "backslashes" 'a \ alone, \n and \" stay as written'
works "percent signs" '100% of files, %s %n %%'
works "a trigraph" 'what is ??/ or ??= in C'
works "non-ASCII (UTF-8)" 'déjà vu: “keep” → ½'
works "an apostrophe and a C comment opener" "root's files /* stay */"
works "43 characters, what krsi status's line has room for" \
	'a summary of forty-three characters: exact!'
works "43 characters, some of them two bytes" \
	'forty-three characters, é, è, ü, ø, and ½!!'

src=$dir/no_setuid.bpf.c
policy_with no_setuid "$(printf 'a\tb')"
refused "a tab" no_setuid "$src:3"
policy_with no_setuid "$(printf 'DOS line ending\r')"
refused "a carriage return" no_setuid "$src:3"
policy_with no_setuid "$(printf 'caf\351')"
refused "bytes that are not UTF-8" no_setuid "$src:3"
policy_with no_setuid ""
refused "an empty summary" no_setuid "$src:3"
policy_with no_setuid 'a summary of forty-four characters, too long'
refused "44 characters" no_setuid "$src:3"
policy_with a_name_of_twenty_chars 'forty characters, right after short name'
refused "40 characters after a name of 22 characters" a_name_of_twenty_chars \
	"$dir/a_name_of_twenty_chars.bpf.c:3"
policy_with no_setuid "x"
sed -i '3s/no_setuid:/nosuid:/' "$src"
refused "a source whose summary names another policy" no_setuid "$src"
policy_with no-setuid "fine text"
refused "a name that is not a C identifier" no-setuid "$dir/no-setuid.bpf.c"

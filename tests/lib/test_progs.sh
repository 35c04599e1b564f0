# Sourced in the guest (/tests/test_progs.sh) by the runners of the
# kernel's test_progs: the KRSI suite (tests/suites/selftests/) and make
# selftests' (tests/selftests/guest-full.sh).
#
# test_progs_results FILE: a line "OK NAME", "FAIL NAME" or "SKIP NAME"
# for each test and subtest of test_progs' output FILE:
#
#	#12/3    krsi_uapi/fd_zero:OK
#	#80/7    sockmap_listen/sockmap IPv4 TCP test_reuseport_select_listening:SKIP
#	#12      krsi_uapi:FAIL
#	#30      btf_dump:OK (SKIP: 1/12)	(an "OK": some subtests skipped)
#
# Names may have spaces.  A failed test's lines come again in test_progs'
# closing error log: each line once.
test_progs_results() {
	sed -n 's/^#[0-9/]* *\(.*\):\(OK\|FAIL\|SKIP\)\( (SKIP: [0-9]*\/[0-9]*)\)\{0,1\}$/\2 \1/p' \
		"$1" | awk '!seen[$0]++'
}

# denied_tests FILE: the names of a deny list in the kernel's format
# (tools/testing/selftests/bpf/DENYLIST*: a name per line, "#" comments),
# one per line.
denied_tests() {
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$1"
}

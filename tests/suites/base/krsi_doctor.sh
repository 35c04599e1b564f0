#!/bin/sh
# krsi doctor: the usual questions, answered from this boot (the
# appliance's kernel, unlocked, the audit reader running, no stream to
# the host), each answer with the file and section that explain it
# (README.md or docs/); for a policy, whether
# it is attached, its mode, each program in its hook's file and how
# often it ran, its denials ("my program never fires"); and as the demo
# user, what it could not read, never "no" in its place.
. /tests/check.sh

expect 0 "doctor: root, nothing attached: no problem" krsi doctor
check "doctor: KRSI is an active LSM" says '^ok       KRSI is an active LSM (.*krsi'
check "doctor: each answer names the file and section that explain it" \
	says '^         (docs/kernel\.md: "The kernel side: KRSI on Linux 6\.1")$'
check "doctor: the hook files counted" says '^ok       [0-9][0-9]* hook files in /sys/kernel/security/bpf'
check "doctor: KRSI enforces" says '^ok       KRSI enforces'
case $(uname -m) in
x86_64) check "doctor: a trampoline attaches here, tried" \
		says '^ok       x86_64: a trampoline attached an LSM program on file_open (tried' ;;
*) check "doctor: no trampoline attaches here, tried: ENOTSUPP" \
		says "^note     $(uname -m): the trampoline attach fails with ENOTSUPP (524), tried" ;;
esac
check "doctor: no lock" says '^note     no lock: krsi_lock is not attached'
check "doctor: root may attach" says '^ok       an attach needs CAP_MAC_ADMIN.*this process has CAP_MAC_ADMIN, may load'
check "doctor: the reader runs" says '^ok       the audit reader runs (pid [0-9]*)'
check "doctor: no stream" says '^note     no stream to the host'

# "My policy does not fire": not attached, then audit mode, then counted.
expect 1 "doctor: a policy not attached is a problem" krsi doctor no_setuid
check "doctor: says it is not attached, and how to attach it" \
	says '^PROBLEM  no_setuid is not attached: krsi attach no_setuid'
krsi attach --audit no_setuid >/dev/null
krsi stats on >/dev/null
touch /tmp/doctor.x && chmod u+s /tmp/doctor.x
sleep 1
expect 0 "doctor: the policy attached in audit mode" krsi doctor no_setuid
check "doctor: says audit mode, and how to enforce" \
	says '^note     no_setuid is attached in audit mode: .* (krsi enforce no_setuid)'
check "doctor: a policy's answers name README's tutorial" \
	says '^         (README\.md: "Write your first policy")$'
check "doctor: each program in its hook's file, and how often it ran" \
	says '^ok       setuid_chmod on path_chmod, [0-9]* of [0-9]* in run order: ran [1-9][0-9]* time'
check "doctor: a program whose hook was not called is named" \
	says '^note     setuid_link on path_link, .*: ran 0 times since statistics were turned on: nothing called its hook'
check "doctor: the policy's would-be denials in the log" \
	says '^note     no_setuid: [0-9]* denials and [1-9][0-9]* would-be denials in the log'
expect 0 "doctor: --json" krsi doctor --json no_setuid
check "doctor: --json gives the answers" \
	says '^{"answers":\[{"topic":"lsm","verdict":"ok","text":"KRSI is an active LSM'
check "doctor: --json names the file and section" \
	says '"doc":"docs/kernel\.md","section":"The kernel side: KRSI on Linux 6\.1"'
krsi stats off >/dev/null
krsi detach no_setuid >/dev/null
rm -f /tmp/doctor.x

# The demo user: what it cannot read is UNKNOWN, with the errno.
expect 1 "doctor: the demo user: some of it cannot be read" su demo -c 'krsi doctor no_setuid'
check "doctor: the lock it cannot read is unknown, not absent" \
	says '^UNKNOWN  the lock: /sys/fs/bpf/krsi: EACCES (needs root)'
check "doctor: the trampoline is not tried as the demo user" says '(not tried: needs root)'
check "doctor: the demo user may not attach" says 'this process has no CAP_MAC_ADMIN, may not load'
check "doctor: the policy it cannot look at is unknown, not unattached" \
	says '^UNKNOWN  no_setuid: the hook files: EACCES (needs root)'
expect 2 "doctor: a policy that does not exist" krsi doctor no_such
check "doctor: names the policies" says "no policy 'no_such'"
check_exit

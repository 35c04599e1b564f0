#!/bin/sh
# Typed at the demo user's prompt by tests/sessions/exhaust.sh: the demo
# user, an attacker with the image's own tools, tries to raise the limits
# /init gave its session, fills every place it can write, and leaves memory
# hogs and a fork bomb running that the end of its shell does not stop.
# Root's shell then checks what is left (after_exhaust.sh).
. /tests/check.sh

# What /init set for the session, and the demo user cannot undo.
check "demo: at most 32 processes" sh -c '[ "$(ulimit -H -u)" = 32 ]'
check_fails "demo: cannot raise its process limit" sh -c 'ulimit -u 33'
check "demo: at most 8 MB of memory a process" sh -c '[ "$(ulimit -H -v)" = 8192 ]'
check_fails "demo: cannot raise its memory limit" sh -c 'ulimit -v 8193'
check "demo: at most 64 open files a process" sh -c '[ "$(ulimit -H -n)" = 64 ]'
check_fails "demo: cannot raise its open-file limit" sh -c 'ulimit -n 65'
check "demo: runs at nice 19" sh -c '[ "$(cut -d" " -f19 /proc/self/stat)" = 19 ]'
check_fails "demo: cannot raise its priority" sh -c 'renice -n -1 -p $$'
check "demo: the OOM killer's first choice" grep -qx 1000 /proc/self/oom_score_adj
check_fails "demo: cannot make itself a later choice" sh -c 'echo 999 >/proc/self/oom_score_adj'

# The demo user learns why it was denied, from its own records, within
# the session's limits (8 MB of address space a process).
cat /etc/krsi/secret 2>/dev/null
sleep 0.2
check "demo: krsi why names its last denial, within the session's limits" \
	sh -c 'krsi why | grep -q "uid 1000 cat: protect_secret denied EACCES: file_open /etc/krsi/secret$"'
check "demo: krsi events --mine shows its own records" \
	sh -c 'krsi events --mine -n 1 | grep -q " uid 1000 "'
check_fails "demo: and not the whole log" sh -c 'krsi events -n 1 >/dev/null 2>&1'

echo "# MemAvailable before the attack: $(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo) MB"

# Every place the demo user can write, filled: blocks, then inodes.
for dir in /tmp /dev/shm /home/demo; do
	dd if=/dev/zero of="$dir/fill" bs=1M 2>/dev/null
	i=0
	while true 2>/dev/null >"$dir/file$i"; do
		i=$((i + 1))
	done
	check "demo: $dir is full" sh -c "df -P $dir | awk 'NR == 2 { exit \$4 != 0 }'"
	check "demo: $dir has no inode left" sh -c "df -Pi $dir | awk 'NR == 2 { exit \$4 != 0 }'"
done

# Memory hogs and a fork bomb, which outlive the shell's hangup: 20 dd
# each holding a 5 MB buffer (about what 8 MB of address space leaves),
# and a bomb whose every process makes two more, then spins, until the
# process limit stops it.  Nothing after this forks.
trap '' HUP
i=0
while [ $i -lt 20 ]; do
	dd if=/dev/zero of=/dev/null bs=5M 2>/dev/null &
	i=$((i + 1))
done
bomb() { bomb & bomb & while :; do :; done; }
# Its errors go to the terminal, as the attacker would see them: "can't
# fork" is the process limit (tests/sessions/exhaust.sh looks for it).
bomb &
echo "exhaust: the demo user's attack runs"

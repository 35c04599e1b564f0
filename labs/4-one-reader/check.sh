#!/bin/sh
# Lab 4's checker (README.md): one program alone reads the lab's file,
# /tmp/lab4/secret (root's, mode 0644).  The demo user reads it by every
# route the checker knows; a route got through when the content came
# out.  /tests/lab_reader itself must still read it.
. /tests/lab.sh

mkdir -p /tmp/lab4 && echo "lab4-secret-content" >/tmp/lab4/secret
chmod 755 /tmp/lab4 && chmod 644 /tmp/lab4/secret
ln -sf /tmp/lab4/secret /home/demo/link && chown -h demo:demo /home/demo/link
hardlinks=$(cat /proc/sys/fs/protected_hardlinks)
echo 0 >/proc/sys/fs/protected_hardlinks
# got COMMAND: exit 0 when COMMAND printed the file's content.
got() { echo "$1 2>/dev/null | grep -q lab4-secret-content"; }

route "cat of its path" "$(got 'cat /tmp/lab4/secret')"
route "a symbolic link in the home" "$(got 'cat /home/demo/link')"
route "a hard link made in /tmp" \
	"h=/tmp/lab4-hard-\$\$; ln /tmp/lab4/secret \$h && $(got 'cat $h')"
route "/proc/PID/fd/3 of the reader, holding it open" \
	"/tests/lab_reader hold /tmp/lab4/secret & pid=\$!; sleep 0.2; $(got 'cat /proc/$pid/fd/3'); s=\$?; kill \$pid; exit \$s"
route "a descriptor the reader sends (SCM_RIGHTS)" \
	"/tests/lab_try recv-read /tmp/lab4-sock >/tmp/lab4-got & r=\$!; sleep 0.2; /tests/lab_reader send /tmp/lab4/secret /tmp/lab4-sock; wait \$r; grep -q lab4-secret-content /tmp/lab4-got"

try_routes 0
attach one_reader
try_routes refused
check "lab $lab: /tests/lab_reader still reads it" \
	as_demo "$(got '/tests/lab_reader /tmp/lab4/secret')"
reported one_reader "$nr_routes"
krsi detach one_reader >/dev/null
echo "$hardlinks" >/proc/sys/fs/protected_hardlinks
rm -rf /tmp/lab4 /tmp/lab4-hard-* /tmp/lab4-sock /tmp/lab4-got /home/demo/link
verdict

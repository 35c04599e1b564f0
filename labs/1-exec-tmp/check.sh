#!/bin/sh
# Lab 1's checker (README.md): nothing on /tmp's file system runs.  The
# demo user runs a program and a script put on /tmp, by every name the
# checker knows; each must work without exec_tmp and be refused with it.
. /tests/lab.sh

cp /bin/busybox /tmp/true	# named true: busybox runs its applet true
cp /bin/busybox /tmp/sh
printf '#!/bin/sh\nexit 0\n' >/tmp/script
printf '#!/tmp/sh\nexit 0\n' >/home/demo/uses-tmp-sh
mkdir -p /home/demo/bin
ln -sf /tmp/true /home/demo/bin/true
chmod 755 /tmp/true /tmp/sh /tmp/script /home/demo/uses-tmp-sh
chown -R demo:demo /home/demo/bin /home/demo/uses-tmp-sh

route "/tmp/true, a program, by its path" "/tmp/true"
route "/tmp/script, a script, by its path" "/tmp/script"
route "a symbolic link in the home to /tmp/true" "/home/demo/bin/true"
route "/tmp/script through /proc/self/fd/3" "exec 3</tmp/script; /proc/self/fd/3"
route "execveat() of a descriptor of /tmp/true" "/tests/lab_try execveat /tmp/true true"
route "a script of the home whose interpreter is /tmp/sh" "/home/demo/uses-tmp-sh"

try_routes 0
attach exec_tmp
try_routes refused
reported exec_tmp "$nr_routes"
krsi detach exec_tmp >/dev/null
rm -rf /tmp/true /tmp/sh /tmp/script /home/demo/bin /home/demo/uses-tmp-sh
verdict

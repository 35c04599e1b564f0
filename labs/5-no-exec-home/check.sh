#!/bin/sh
# Lab 5's checker (README.md): no file in the home is made executable.
# The demo user makes an executable file in /home/demo by every route the
# checker knows; a route got through when the file is there, executable.
. /tests/lab.sh

h=/home/demo
clean() { rm -f $h/lab5-*; }
# made NAME COMMAND: exit 0 when COMMAND left NAME in the home, executable.
made() { echo "$2 2>/dev/null; [ -f $h/$1 ] && [ -x $h/$1 ]"; }

route "chmod 755 of a file of its own" "$(made lab5-chmod "echo x >$h/lab5-chmod; chmod 755 $h/lab5-chmod")"
route "open(O_CREAT) with mode 0755" "$(made lab5-creat "/tests/lab_try create $h/lab5-creat 0755")"
route "cp -p of a program of the image" "$(made lab5-cp "cp -p /bin/busybox $h/lab5-cp")"
route "O_TMPFILE with mode 0755, then linkat()" \
	"$(made lab5-tmpfile "/tests/lab_try tmpfile $h 0755 $h/lab5-tmpfile")"

clean
try_routes 0
clean
attach no_exec_home
try_routes refused
check "lab $lab: a file of mode 0644 is still made, and written" \
	as_demo "echo x >$h/lab5-plain && [ -f $h/lab5-plain ] && [ ! -x $h/lab5-plain ]"
reported no_exec_home "$nr_routes"
krsi detach no_exec_home >/dev/null
clean
verdict

#!/bin/sh
# The KRSI demo, run by /init with krsi.mode=demo (./run-qemu.sh --demo) once
# the boot policies are attached and locked.  For each policy it runs an
# allowed and a denied case and shows the event the denial produced, read
# back from the audit log with `krsi events`.

events=/tmp/demo-events
# The updates make signs for the demo (tools/tools.mk).
KRSI_UPDATES=/usr/lib/krsi/updates

# run WHO COMMAND: run COMMAND with sh -c as root or as the demo user and
# print its first line of output or error, and its exit status.
run() {
	who=$1
	shift
	if [ "$who" = demo ]; then
		out=$(su demo -c "$*" 2>&1)
	else
		out=$(sh -c "$*" 2>&1)
	fi
	status=$?
	printf '    %-5s$ %-44s -> %s (exit %d)\n' "$who" "$*" \
		"$(echo "$out" | head -n 1)" "$status"
}

# scenario POLICY: print the policy's header; what it reports from now on
# is shown by show.
scenario() {
	policy=$1
	echo
	echo "--- $(krsi policies | grep "^$policy ")"
	from=$(( $(krsi events --json -n 1 | sed -n 's/^{"seq":\([0-9]*\),.*/\1/p') + 1 ))
}

# show [PATTERN]: print what the policy reported (what matches PATTERN),
# from the audit log, where the reader (SCHED_FIFO) has put it already.
show() {
	sleep 0.2
	krsi events --seq "$from" --policy "$policy" >"$events" 2>&1
	{ if [ $# -gt 0 ]; then grep "$@" "$events"; else cat "$events"; fi; } |
		head -n 6 | sed 's/^/    event  /'
}

# attack: the lines that follow try a way around the policy's hooks.
attack() {
	echo "    attacker's try: $*"
}


echo
echo "KRSI demo: each policy, allowed then denied, with what it reported."
krsi list | sed 's/^/    /'

scenario no_tmp_exec
# musl's dynamic loader, whichever architecture's the image has.
ldso=$(echo /lib/ld-musl-*.so.1)
cp /usr/bin/krsi-hello /tmp/hello
run demo /usr/bin/krsi-hello
run demo /tmp/hello
run demo "$ldso /usr/bin/krsi-hello"
run demo "$ldso /tmp/hello"
attack "put a program where the image is"
run demo "cp /bin/busybox /busybox"
attack "write code into a running process, with busybox alone"
run demo 'sleep 9 & dd if=/dev/zero of=/proc/$!/mem bs=1 count=1; s=$?; kill $!; exit $s'
show

scenario wx
run demo "krsi-wx rw"
run demo "krsi-wx rwx"
run demo "krsi-wx rw-then-x"
show

scenario protect_secret
run demo krsi-secret
run demo cat /etc/krsi/secret
run root "mv /etc/krsi/secret /etc/krsi/stolen"
attack "make the path lead to a file of one's own, as root"
run root "echo fake >/tmp/fake; mount --bind /tmp/fake /etc/krsi/secret"
run root "echo gone >/etc/krsi/secret"
show
echo "    the demo user asks why (krsi why, from its own records):"
su demo -c "krsi why" 2>&1 | sed 's/^/        /'

scenario protect_init
run root "kill -0 1"
run root "kill -TERM 1"
attack "inspect or change PID 1 without a signal"
run root "renice -n 10 -p 1"
run root "head -c 16 /proc/1/environ"
show

scenario no_module_load
run root "insmod /etc/krsi/boot.conf"
show

scenario krsi_lock
run root "krsi status | head -n 2 | tail -n 1"
run root "krsi detach wx"
attack "hide the hook files krsi status reads"
run root "umount /sys/kernel/security"
show

# The one change the lock leaves: a newer version, signed with the
# build's key, through the kernel (docs/policies.md, "Signed updates").
echo
echo "--- signed updates: after the lock, only a newer signed policy replaces one"
run root "grep ^protect_secret /sys/kernel/security/krsi/policies | cut -d' ' -f1,2"
run root "krsi replace $KRSI_UPDATES/protect_secret-v2.krsi"
run demo cat /etc/krsi/secret
run root "grep ^protect_secret /sys/kernel/security/krsi/policies | cut -d' ' -f1,2"
attack "roll back to the image's older, signed version"
run root "krsi replace protect_secret 2>/tmp/err; s=\$?; sed -n 2p /tmp/err; exit \$s"
attack "an update changed after it was signed"
cp $KRSI_UPDATES/protect_secret-v2.krsi /tmp/t
printf KRSI | dd of=/tmp/t bs=1 seek=4096 conv=notrunc 2>/dev/null
run root "krsi replace /tmp/t 2>/tmp/err; s=\$?; sed -n 2p /tmp/err; exit \$s"

scenario audit_exec
run demo "ls /etc/krsi"
attack "run a program under another name"
ln -s /usr/bin/krsi-secret /tmp/innocent
run demo /tmp/innocent
show -e "ls /etc/krsi" -e innocent

echo
echo "KRSI demo done."

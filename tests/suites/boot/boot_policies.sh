#!/bin/sh
# Booted with krsi.tests=boot: /init attached /etc/krsi/boot.conf and locked.
# Every policy's allowed and denied cases and the bypasses each one closes,
# from the shell; the system-call level ones are in boot_calls.
. /tests/check.sh

as_demo() { su demo -c "$*"; }

# The banner and the state it describes.
check "boot: banner written" test -s /run/krsi/banner
check "boot: banner says enforcing" grep -q "KRSI: *enforcing" /run/krsi/banner
check "boot: banner says locked" grep -q "locked until reboot" /run/krsi/banner
check_fails "boot: no policy failed to attach" grep -q "NOT ENFORCED" /run/krsi/banner
for p in $(grep -v -e '^#' -e '^$' /etc/krsi/boot.conf); do
	check "boot: $p attached" grep -q "^  $p *attached" /run/krsi/banner
done
check_fails "boot: the banner fits 80 columns" \
	awk 'length > 80 { print; found = 1 } END { exit !found }' /run/krsi/banner
check_fails "boot: the banner leaves the links to krsi status" grep -q "links:" /run/krsi/banner
check "boot: krsi status shows the links" \
	sh -c 'krsi status | grep -q "^ *links: bprm_check_security [0-9]* (prog [0-9]*)"'
check "boot: policies attached before anything else ran" \
	grep -q "^attached at [0-9.]*s of uptime" /run/krsi/banner
check "boot: the banner says the audit reader runs, guarded" \
	grep -q "^reader: *running (pid [0-9]*), guarded by protect_init, protect_log, krsi_lock$" \
	/run/krsi/banner
check_fails "boot: the banner says nothing of a last boot's trail (none here)" \
	grep -q "last boot's audit trail" /run/krsi/banner
check "boot: krsi list names the policy of each program" \
	sh -c 'krsi list | grep -q "^bprm_check_security:.* no_tmp_exec (no_tmp_exec, prog [0-9]*, link [0-9]*)"'

# no_tmp_exec; musl's loader, whichever architecture's the image has.
ldso=$(echo /lib/ld-musl-*.so.1)
cp /usr/bin/krsi-hello /tmp/krsi-hello
cp /usr/bin/krsi-hello /dev/shm/krsi-hello
cp /usr/bin/krsi-kernel-check /tmp/static_prog
check "no_tmp_exec: a program of the root fs runs" /usr/bin/krsi-hello
check "no_tmp_exec: through the loader too" "$ldso" /usr/bin/krsi-hello
check_fails "no_tmp_exec: exec from /tmp denied" /tmp/static_prog
check_fails "no_tmp_exec: exec from /dev/shm denied" /dev/shm/krsi-hello
check_fails "no_tmp_exec: exec from /tmp denied as demo" as_demo /tmp/static_prog
check_fails "no_tmp_exec: ld.so route denied (/lib/ld-musl /tmp/x)" \
	"$ldso" /tmp/krsi-hello
printf '#!/bin/sh\necho ran\n' >/tmp/script.sh
chmod +x /tmp/script.sh
check_fails "no_tmp_exec: a script in /tmp is not executed" /tmp/script.sh
mkdir -p /home/demo/bin && cp /usr/bin/krsi-kernel-check /home/demo/bin/prog
check_fails "no_tmp_exec: the demo user's home is not the image" as_demo /home/demo/bin/prog
cp /usr/bin/krsi-kernel-check /run/prog
check_fails "no_tmp_exec: nor is /run" /run/prog
check "no_tmp_exec: / is read-only" grep -q "^rootfs / rootfs ro" /proc/mounts
check "no_tmp_exec: / is not writable by anyone" stat -c %a / | grep -qx 755
# No /proc/PID/mem write forces its way in: on x86_64 the built-in command
# line says so; s390x has none and is built with CONFIG_PROC_MEM_NO_FORCE
# (tests/suites/base/proc_mem checks the behaviour on both).
if [ "$(uname -m)" = x86_64 ]; then
	check "no_tmp_exec: proc_mem.force_override=never is on the kernel command line" \
		grep -q "proc_mem.force_override=never" /proc/cmdline
fi
check_fails "lock: a tmpfs mounted later is refused" mount -t tmpfs tmpfs /tmp
check "no_tmp_exec: a script of the image runs" /usr/share/krsi/hello.sh

# wx
check "wx: read-write memory" krsi-wx rw
check "wx: writable+executable mapping denied" sh -c 'krsi-wx rwx | grep -q "mmap: EACCES"'
check "wx: write then exec denied" sh -c 'krsi-wx rw-then-x | grep -q "mprotect: EACCES"'
check "wx: denied for the demo user too" sh -c "su demo -c 'krsi-wx rwx' | grep -q EACCES"

# protect_secret
check "protect_secret: root reads the secret" cat /etc/krsi/secret
check "protect_secret: the named program reads it as demo" as_demo krsi-secret
check_fails "protect_secret: cat as demo denied" as_demo cat /etc/krsi/secret
check_fails "protect_secret: rename denied, root included" mv /etc/krsi/secret /etc/krsi/moved
check_fails "protect_secret: hard link denied" ln /etc/krsi/secret /etc/krsi/link
check_fails "protect_secret: unlink denied" rm -f /etc/krsi/secret
check_fails "protect_secret: chmod denied" chmod 666 /etc/krsi/secret
check_fails "protect_secret: truncate denied" sh -c ': >/etc/krsi/secret'
check "protect_secret: still in place" test -s /etc/krsi/secret
ln -s /etc/krsi/secret /tmp/secret-link
check_fails "protect_secret: a symlink does not help the demo user" as_demo cat /tmp/secret-link

# protect_init
check "protect_init: the null signal to PID 1 is allowed" kill -0 1
check_fails "protect_init: SIGUSR1 to PID 1 denied" kill -USR1 1
check_fails "protect_init: SIGKILL to PID 1 denied" kill -KILL 1

# no_module_load: see boot_calls for the errno of each way in.
check_fails "no_module_load: insmod denied" insmod /etc/krsi/boot.conf

# Nothing of KRSI is open to an unprivileged user.
check_fails "privilege: demo cannot read the pins" as_demo ls /sys/fs/bpf/krsi
check_fails "privilege: demo cannot read the whole log" as_demo krsi events
# ... and every krsi command says what it could not read, never "nothing".
check "honest: demo's krsi events names the log it cannot read, and --mine" \
	sh -c "su demo -c 'krsi events' 2>&1 |
	       grep -q 'read /var/log/krsi (needs root; krsi events --mine shows your own): EACCES'"
check_fails "honest: demo's krsi list exits non-zero" as_demo krsi list
check "honest: demo's krsi list names the hook file it cannot read" \
	sh -c "su demo -c 'krsi list' 2>&1 | grep -q 'security/bpf/.*(needs root): EACCES'"
check_fails "honest: demo's krsi list never says nothing is attached" \
	sh -c "su demo -c 'krsi list' 2>&1 | grep -q 'no program attached'"
check_fails "honest: demo's krsi status exits non-zero" as_demo krsi status
check "honest: demo's krsi status shows what it cannot know" \
	sh -c "su demo -c 'krsi status' 2>&1 | grep -q '^  wx  *? (EACCES)'"
check "honest: demo's krsi status still reads the mode" \
	sh -c "su demo -c 'krsi status' 2>&1 | grep -q '^KRSI: *enforcing'"
check_fails "privilege: demo cannot read a hook file" as_demo cat /sys/kernel/security/bpf/file_open
check_fails "honest: demo's krsi list --json exits non-zero" as_demo krsi list --json
check "honest: demo's krsi list --json counts the files it could not read" \
	sh -c "su demo -c 'krsi list --json' 2>/dev/null | grep -q '\"unreadable\":[1-9]'"
check_fails "honest: demo's krsi status --json exits non-zero" as_demo krsi status --json
check "honest: demo's krsi status --json gives the errno, not a state" \
	sh -c "su demo -c 'krsi status --json' 2>/dev/null |
	       grep -q '{\"name\":\"wx\",\"state\":null,\"error\":\"EACCES\",\"mode\":null}'"
for cmd in "attach wx" "detach wx" "replace wx" "enforce wx" "audit wx" "lock" \
	   "hooks" "hook file_open" "stats on"; do
	check_fails "privilege: demo's krsi $cmd fails" as_demo krsi $cmd
	check "honest: demo's krsi $cmd names the errno" \
		sh -c "su demo -c 'krsi $cmd' 2>&1 | grep -q -e EPERM -e EACCES"
done
check "demo's krsi policies lists the policies it carries" \
	sh -c "su demo -c 'krsi policies' | grep -q '^wx '"
check "root's krsi list --json: each program with its policy" \
	sh -c "krsi list --json | grep -q '{\"hook\":\"bprm_check_security\",\"programs\":\[.*{\"name\":\"no_tmp_exec\",\"policy\":\"no_tmp_exec\",\"prog_id\":[0-9]*,\"link_id\":[0-9]*}'"
check "root's krsi status --json: enforcing, locked, the reader guarded and streaming (or no port), wx attached" \
	sh -c "krsi status --json | grep -q '^{\"krsi\":\"enforcing\",\"lock\":\"locked\",\"reader\":{\"state\":\"running\",\"pid\":[0-9]*,\"silent_s\":[0-9]*,\"protect_init\":true,\"protect_log\":true,\"krsi_lock\":true},\"stream\":{\"state\":\"\(streaming\|none\)\"[^}]*},\"policies\":\[.*{\"name\":\"wx\",\"state\":\"attached\",\"mode\":\"enforce\",\"links\":'"
check_fails "krsi status takes only --json" krsi status --yaml

# krsi_lock
check_fails "lock: detach refused" krsi detach wx
check_fails "lock: replace refused" krsi replace wx
check_fails "lock: attaching anything refused" krsi attach protect_init
check "lock: krsi lock again says so" sh -c 'krsi lock | grep -q "already locked"'
echo "krsi: 209 hooks, audit only" >/dev/kmsg
check "lock: a line written to /dev/kmsg does not change what status says" \
	sh -c 'krsi status | grep -q "^KRSI: *enforcing"'
check "lock: wx still attached, and krsi list still works" \
	sh -c 'krsi list | grep -q "^mmap_file:.*wx_mmap (wx, prog [0-9]*, link [0-9]*)"'
wx_ids=$(krsi list | sed -n 's/^mmap_file:.* wx_mmap (wx, prog \([0-9]*\), link \([0-9]*\)).*/\1 \2/p')
check "lock: bpftool prog show of wx_mmap by its id still works" \
	sh -c "bpftool prog show id ${wx_ids% *} | grep -q '^${wx_ids% *}: lsm  name wx_mmap '"
check "lock: bpftool link show still works, with wx_mmap's hook" \
	sh -c "bpftool link show | grep -q '^${wx_ids#* }: krsi  prog ${wx_ids% *}  hook mmap_file'"
# protect_log is the boot policy /init attaches: pinned, or held by the
# kernel when it locked at boot (tests/suites/boot/boot_held.sh).
if [ -e /sys/fs/bpf/krsi/protect_log ]; then
	check_fails "lock: bpftool map dump, which asks for a writable map, is refused" \
		bpftool map dump pinned /sys/fs/bpf/krsi/protect_log/policy_mode
	check_fails "lock: bpftool link detach refused" \
		bpftool link detach pinned /sys/fs/bpf/krsi/protect_log/log_open
else
	check "lock: bpftool map dump, which asks for a writable map, is refused" \
		sh -c 'bpftool map dump name policy_mode 2>&1 | grep -q "Operation not permitted"'
	log_link=$(sed -n 's/^protect_log [0-9]* [0-9a-f]* [0-9]* [0-9]* [0-9]* \([0-9]*\).*/\1/p' \
		/sys/kernel/security/krsi/policies)
	check_fails "lock: bpftool link detach of protect_log's link refused" \
		bpftool link detach id "${log_link:-0}"
fi
check_fails "lock: bpftool link detach of a link the kernel holds refused" \
	bpftool link detach id "${wx_ids#* }"
check "lock: wx_mmap's link is still attached" \
	sh -c "bpftool link show id ${wx_ids#* } | grep -q 'hook mmap_file'"
check_fails "lock: krsi audit refused, the mode is frozen" krsi audit wx
check "lock: and says so with the errno" sh -c 'krsi audit wx 2>&1 | grep -q "audit wx: map policy_mode: EPERM"'
check "lock: wx still enforcing" sh -c 'krsi status | grep -q "^  wx *attached *enforce "'
check_fails "lock: the policy still denies" sh -c 'krsi-wx rwx | grep -q ok'

# audit_exec and denial events, with the policy's name, read from the
# log as the reader writes it (-t: following it for that long).
krsi events -t 4 >/tmp/events 2>&1 &
reader=$!
sleep 1
/bin/true audit-marker-arg
/tmp/static_prog 2>/dev/null
ln -s /usr/bin/krsi-secret /tmp/innocent
as_demo /tmp/innocent >/dev/null
/usr/share/krsi/hello.sh >/dev/null
(cd /usr/bin && ./krsi-kernel-check >/dev/null)
wait $reader
check "audit: the exec is reported as the file the kernel ran, with its arguments" \
	grep -q "audit_exec allowed exec /bin/busybox: /bin/true audit-marker-arg" /tmp/events
check "audit: a symlink does not hide what ran" \
	grep -q "audit_exec allowed exec /usr/bin/krsi-secret: /tmp/innocent" /tmp/events
check "audit: the record names the caller, not the name it ran under" \
	grep -q "uid 1000 sh: audit_exec allowed exec /usr/bin/krsi-secret: /tmp/innocent" /tmp/events
check "audit: a script is reported with its interpreter" \
	grep -q "audit_exec allowed exec /usr/share/krsi/hello.sh (interpreter /bin/busybox): /bin/sh /usr/share/krsi/hello.sh" /tmp/events
check "audit: a relative path is reported in full" \
	grep -q "audit_exec allowed exec /usr/bin/krsi-kernel-check: ./krsi-kernel-check" /tmp/events
check_fails "audit: no record names the symlink as the program" \
	grep -q "allowed exec /tmp/innocent" /tmp/events
check "audit: the denial is reported with the policy's name" \
	grep -q "no_tmp_exec denied EACCES: bprm_check_security static_prog" /tmp/events

# The number of the last record: what a test makes comes after it.
last_seq() { krsi events --json -n 1 | sed -n 's/^{"seq":\([0-9]*\),.*/\1/p'; }

# One log, in time order.  The reader drains every buffer at once and
# sorts what it drained by time.  The guest's clock moves in 4 ms jiffies
# (no HPET, and the TSC is not used: "Unable to calibrate against PIT"),
# and reports of one jiffy cannot be told apart by time: 10 ms between
# the events to order.
from=$(( $(last_seq) + 1 ))
for i in 1 2 3; do
	/tmp/static_prog 2>/dev/null
	sleep 0.01
	/bin/true "order-marker-$i"
	sleep 0.01
done
sleep 0.2
krsi events --seq "$from" >/tmp/events.all 2>&1
grep '^ *[0-9.]* pid ' /tmp/events.all >/tmp/events.lines
check "events: the log has both policies' reports" \
	sh -c 'grep -q "order-marker-3" /tmp/events.lines &&
	       grep -q "no_tmp_exec denied" /tmp/events.lines'
check "events: in time order across the buffers" \
	awk '{ t = $1 + 0; if (t < last) exit 1; last = t }' /tmp/events.lines
# (Anchored at the end: the records of the checks' own greps quote them.)
# On failure, what the reader got goes to the console.
check "events: denials and execs come in the order they happened" \
	sh -c '[ "$(grep -e "/bin/true order-marker-[0-9]$" \
			 -e "no_tmp_exec denied EACCES: bprm_check_security static_prog$" \
			 /tmp/events.lines |
		    sed -e "s/.*order-marker-\([0-9]\)$/M\1/" -e "s/.*static_prog$/D/" |
		    tr -d "\n")" = DM1DM2DM3 ]' ||
	sed 's/^/# events.all: /' /tmp/events.all
# -n N prints the last N records, however many the log holds.
for i in 1 2 3 4; do /bin/true "count-marker-$i"; done
krsi events -n 2 --policy audit_exec >/tmp/events.n 2>&1
check "events: -n 2 prints exactly two records, the last two" \
	sh -c '[ "$(grep -c "^ *[0-9]" /tmp/events.n)" = 2 ] &&
	       grep -q "exec /usr/bin/krsi: krsi events -n 2 --policy audit_exec$" /tmp/events.n'
# ... and takes nothing away: the demo user's denials before it are all
# still there for the next reader (krsi events -n used to consume every
# buffer and print N).
from=$(( $(last_seq) + 1 ))
for i in 1 2 3; do as_demo "cat /etc/krsi/secret" 2>/dev/null; done
sleep 0.2
krsi events -n 1 >/dev/null
check "events: -n 1 keeps every other record: the 3 denials are still there" \
	sh -c "[ \$(krsi events --seq $from --policy protect_secret | grep -c 'uid 1000 cat: protect_secret denied EACCES: file_open /etc/krsi/secret$') = 3 ]"
# Two readers at once see the same records.
from=$(( $(last_seq) + 1 ))
krsi events --json --seq "$from" -t 3 >/tmp/events.one &
one=$!
krsi events --json --seq "$from" -t 3 >/tmp/events.two &
two=$!
sleep 0.5
for i in 1 2 3; do as_demo "/bin/true two-readers-$i; cat /etc/krsi/secret" 2>/dev/null; done
wait $one $two
check "events: two readers at once see the same records" \
	sh -c 'grep -q two-readers-3 /tmp/events.one && cmp -s /tmp/events.one /tmp/events.two'
# --json: one object per line, as the log holds it.
/tmp/static_prog 2>/dev/null
sleep 0.2
krsi events --json --policy no_tmp_exec -n 1 >/tmp/events.json 2>&1
check "events: --json prints one object per line" \
	sh -c '[ "$(wc -l </tmp/events.json)" = 1 ] && grep -q "^{\"seq\":[0-9]*,\"time_ns\":[0-9]*,\"pid\":" /tmp/events.json'
check "events: --json names the policy, the verdict and the hook" \
	grep -q '"policy":"no_tmp_exec","event":"deny","verdict":"EACCES","hook":"bprm_check_security"' /tmp/events.json ||
	sed 's/^/# events.json: /' /tmp/events.json
check_fails "events: -n 0 is refused" krsi events -n 0
check_fails "events: -t with a word is refused" krsi events -t soon
check_fails "events: --policy of no policy is refused" krsi events --policy nope

# The demo user reads their own records, and only theirs; krsi why.
from=$(( $(last_seq) + 1 ))
as_demo "cat /etc/krsi/secret" 2>/dev/null
/bin/true root-only-marker
sleep 0.2
su demo -c "krsi events --mine --json --seq $from" >/tmp/events.mine 2>&1
check "demo: krsi events --mine shows the demo user's denial" \
	grep -q '"uid":1000,"comm":"cat","policy":"protect_secret","event":"deny","verdict":"EACCES","hook":"file_open","what":"/etc/krsi/secret","load":"[0-9a-f]*","version":1,"prog_id":[0-9]*,"link_id":[0-9]*}' /tmp/events.mine
check_fails "demo: and nobody else's records" grep -q -e '"uid":0,' -e root-only-marker /tmp/events.mine
check_fails "demo: the whole log is root's" as_demo "cat /var/log/krsi/log.*"
su -s /bin/sh nobody -c "/bin/true nobody-marker"
sleep 0.2
check "nobody: another user has a log of their own" \
	sh -c "su -s /bin/sh nobody -c 'krsi events --mine' | grep -q 'exec /bin/busybox: /bin/true nobody-marker$'"
check_fails "demo: and cannot read it" as_demo "ls /var/log/krsi/uid/65534"
su demo -c "krsi why" >/tmp/why 2>&1
check "demo: krsi why shows the last denial" \
	grep -q "uid 1000 cat: protect_secret denied EACCES: file_open /etc/krsi/secret$" /tmp/why
check "demo: with the policy's guarantee" \
	grep -q "^protect_secret: one file only root and one program may read" /tmp/why
check "demo: and what to read" \
	sh -c 'grep -q "krsi hook file_open" /tmp/why && grep -q "progs/protect_secret.bpf.c" /tmp/why'
as_demo "/bin/true demo-after" >/dev/null
check "why: a user never denied is told so, status 1" \
	sh -c "su -s /bin/sh nobody -c 'krsi why 2>&1; echo status \$?' | tr '\n' ' ' |
	       grep -q 'no denial of uid 65534 in /var/log/krsi/uid/65534 status 1'"

# The reader keeps up with the demo user's execs (audit_exec's buffer used
# to fill after about 300 with nobody reading it): 400 in a row, every one
# recorded, nothing lost.
from=$(( $(last_seq) + 1 ))
as_demo 'i=0; while [ $i -lt 400 ]; do /bin/true burst-$i; i=$((i + 1)); done
	 /usr/bin/krsi-hello after-the-burst' >/dev/null
sleep 0.5
krsi events --seq "$from" >/tmp/events.burst 2>&1
check "audit_exec: 400 execs of demo's in a row, all recorded" \
	sh -c '[ "$(grep -c "uid 1000 sh: audit_exec allowed exec /bin/busybox: /bin/true burst-[0-9]*$" /tmp/events.burst)" = 400 ]'
check "audit_exec: and the one after them" \
	grep -q "uid 1000 .*audit_exec allowed exec /usr/bin/krsi-hello: /usr/bin/krsi-hello after-the-burst$" \
	/tmp/events.burst
check_fails "audit_exec: nothing lost" grep -q "lost by" /tmp/events.burst

check_exit

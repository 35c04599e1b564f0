#!/bin/sh
# Booted with krsi.tests=boot: the flood.  The demo user runs 10,000
# programs as fast as busybox can, while another of its processes makes
# every boot policy it can reach deny at full speed
# (tests/helpers/flood_denials.c), 20,000 times.  The reader must keep
# up: for every exec a record or a refusal, no report lost; two readers
# following the log meanwhile see the same records; the log stays within
# its size by rotation, each rotation recorded.  The numbers go to the
# results.  (100,000 records and -n 1 over them: tests/suites/base/krsi_logd.sh,
# in a boot whose log is not also streamed to the host, byte by byte.)
. /tests/check.sh

execs=10000
denials=20000
# The debug kernel (KASAN, lockdep) is some five times slower: the same
# flood, smaller, for its correctness alone.
grep -q panic_on_warn=1 /proc/cmdline && execs=2000 denials=4000

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# The last record's sequence number.
last_seq() { krsi events --json -n 1 | sed -n 's/^{"seq":\([0-9]*\),.*/\1/p'; }

rm -f /tmp/flood.stop /tmp/flood.*
first=$(( $(last_seq) + 1 ))
krsi events -f --json --uid 1000 --seq "$first" >/tmp/flood.root &
follow_root=$!
krsi events -f --json --uid 1000 --seq "$first" >/tmp/flood.second &
follow_second=$!
su demo -c "/tests/flood_denials $denials" >/tmp/flood.denials &
denier=$!

t0=$(uptime_s)
su demo -c "i=0; while [ \$i -lt $execs ]; do
		/bin/true flood-\$i || echo refused \$i
		i=\$((i + 1))
	    done; cut -d' ' -f1 /proc/uptime" >/tmp/flood.out 2>&1 &
execer=$!
wait $denier
t2=$(uptime_s)
wait $execer
t1=$(tail -n 1 /tmp/flood.out)
# The followers poll every 100 ms: give them the last records.
sleep 2
kill $follow_root $follow_second
wait $follow_root $follow_second 2>/dev/null
last=$(last_seq)

# Every exec: a record (its argument says which) or a refusal.
sed -n 's/.*"args":\["\/bin\/true","flood-\([0-9]*\)"\].*/\1/p' /tmp/flood.root |
	sort -n >/tmp/flood.recorded
sed -n 's/^refused \([0-9]*\)$/\1/p' /tmp/flood.out | sort -n >/tmp/flood.refused
recorded=$(wc -l </tmp/flood.recorded)
refused=$(wc -l </tmp/flood.refused)
sort -n -u /tmp/flood.recorded /tmp/flood.refused >/tmp/flood.either
rate=$(awk -v n=$execs -v a=$t0 -v b=$t1 'BEGIN { printf "%.0f", n / (b - a) }')
check "flood: $execs execs of demo's in $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s ($rate/s) beside a denial flood: $recorded recorded, $refused refused" \
	[ "$recorded" -eq "$(sort -n -u /tmp/flood.recorded | wc -l)" ]
check "flood: every exec is recorded or refused, none both" \
	sh -c "[ $(wc -l </tmp/flood.either) -eq $execs ] && [ $((recorded + refused)) -eq $execs ]"
check "flood: the reader keeps up: no exec refused" [ "$refused" -eq 0 ]

denials=$(grep -c '"event":"deny"' /tmp/flood.root)
lost=$(sed -n 's/.*"event":"lost","count":\([0-9]*\)}$/\1/p' /tmp/flood.root |
	awk '{ n += $1 } END { print n + 0 }')
check "flood: $(cat /tmp/flood.denials) denied calls in $(awk -v a=$t0 -v b=$t2 'BEGIN { print b - a }') s: $denials reports logged, $lost lost" \
	[ "$denials" -gt 0 ]
check "flood: the reader keeps up: no report lost" [ "$lost" -eq 0 ]

# The whole log since, read once: numbered without a gap, nothing taken
# away by the readers before, the same records the followers saw.
a=$(uptime_s)
krsi events -n 1 >/tmp/flood.last
b=$(uptime_s)
krsi events --json --seq "$first" >/tmp/flood.all
c=$(uptime_s)
check "flood: the log holds $(wc -l </tmp/flood.all) records more, numbered without a gap" \
	awk -F'[:,]' -v s=$first '{ if ($2 != s++) exit 1 } END { exit s <= '$((first + execs + denials))' }' \
	/tmp/flood.all
check "krsi events -n 1 over them: exactly one ($(awk -v a=$a -v b=$b 'BEGIN { print b - a }') s; all of them: $(awk -v b=$b -v c=$c 'BEGIN { print c - b }') s)" \
	[ "$(wc -l </tmp/flood.last)" = 1 ]
check "flood: two readers following the log saw the same records" \
	cmp -s /tmp/flood.root /tmp/flood.second
check "flood: and what they saw is what the log holds" \
	sh -c "grep '\"uid\":1000,' /tmp/flood.all | head -n $(wc -l </tmp/flood.root) | cmp -s - /tmp/flood.root"

# Rotation: bounded, and recorded (the log's segments are 4 MB, which
# the small flood of the debug kernel does not fill).
[ $execs -lt 10000 ] ||
	check "flood: the log rotated, each rotation a record" \
		grep -q '"policy":"reader","event":"rotate","what":"log\.[0-9]* begun' /tmp/flood.all
check "flood: the demo user's own log rotated, the oldest removed, recorded" \
	grep -q '"uid":1000,.*"policy":"reader","event":"rotate","what":"uid/1000/log\.[0-9]* begun, uid/1000/log\.[0-9]* removed"}' /tmp/flood.root
check "flood: the log stays within its file system ($(du -sk /var/log/krsi | cut -f1) KB)" \
	sh -c '[ $(ls /var/log/krsi | grep -c "^log\.") -le 8 ] &&
	       [ $(ls /var/log/krsi/uid/1000 | grep -c "^log\.") -le 2 ] &&
	       [ $(du -sk /var/log/krsi | cut -f1) -le 49152 ]'
check "flood: the reader still runs, guarded" \
	sh -c 'krsi status | grep -q "^reader: *running (pid [0-9]*), guarded by protect_init, protect_log, krsi_lock$"'
rm -f /tmp/flood.*
check_exit

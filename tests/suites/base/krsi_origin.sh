#!/bin/sh
# Denial records that say who and why: each denial names the load of its
# policy (a random id), the policy's version, and the program and KRSI
# link that denied (as krsi list shows them); the load's origin record,
# logged once, says who attached it (pid, uid, executable, when), and is
# copied into a user's own log before their first denial by it, so that
# krsi why says it to them.  When a load goes (detached, replaced), the
# reader logs how many denials it made on each hook, reported or not,
# and how many of them the log holds.
. /tests/check.sh

as_demo() { su demo -c "$*"; }
deny_line() { krsi events --json --policy protect_secret | grep "\"event\":\"$1\"" | tail -n 1; }

krsi attach protect_secret >/dev/null
as_demo "cat /etc/krsi/secret" 2>/dev/null
sleep 0.5
line=$(deny_line deny)
ids=$(krsi list | sed -n 's/.* secret_open (protect_secret, prog \([0-9]*\), link \([0-9]*\)).*/\1 \2/p')
prog=${ids% *} link=${ids#* }
load=$(echo "$line" | sed -n 's/.*"load":"\([0-9a-f]*\)".*/\1/p')
check "origin: the denial names its load and the policy's version" \
	sh -c "echo '$line' | grep -q '\"what\":\"/etc/krsi/secret\",\"load\":\"[0-9a-f]\{16\}\",\"version\":1,'"
check "origin: and the program and link that denied, as krsi list has them ($prog, $link)" \
	sh -c "echo '$line' | grep -q '\"prog_id\":$prog,\"link_id\":$link}$'"
check "origin: the load's origin record: root attached it, with /usr/bin/krsi, when, its programs" \
	sh -c "krsi events --json --policy protect_secret | grep -q '\"event\":\"origin\",\"load\":\"$load\",\"version\":1,\"attached_pid\":[1-9][0-9]*,\"attached_uid\":0,\"attached_exe\":\"/usr/bin/krsi\",\"attached_ns\":[1-9][0-9]*,\"what\":\".*file_open prog $prog link $link'"
check "origin: copied into the demo user's own log, once" \
	sh -c "[ \$(cat /var/log/krsi/uid/1000/log.* | grep -c '\"event\":\"origin\",\"load\":\"$load\"') = 1 ]"
expect 0 "origin: krsi why, as the demo user" su demo -c 'krsi why'
check "origin: krsi why names the program, link, version and load" \
	says "^Made by program $prog on link $link of protect_secret, version 1 (load $load),$"
check "origin: and who attached it" says "^attached by pid [0-9]*, uid 0 (/usr/bin/krsi), at [0-9]*\.[0-9]* s of uptime\.$"

as_demo "cat /etc/krsi/secret" 2>/dev/null
krsi detach protect_secret >/dev/null
sleep 0.5
check "detach: the reader logs the load's denials on file_open: 2, both in the log" \
	sh -c "krsi events --json --policy protect_secret | grep -q '\"event\":\"denials\",\"hook\":\"file_open\",\"load\":\"$load\",\"version\":1,\"prog_id\":$prog,\"link_id\":$link,\"denied\":2,\"would_deny\":0,\"logged\":2,\"why\":\"detached\"}$'"
check "detach: and says so in text" \
	sh -c "krsi events --policy protect_secret | grep -q 'protect_secret v1 (load $load), link $link (prog $prog) on file_open: denied 2, would have denied 0, 2 of these in the log; detached$'"

# Replaced: the old load's count, then the new load's denials.
krsi attach --audit protect_secret >/dev/null
as_demo "cat /etc/krsi/secret" >/dev/null 2>&1
sleep 0.5
old=$(deny_line would_deny | sed -n 's/.*"load":"\([0-9a-f]*\)".*/\1/p')
krsi replace protect_secret >/dev/null
sleep 0.5
check "replace: the old load's would-be denial counted" \
	sh -c "krsi events --json --policy protect_secret | grep -q '\"event\":\"denials\",\"hook\":\"file_open\",\"load\":\"$old\",.*\"denied\":0,\"would_deny\":1,\"logged\":1,\"why\":\"replaced\"}$'"
as_demo "cat /etc/krsi/secret" >/dev/null 2>&1
sleep 0.5
new=$(deny_line would_deny | sed -n 's/.*"load":"\([0-9a-f]*\)".*/\1/p')
check "replace: the new load's records name the new load ($old, then $new)" \
	sh -c "[ -n '$new' ] && [ '$new' != '$old' ]"
krsi detach protect_secret >/dev/null
check_exit

#!/bin/sh
# Lab 2's checker (README.md): nobody links a file of another user's.
# The demo user links a file of root's in /tmp by every route the
# checker knows: without the policy each works; with link_other in audit
# mode each still works and is reported as what it would deny; enforcing,
# each is refused and reported as denied.
. /tests/lab.sh

fresh() { rm -f /tmp/l1 /tmp/l2 /tmp/l3; }
echo root >/tmp/roots && chmod 644 /tmp/roots
ln -sf /tmp/roots /tmp/to-roots
# The kernel's own check would refuse the links first (fs.protected_hardlinks).
hardlinks=$(cat /proc/sys/fs/protected_hardlinks)
echo 0 >/proc/sys/fs/protected_hardlinks

route "link() of root's file" "ln /tmp/roots /tmp/l1"
route "linkat() through a symbolic link (AT_SYMLINK_FOLLOW)" \
	"/tests/lab_try linkat-follow /tmp/to-roots /tmp/l2"
route "linkat() of /proc/self/fd/3, a descriptor of it" \
	"exec 3</tmp/roots; /tests/lab_try linkat-follow /proc/self/fd/3 /tmp/l3"

fresh
try_routes 0
fresh
attach link_other --audit
try_routes 0 "in audit mode"
sleep 1
n=$(krsi events --policy link_other 2>/dev/null | grep -c " link_other would deny ")
check "lab $lab: in audit mode, $n of the $nr_routes links reported as what it would deny" \
	[ "$n" -ge "$nr_routes" ]
fresh
krsi enforce link_other >/dev/null
try_routes refused
reported link_other "$nr_routes"
krsi detach link_other >/dev/null
fresh
rm -f /tmp/roots /tmp/to-roots
echo "$hardlinks" >/proc/sys/fs/protected_hardlinks
verdict

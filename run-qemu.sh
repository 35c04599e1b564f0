#!/bin/sh
# Boot the KRSI appliance (image/bzImage + image/initramfs.cpio.gz, or those
# of image/ARCH/) in QEMU on the serial console. See --help.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
arch=x86_64
kernel=
initrd=
learn=
append=""
mode=""
results=""
log=""
verify=""
timeout=0
accel=tcg
icount=
efi=
smp=2
memory=512M
# Kernel messages of warning level and above reach the console; the rest
# stay in dmesg, out of the prompt and the demo (--verbose: all of them).
loglevel=5

usage() {
	cat <<USAGE
usage: run-qemu.sh [OPTION]...

Boot the KRSI appliance in QEMU, on this terminal (serial console, no
graphics). The guest powers off with 'reboot -f'; Ctrl-A X also quits QEMU.

  --arch ARCH       the appliance built for ARCH: x86_64 (the default,
                    built by 'make'), arm64 ('make ARCH=arm64') or s390x
                    ('make ARCH=s390x')
  --kvm             use KVM instead of software emulation (TCG), after a
                    short probe boot shows that KVM works on this machine
                    (x86_64 on an x86_64 host, arm64 on an arm64 host)
  --learn           the learning boot: the same image on the kernel without
                    boot policies (its first build, build/kernel-bare/),
                    where /init attaches boot.conf's policies (or those of
                    krsi.policies=) and never locks, so that policies can
                    be attached, detached and tried in audit mode; the
                    banner says LEARNING ('make run LEARN=1')
  --demo            show each policy at work, allowed and denied case with
                    the event it produced, then power off (--mode demo)
  --icount          count instructions instead of running in real time:
                    one guest nanosecond is one instruction, so timings in
                    the guest are exact and repeatable (for benchmarks)
  --efi             arm64: boot through QEMU's UEFI firmware (edk2, from
                    qemu-efi-aarch64), which gives the kernel ACPI tables
                    (the kernel must have CONFIG_EFI and CONFIG_ACPI)
  --verbose         show every kernel message on the console, not only
                    warnings and worse (dmesg has them all either way)
  --append ARGS     extra kernel command line arguments
  --mode MODE       what /init does: shell (default), demo, test
  --kernel FILE     kernel to boot (default image/bzImage, for arm64
                    image/arm64/Image, for s390x image/s390x/bzImage)
  --initrd FILE     initramfs to boot (default image/initramfs.cpio.gz,
                    for ARCH image/ARCH/initramfs.cpio.gz)
  --results FILE    connect the guest's results port to FILE: its second
                    serial port (/dev/ttyS1) on x86_64, a virtio serial
                    port named krsi.results on arm64 and s390x; the test
                    mode writes its results there
  --log FILE        connect the guest's audit stream port to FILE,
                    appending (x86_64: its third serial port, /dev/ttyS2;
                    arm64: a virtio console, /dev/hvc0; s390x has none):
                    the audit reader streams every record
                    of the audit log there as it writes it (JSON lines),
                    so that the host keeps the trail whatever becomes of
                    the guest; every line is sealed (krsi events
                    --verify).  After the boot this boot's trail is
                    checked, and so is the whole file before it (a trail
                    that does not verify is said in the next boot's
                    banner); while the guest runs, a stream silent for
                    SILENCE seconds is said (the reader's heartbeat comes
                    every 10 s; KRSI_STREAM_SILENCE, default 30), and
                    what it carried is checked every 10 s, each line
                    forged, dropped or out of place, and each heartbeat
                    saying records are held back, said as it is found;
                    the boot's verdict counts a silence, and a machine
                    that ran on for more than 5 s after its reader's
                    stop record reached FILE (measured here)
  --verify FILE     check FILE, a host's copy of the audit stream, with
                    the image's own krsi (image/krsi, or image/ARCH/krsi
                    under qemu-user) and exit: krsi events --verify
  --memory SIZE     the guest's memory, as QEMU's -m takes it (default
                    512M; the kernel's BPF selftests want more)
  --timeout SECS    stop QEMU after SECS seconds (exit status 124)
  -h, --help        show this text

Exit status: QEMU's (0 when the guest rebooted), 124 on --timeout.
USAGE
}

die() { echo "run-qemu.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || die "--arch needs an architecture"; arch=$2; shift ;;
	--kvm) accel=kvm ;;
	--learn) learn=1 ;;
	--verbose) loglevel=8 ;;
	--demo) mode=demo ;;
	--icount) icount=1 ;;
	--efi) efi=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd ;;
	--append) [ $# -ge 2 ] || die "--append needs an argument"; append="$append $2"; shift ;;
	--mode) [ $# -ge 2 ] || die "--mode needs an argument"; mode=$2; shift ;;
	--kernel) [ $# -ge 2 ] || die "--kernel needs a file"; kernel=$2; shift ;;
	--initrd) [ $# -ge 2 ] || die "--initrd needs a file"; initrd=$2; shift ;;
	--results) [ $# -ge 2 ] || die "--results needs a file"; results=$2; shift ;;
	--log) [ $# -ge 2 ] || die "--log needs a file"; log=$2; shift ;;
	--verify) [ $# -ge 2 ] || die "--verify needs a file"; verify=$2; shift ;;
	--memory) [ $# -ge 2 ] || die "--memory needs a size"; memory=$2; shift ;;
	--timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown option '$1'" ;;
	esac
	shift
done

# What differs from one architecture to the other: the emulator, the
# machine, the console and where the results port is.  arm64's virt
# machine has one UART, the console (ttyAMA0): the results go to a virtio
# serial port, which the guest finds by its name (tests/lib/run-suite.sh),
# the stream to a virtio console.  s390x's console is the SCLP's VT220
# terminal, which -nographic puts on stdio; it has no second UART either:
# the results go to a virtio serial port on the channel subsystem.
kname=bzImage
case $arch in
x86_64)
	images=$here/image make=make
	qemu_bin=qemu-system-x86_64 machine=
	console=ttyS0 tcg_opts= icount_smp=2
	;;
arm64)
	images=$here/image/arm64 make="make ARCH=arm64" kname=Image
	qemu_bin=qemu-system-aarch64 machine="-M virt -cpu cortex-a72"
	# One host thread for both vCPUs, as on s390x (below): with
	# multi-threaded TCG, krsi_slots saw an open() right after an
	# attach run without the program, twice in a row on the CPU that
	# attached, in 133 of 2,000 cycles through a hook file and 114 of
	# 2,000 through a link; with thread=single in none.  The kernel
	# makes the patched jump visible on every CPU (6.1.192 has
	# cfb00a357864's kick_all_cpus_sync()), and the CPU that patched
	# takes a syscall return and entry before the open: QEMU 7.2's
	# translation cache kept the old code.
	console=ttyAMA0 tcg_opts=,thread=single icount_smp=2
	# KVM runs a guest of the host's own architecture, on its own CPU.
	if [ "$accel" = kvm ]; then
		[ "$(uname -m)" = aarch64 ] || die "--kvm: an arm64 guest needs an arm64 host for KVM"
		machine="-M virt -cpu host"
	fi
	;;
s390x)
	images=$here/image/s390x make="make ARCH=s390x"
	qemu_bin=qemu-system-s390x machine="-M s390-ccw-virtio"
	console=ttysclp0
	[ "$accel" = tcg ] || die "--kvm: an s390x guest runs under software emulation here"
	[ -z "$log" ] || die "--log: x86_64 and arm64 only (s390x has no stream port)"
	# One host thread for both vCPUs: with QEMU 7.2's multi-threaded TCG,
	# code the s390x kernel patches (a static key turned on by an attach)
	# now and then kept running unpatched on the calling CPU afterwards:
	# krsi_slots saw the hook stay off for two opens after an attach had
	# returned, about once in 3,500 cycles (9 in 32,000), and never in
	# 32,000 with thread=single.  -icount implies it anyway.
	tcg_opts=,thread=single
	# Under -icount, QEMU 7.2's s390x guest with two vCPUs now and then
	# stops for good once both are idle (after the initramfs is
	# unpacked, with or without sleep=off): one vCPU there.
	icount_smp=1
	;;
*) die "--arch $arch: x86_64, arm64 or s390x" ;;
esac
# The learning boot: the appliance's first kernel, which carries no boot
# policies (kernel/kernel.mk), and /init told not to lock.
if [ -n "$learn" ]; then
	[ -z "$kernel" ] || die "--learn and --kernel: one or the other"
	case $arch in
	x86_64) kernel=$here/build/kernel-bare/arch/x86/boot/$kname ;;
	arm64) kernel=$here/build/arm64/kernel-bare/arch/arm64/boot/$kname ;;
	s390x) kernel=$here/build/s390x/kernel-bare/arch/s390/boot/$kname ;;
	esac
	append="$append krsi.boot=learn"
fi
kernel=${kernel:-$images/$kname}
initrd=${initrd:-$images/initramfs.cpio.gz}

# The image's own krsi, on the host: the host's copy of the audit stream
# is checked by the same code that sealed it (tools/lib/trail.c).  Another
# architecture's runs under qemu-user (make deps installs it).
host_krsi() {
	[ -x "$images/krsi" ] || { echo "run-qemu.sh: $images/krsi not found: run '$make'" >&2; return 2; }
	case $arch:$(uname -m) in
	x86_64:x86_64|arm64:aarch64|s390x:s390x) "$images/krsi" "$@" ;;
	arm64:*) qemu-aarch64-static "$images/krsi" "$@" ;;
	s390x:*) qemu-s390x-static "$images/krsi" "$@" ;;
	*) echo "run-qemu.sh: no way to run $arch's krsi here" >&2; return 2 ;;
	esac
}

if [ -n "$verify" ]; then
	host_krsi events --verify "$verify"
	exit
fi

[ -r "$kernel" ] || die "$kernel not found: run '$make' first"
[ -r "$initrd" ] || die "$initrd not found: run '$make' first"
command -v "$qemu_bin" >/dev/null || die "$qemu_bin not found: run 'make deps'"

cmdline="console=$console loglevel=$loglevel panic=-1 oops=panic"
[ -n "$mode" ] && cmdline="$cmdline krsi.mode=$mode"
# The trail so far must verify: every line sealed in its place, every
# boot's stream ended by the reader's stop record (when /init stopped it;
# a reader that died, a machine stopped or wrecked, a stream cut, a line
# forged or dropped, all are said), and the guest says it too.
offset=0
if [ -n "$log" ] && [ -s "$log" ]; then
	# A boot cut mid-line left half a line: this boot's key line must
	# not be glued to it.
	[ -z "$(tail -c 1 "$log")" ] || echo >>"$log"
	offset=$(stat -c %s "$log")
	if ! host_krsi events --verify "$log" >"$log.check" 2>&1; then
		echo "run-qemu.sh: $log: the trail of the boots before does not verify:" >&2
		grep -v ': the stream of lines' "$log.check" | head -n 20 >&2
		cmdline="$cmdline krsi.trail=unverified"
	fi
	rm -f "$log.check"
fi
cmdline="$cmdline$append"

qemu() {
	# shellcheck disable=SC2086 # $machine is empty or options
	$runner "$qemu_bin" $machine -nographic -no-reboot -m "$memory" -smp "$smp" \
		-kernel "$kernel" -initrd "$initrd" "$@"
}

# KVM hangs on some hosts right after "Booting from ROM": only use it when a
# probe boot reaches /init within a few seconds.
runner=""
if [ "$accel" = kvm ]; then
	[ -w /dev/kvm ] || die "--kvm: /dev/kvm is not there or not writable"
	runner="timeout 20"
	if ! qemu -accel kvm -append "console=$console panic=-1 krsi.mode=probe" \
		</dev/null 2>&1 | grep -q "init: probe ok"; then
		die "--kvm: a probe boot with KVM did not reach /init in 20 s; run without --kvm"
	fi
	runner=""
fi

if [ -n "$efi" ]; then
	[ "$arch" = arm64 ] || die "--efi: arm64 only"
	[ -r "$efi" ] || die "--efi: $efi not found: run 'make deps'"
	machine="$machine -bios $efi"
fi

[ "$accel" = tcg ] && accel=$accel$tcg_opts
set -- -accel "$accel" -append "$cmdline"
[ -n "$icount" ] && set -- "$@" -icount shift=0 && smp=$icount_smp
if [ -n "$results" ] && [ "$arch" = s390x ]; then
	set -- "$@" -device virtio-serial-ccw \
		-chardev "file,id=results,path=$results" \
		-device virtserialport,chardev=results,name=krsi.results
fi
# arm64's ports, on one virtio serial bus: the stream a console (hvc0,
# whose device number protect_log knows), the results a named port.
if [ "$arch" = arm64 ] && { [ -n "$results" ] || [ -n "$log" ]; }; then
	set -- "$@" -device virtio-serial-device
	[ -z "$log" ] || set -- "$@" -chardev "file,id=krsilog,path=$log,append=on" \
		-device virtconsole,chardev=krsilog
	[ -z "$results" ] || set -- "$@" -chardev "file,id=results,path=$results" \
		-device virtserialport,chardev=results,name=krsi.results
fi
# x86_64's serial ports in order: ttyS0 the console, ttyS1 the results,
# ttyS2 the audit log's stream (this kernel has no virtio console: an 8250
# port, of which it has four).
if [ "$arch" = x86_64 ] && { [ -n "$results" ] || [ -n "$log" ]; }; then
	second=null
	[ -n "$results" ] && second=file:$results
	set -- "$@" -serial mon:stdio -serial "$second"
fi
if [ -n "$log" ] && [ "$arch" = x86_64 ]; then
	set -- "$@" -chardev "file,id=krsilog,path=$log,append=on" -serial chardev:krsilog
fi

# What the guest streamed so far, checked as it comes: a line forged,
# dropped or out of place is said while the guest runs, once, with its
# line in this boot's trail (a stream still going is no cut, and its
# last line may be half written: those wait for the end).
seen=0
check_so_far() {
	findings=$(tail -c +$((offset + 1)) "$log" |
		host_krsi events --verify - --one-boot 2>/dev/null |
		grep -E '^-:[0-9]+: (forged|dropped|replayed|missing|begun|after|withheld)' |
		grep -v 'no newline' || true)
	[ -n "$findings" ] || return 0
	echo "$findings" | while IFS= read -r f; do
		n=${f#-:}
		n=${n%%:*}
		[ "$n" -le "$seen" ] || echo "run-qemu.sh: $log: this boot's line $n:${f#-:"$n":}" >&2
	done
	n=$(echo "$findings" | tail -n 1)
	n=${n#-:}
	seen=${n%%:*}
}

# While the guest runs, the stream speaks at least every 10 s (the
# reader's heartbeat): a silence of KRSI_STREAM_SILENCE seconds is said,
# once, and when it ends, and the longest is kept for the verdict
# ($silent); what it said is checked every 10 s.
silence=${KRSI_STREAM_SILENCE:-30}
silent=
watch_stream() {
	trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	last=$(stat -c %s "$log" 2>/dev/null || echo 0) quiet=0 said= ticks=0 unchecked=
	while :; do
		sleep 5 &
		nap=$!
		wait "$nap"
		ticks=$((ticks + 1))
		now=$(stat -c %s "$log" 2>/dev/null || echo 0)
		# What came since the last check, checked every other tick.
		[ "$now" = "$last" ] || unchecked=1
		if [ -n "$unchecked" ] && [ $((ticks % 2)) -eq 0 ]; then
			check_so_far
			unchecked=
		fi
		if [ "$now" != "$last" ]; then
			[ -z "$said" ] || echo "run-qemu.sh: $log: the audit stream speaks" \
				"again after $quiet s of silence" >&2
			last=$now quiet=0 said=
			continue
		fi
		quiet=$((quiet + 5))
		if [ "$quiet" -ge "$silence" ] && [ "$now" -gt "$offset" ]; then
			[ -n "$said" ] || echo "run-qemu.sh: $log: the audit stream has been" \
				"silent for $quiet s while the guest runs: cut, or its reader stopped" >&2
			said=1
			# The longest, for the verdict.
			[ "$quiet" -le "$(cat "$silent")" ] || echo "$quiet" >"$silent"
		fi
	done
}

# This boot's trail, once the guest is gone: one stream, whole, from a
# machine that stopped when its reader said it would ($1: the seconds
# QEMU ran after the file last grew, which is after the stop record
# when that ends it), heard from all along (the longest silence, if one
# was said, counts against it).
check_boot() {
	if [ "$(stat -c %s "$log" 2>/dev/null || echo 0)" -le "$offset" ]; then
		echo "run-qemu.sh: $log: this boot streamed nothing" >&2
		return
	fi
	set -- --ran "$1"
	[ "$(cat "$silent")" = 0 ] || set -- "$@" --silent "$(cat "$silent")"
	echo "run-qemu.sh: $log: this boot's trail, from byte $offset:" >&2
	tail -c +$((offset + 1)) "$log" | host_krsi events --verify - --one-boot "$@" |
		sed 's/^-/  this boot/' >&2
}

[ "$timeout" -gt 0 ] && runner="timeout --foreground -k 5 $timeout"
watcher=
if [ -n "$log" ]; then
	touch "$log"
	silent=$(mktemp)
	echo 0 >"$silent"
	watch_stream &
	watcher=$!
fi
status=0
qemu "$@" || status=$?
if [ -n "$watcher" ]; then
	ran=$(echo "$(stat -c %.9Y "$log") $(date +%s.%N)" |
		awk '{ printf "%.1f", ($2 > $1 ? $2 - $1 : 0) }')
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
	check_boot "$ran"
	rm -f "$silent"
fi
exit "$status"
